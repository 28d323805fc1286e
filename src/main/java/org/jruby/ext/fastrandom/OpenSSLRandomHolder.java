package org.jruby.ext.fastrandom;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;

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
     * be loaded.
     *
     * @throws ReflectiveOperationException when this jruby-openssl's holder is not the kind expected
     */
    static void install(Ruby runtime) throws ReflectiveOperationException {
        RubyModule random = runtime.getClassFromPath("OpenSSL::Random");
        Object current = random.dataGetStruct();
        if (current == null) throw new ClassNotFoundException("OpenSSL::Random holds no random source");
        if (current.getClass().getName().equals(SHARED_HOLDER) && field(current.getClass(), "secureRandom").get(current)
                == GeneratorSecureRandom.OPENSSL) {
            return; // already ours
        }
        Class<?> shared = Class.forName(SHARED_HOLDER, true, current.getClass().getClassLoader());
        Constructor<?> constructor = shared.getDeclaredConstructor();
        constructor.setAccessible(true);
        Object holder = constructor.newInstance();
        field(shared, "secureRandom").set(holder, GeneratorSecureRandom.OPENSSL);
        field(shared, "plainRandom").set(holder, GeneratorSecureRandom.OPENSSL);
        random.dataWrapStruct(holder);
        pointStatics(runtime, shared.getClassLoader());
    }

    /**
     * The generators jruby-openssl keeps in static fields, made on first use:
     * {@code BN.rand}, {@code rand_range} and {@code generate_prime}'s
     * SecureRandom and {@code pseudo_rand}'s Random, and the one that makes
     * the IVs of PEM keys encrypted with a cipher. Only where jruby-openssl's
     * classes are this runtime's alone (its jar loaded by this runtime, as
     * {@code require "openssl"} does): classes runtimes share must not keep
     * one runtime's objects.
     */
    private static void pointStatics(Ruby runtime, ClassLoader openssl) throws ReflectiveOperationException {
        if (openssl != runtime.getJRubyClassLoader()) return;
        Class<?> bn = Class.forName("org.jruby.ext.openssl.BN", true, openssl);
        field(bn, "secureRandom").set(null, GeneratorSecureRandom.OPENSSL);
        field(bn, "random").set(null, GeneratorSecureRandom.OPENSSL);
        Class<?> pem = Class.forName("org.jruby.ext.openssl.x509store.PEMInputOutput", true, openssl);
        field(pem, "random").set(null, GeneratorSecureRandom.OPENSSL);
    }

    private static Field field(Class<?> type, String name) throws NoSuchFieldException {
        Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return field;
    }
}
