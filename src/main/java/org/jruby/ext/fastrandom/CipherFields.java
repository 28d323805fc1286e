package org.jruby.ext.fastrandom;

import java.lang.reflect.Field;

import org.jruby.runtime.builtin.IRubyObject;
import org.jruby.util.ByteList;

/**
 * The fields of jruby-openssl's {@code OpenSSL::Cipher} (its Java class,
 * {@code org.jruby.ext.openssl.Cipher}) that {@link CipherMethods} reads
 * for {@code auth_data=}: the JCA cipher, whether that cipher has been
 * initialized with the current key and IV, and the AAD jruby-openssl keeps
 * until its next {@code update} or {@code final}; and for {@code update},
 * whether a decryption's tag was given by {@code auth_tag=}. The same names in every
 * release from 0.15.0 to 0.16.2; a release without them leaves AES stock
 * ({@link JRubyOpenSsl#require} says so).
 */
final class CipherFields {
    private static final String CIPHER_CLASS = "org.jruby.ext.openssl.Cipher";

    private final Class<?> type;
    private final Field cipher;
    private final Field cipherInited;
    private final Field authData;
    private final Field authTag;

    private CipherFields(Class<?> type) throws NoSuchFieldException {
        this.type = type;
        this.cipher = field(type, "cipher", javax.crypto.Cipher.class);
        this.cipherInited = field(type, "cipherInited", boolean.class);
        this.authData = field(type, "auth_data", ByteList.class);
        this.authTag = field(type, "auth_tag", ByteList.class);
    }

    /** jruby-openssl's, from {@code loader}; throws {@link JRubyOpenSsl.Unusable} saying what it lacks. */
    static CipherFields of(ClassLoader loader) {
        try {
            return new CipherFields(Class.forName(CIPHER_CLASS, false, loader));
        } catch (ClassNotFoundException | NoSuchFieldException | RuntimeException e) {
            throw new JRubyOpenSsl.Unusable("jruby-openssl has no " + missing(e) + ", which fast_random's AES needs");
        }
    }

    /** What {@link #of} would say is missing (named as a thing jruby-openssl has no), or null. */
    static String missing(ClassLoader loader) {
        try {
            new CipherFields(Class.forName(CIPHER_CLASS, false, loader));
            return null;
        } catch (ClassNotFoundException | NoSuchFieldException | RuntimeException e) {
            return missing(e);
        }
    }

    private static String missing(Exception e) {
        if (e instanceof ClassNotFoundException) return CIPHER_CLASS;
        return CIPHER_CLASS + "'s fields cipher, cipherInited, auth_data and auth_tag (" + e.getMessage() + ")";
    }

    private static Field field(Class<?> type, String name, Class<?> expected) throws NoSuchFieldException {
        Field field = type.getDeclaredField(name);
        if (field.getType() != expected) throw new NoSuchFieldException(name + " is a " + field.getType().getName());
        field.setAccessible(true);
        return field;
    }

    /** Whether {@code self} is jruby-openssl's cipher object (a Ruby subclass's too). */
    boolean holds(IRubyObject self) {
        return type.isInstance(self);
    }

    /** Its JCA cipher, if it has one yet. */
    javax.crypto.Cipher cipher(IRubyObject self) {
        return (javax.crypto.Cipher) get(cipher, self);
    }

    /** Whether its JCA cipher has the current key and IV (else the next update or final initializes it). */
    boolean initialized(IRubyObject self) {
        return (Boolean) get(cipherInited, self);
    }

    /** The AAD it keeps for its next update or final, taken from it (null: none). */
    ByteList takeAuthData(IRubyObject self) {
        ByteList data = (ByteList) get(authData, self);
        if (data != null) {
            try {
                authData.set(self, null);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e); // made accessible
            }
        }
        return data;
    }

    /** Whether it has a tag: for a decryption, given by {@code auth_tag=}, for its final. */
    boolean hasAuthTag(IRubyObject self) {
        return get(authTag, self) != null;
    }

    /** Gives it back the AAD {@link #takeAuthData} took, for its next update or final. */
    void putBackAuthData(IRubyObject self, ByteList data) {
        try {
            authData.set(self, data);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e); // made accessible
        }
    }

    private static Object get(Field field, IRubyObject self) {
        try {
            return field.get(self);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e); // made accessible
        }
    }
}
