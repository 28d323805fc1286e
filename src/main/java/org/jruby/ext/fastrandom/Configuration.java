package org.jruby.ext.fastrandom;

import java.util.function.Consumer;

import org.jruby.Ruby;
import org.jruby.RubyModule;
import org.jruby.exceptions.RaiseException;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

import fastrandom.Setting;
import fastrandom.support.Diagnostics;

/**
 * Every {@code FAST_RANDOM_*} setting, read once, from the requiring
 * runtime's {@code ENV}, when {@code require "fast_random"} runs
 * ({@link SecureRandomLibrary}): an initializer can set {@code ENV[...]}
 * before the require, and changing ENV afterwards changes nothing. No other
 * class reads the environment, in Java or in C.
 * <pre>
 *   FAST_RANDOM_BACKEND          drbg | rdrand        FastRandom.backend=, at the require
 *   FAST_RANDOM_NATIVE_LIBRARY   path                 the JNI library instead of the gem's
 *   FAST_RANDOM_JCA              1 | 0                FastRandom.install_jca_provider, at the require
 *   FAST_RANDOM_RSA_ENGINE       openssl | gmp | java FastRandom::RSA.engine=, when RSA is defined
 *   FAST_RANDOM_EC_ENGINE        openssl | java       FastRandom::EC.engine=, when EC is defined
 *   FAST_RANDOM_TLS              1 | 0 | openssl      0: SSLSocket's data path stays jruby-openssl's;
 *                                                     openssl: FastRandom::TLS.engine = :openssl too
 * </pre>
 * Those are read per runtime and kept here, on the FastRandom module; the
 * backend and FAST_RANDOM_JCA act per runtime, while the library path and
 * the engine choices steer state held per class loader, which is per
 * runtime in the usual case of one loader per runtime (where runtimes share
 * the classes, the last require's choice holds). The others ({@link Setting}: FAST_RANDOM_HIDE_CPU_RANDOM,
 * _HIDE_LIBCRYPTO, _HIDE_IFMA, _GMP_LIBRARY, _TEST_OPENSSL_VERSION) steer
 * state kept once per class loader, and go there; a system property, where
 * one is defined, wins over ENV.
 */
final class Configuration {
    static final String BACKEND = "FAST_RANDOM_BACKEND";
    static final String NATIVE_LIBRARY = "FAST_RANDOM_NATIVE_LIBRARY";
    static final String JCA = "FAST_RANDOM_JCA";
    static final String RSA_ENGINE = "FAST_RANDOM_RSA_ENGINE";
    static final String EC_ENGINE = "FAST_RANDOM_EC_ENGINE";
    static final String TLS = "FAST_RANDOM_TLS";

    /** The FastRandom module's internal variable that holds this runtime's Configuration. */
    private static final String VARIABLE = "fast_random_configuration";

    /** ENV's values at the require: a String, or nil when unset. */
    final IRubyObject backend;
    final IRubyObject nativeLibrary;
    final IRubyObject jca;
    final IRubyObject rsaEngine;
    final IRubyObject ecEngine;
    final IRubyObject tls;

    private Configuration(ThreadContext context) {
        backend = environment(context, BACKEND);
        nativeLibrary = environment(context, NATIVE_LIBRARY);
        jca = environment(context, JCA);
        rsaEngine = environment(context, RSA_ENGINE);
        ecEngine = environment(context, EC_ENGINE);
        tls = environment(context, TLS);
    }

    /** Reads every setting from ENV (once per runtime) and hands the JVM-wide ones to {@link Setting}. */
    static Configuration read(ThreadContext context, RubyModule fastRandom) {
        Configuration configuration = new Configuration(context);
        for (Setting setting : Setting.values()) {
            IRubyObject value = environment(context, setting.variable());
            setting.configure(value.isNil() ? null : value.asJavaString());
        }
        fastRandom.setInternalVariable(VARIABLE, configuration);
        return configuration;
    }

    /** This runtime's settings, as read when fast_random was required. */
    static Configuration of(Ruby runtime) {
        return (Configuration) runtime.getModule("FastRandom").getInternalVariable(VARIABLE);
    }

    /**
     * Applies {@code value}, ENV's {@code variable} at the require, through
     * the setter that Ruby code calls ({@code FastRandom.backend=},
     * {@code RSA.engine=}, {@code EC.engine=}); nothing when unset. A value
     * the setter refuses (unknown, or unavailable here) is one warning, and
     * the default stays: a setting in ENV never stops the require or
     * openssl's, as the setter's exception would.
     */
    static void apply(ThreadContext context, String variable, IRubyObject value, Consumer<IRubyObject> setter) {
        if (value.isNil()) return;
        try {
            setter.accept(value);
        } catch (RaiseException e) {
            Diagnostics.warnOnce(variable + "=" + value.asJavaString() + " is ignored (" + e.getException().message(context).asJavaString()
                    + "); the default stays");
        }
    }

    /** {@code ENV[name]}, as Ruby sees it (nil when unset). */
    private static IRubyObject environment(ThreadContext context, String name) {
        return context.runtime.getENV().op_aref(context, context.runtime.newString(name));
    }
}
