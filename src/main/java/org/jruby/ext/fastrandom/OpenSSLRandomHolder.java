package org.jruby.ext.fastrandom;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;

import org.jruby.Ruby;
import org.jruby.RubyModule;

import fastrandom.random.GeneratorSecureRandom;

/**
 * Points the randomness jruby-openssl draws itself at fast_random's
 * generators: {@code Cipher#random_iv} and {@code Cipher#random_key} call
 * jruby-openssl's Java {@code Random.random_bytes} directly (no Ruby method
 * call that a prepended module could see), which draws from the "holder"
 * kept on {@code OpenSSL::Random} (its data struct). On JRuby 10 that holder
 * serves one BouncyCastle DRBG shared by every thread, behind a lock; on
 * 9.4, JRuby's per-thread SecureRandom. This puts in its place a holder of
 * jruby-openssl's own shared kind (made by reflection: jruby-openssl's
 * classes are not compiled against) whose SecureRandom and Random are
 * {@link GeneratorSecureRandom#OPENSSL}, so those draws count as
 * {@code stats[:calls][:openssl]}. The holder belongs to the runtime's
 * OpenSSL::Random, so it goes with the runtime. The same for the
 * generators jruby-openssl keeps in static fields ({@code OpenSSL::BN}'s,
 * PEM encryption's), where its classes are the runtime's own.
 */
final class OpenSSLRandomHolder {
    private static final String SHARED_HOLDER = "org.jruby.ext.openssl.Random$SharedHolder";

    private OpenSSLRandomHolder() {}

    /**
     * Puts fast_random's holder on the runtime's OpenSSL::Random; openssl must
     * be loaded. Every class, field and constructor is found before anything
     * is set, so a jruby-openssl without one is left as it was. Returns what
     * puts jruby-openssl's own sources back (nothing, when they were ours
     * already).
     *
     * @throws ReflectiveOperationException when this jruby-openssl's holder is not the kind expected
     */
    static Runnable install(Ruby runtime) throws ReflectiveOperationException {
        RubyModule random = runtime.getClassFromPath("OpenSSL::Random");
        Object current = random.dataGetStruct();
        if (current == null) throw new ClassNotFoundException("OpenSSL::Random holds no random source");
        if (current.getClass().getName().equals(SHARED_HOLDER) && field(current.getClass(), "secureRandom").get(current)
                == GeneratorSecureRandom.OPENSSL) {
            return () -> { }; // already ours
        }
        ClassLoader openssl = current.getClass().getClassLoader();
        Class<?> shared = Class.forName(SHARED_HOLDER, true, openssl);
        Constructor<?> constructor = shared.getDeclaredConstructor();
        constructor.setAccessible(true);
        Field secureRandom = field(shared, "secureRandom");
        Field plainRandom = field(shared, "plainRandom");
        // The static generators, only where jruby-openssl's classes are this
        // runtime's alone (its jar loaded by this runtime, as require
        // "openssl" does): classes runtimes share must not keep one runtime's
        // objects. BN.rand, rand_range and generate_prime's SecureRandom and
        // pseudo_rand's Random, and the one that makes the IVs of PEM keys
        // encrypted with a cipher.
        Field[] statics = new Field[0];
        if (openssl == runtime.getJRubyClassLoader()) {
            Class<?> bn = Class.forName("org.jruby.ext.openssl.BN", true, openssl);
            Class<?> pem = Class.forName("org.jruby.ext.openssl.x509store.PEMInputOutput", true, openssl);
            statics = new Field[] {field(bn, "secureRandom"), field(bn, "random"), field(pem, "random")};
        }
        Object[] before = new Object[statics.length];
        for (int i = 0; i < statics.length; i++) before[i] = statics[i].get(null);

        Object holder = constructor.newInstance();
        secureRandom.set(holder, GeneratorSecureRandom.OPENSSL);
        plainRandom.set(holder, GeneratorSecureRandom.OPENSSL);
        for (Field field : statics) field.set(null, GeneratorSecureRandom.OPENSSL);
        random.dataWrapStruct(holder);
        Field[] set = statics;
        return () -> {
            random.dataWrapStruct(current);
            try {
                for (int i = 0; i < set.length; i++) set[i].set(null, before[i]);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e); // the same fields were set above
            }
        };
    }

    /** A field of jruby-openssl's, made settable: a static one only when not final. */
    private static Field field(Class<?> type, String name) throws NoSuchFieldException {
        Field field = type.getDeclaredField(name);
        if (Modifier.isStatic(field.getModifiers()) && Modifier.isFinal(field.getModifiers())) {
            throw new NoSuchFieldException(type.getName() + "." + name + " is final");
        }
        if (!field.getType().isAssignableFrom(GeneratorSecureRandom.class)) {
            throw new NoSuchFieldException(type.getName() + "." + name + " is a " + field.getType().getName());
        }
        field.setAccessible(true);
        return field;
    }
}
