package org.jruby.ext.fastrandom;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

/**
 * The members of jruby-openssl's classes that the TLS bindings
 * ({@link SSLSocketFields}, {@link SSLContextFields}) reach by reflection:
 * found once, made accessible, then read and written without checked
 * exceptions.
 */
final class Reflection {
    private Reflection() {}

    /** {@code owner}'s instance field {@code name}, of exactly the type {@code expected}, made accessible. */
    static Field field(Class<?> owner, String name, Class<?> expected) throws NoSuchFieldException {
        Field field = owner.getDeclaredField(name);
        if (field.getType() != expected || Modifier.isStatic(field.getModifiers())) {
            throw new NoSuchFieldException(owner.getSimpleName() + "." + name + " is a " + field.getType().getName());
        }
        field.setAccessible(true);
        return field;
    }

    /** {@code owner}'s method {@code name} taking {@code parameters}, made accessible. */
    static Method method(Class<?> owner, String name, Class<?>... parameters) throws NoSuchMethodException {
        Method method = owner.getDeclaredMethod(name, parameters);
        method.setAccessible(true);
        return method;
    }

    /** The value of a field found by {@link #field}. */
    static Object get(Field field, Object self) {
        try {
            return field.get(self);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e); // made accessible
        }
    }

    /** Sets a field found by {@link #field}. */
    static void set(Field field, Object self, Object value) {
        try {
            field.set(self, value);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e); // made accessible
        }
    }
}
