package org.jruby.ext.fastrandom;

import org.jruby.Ruby;
import org.jruby.RubyModule;
import org.jruby.anno.JRubyMethod;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

import fastrandom.random.Call;
import fastrandom.support.Diagnostics;

/**
 * {@code FastRandom::OpenSSLRandomMethods}, prepended to the singleton class
 * of {@code OpenSSL::Random} once jruby-openssl is loaded ({@link #install}), so
 * {@code OpenSSL::Random.random_bytes} draws from the same generators as
 * SecureRandom. The length converts as MRI's NUM2INT does (Floats truncate,
 * to_int is honoured, RangeError beyond an int), which also spares
 * jruby-openssl's own conversion, that fails with a Java
 * ClassCastException on a Float.
 */
public final class OpenSSLRandomMethods {
    private OpenSSLRandomMethods() {}

    /**
     * Prepends these methods to OpenSSL::Random's singleton class (they are
     * fast_random's own through and through, and need nothing of
     * jruby-openssl's) and points what jruby-openssl draws itself at the
     * same generators ({@link OpenSSLRandomHolder}); if this jruby-openssl's
     * holder is not the kind expected, or (on a release the suite has not run
     * on) its draws do not reach fast_random's generators, that second part
     * stays stock's, with one warning. Openssl must be loaded
     * ({@link OpenSSLHook}).
     */
    static void install(ThreadContext context) {
        Ruby runtime = context.runtime;
        RubyModule methods = runtime.defineModuleUnder("OpenSSLRandomMethods", runtime.getModule("FastRandom"));
        Bindings.define(methods, OpenSSLRandomMethods.class);
        runtime.getClassFromPath("OpenSSL::Random").getSingletonClass().prependModule(methods);
        Runnable undo;
        try {
            undo = OpenSSLRandomHolder.install(runtime);
        } catch (ReflectiveOperationException | RuntimeException e) {
            Diagnostics.warn("Cipher#random_iv and random_key stay on jruby-openssl's SecureRandom (" + e + ")");
            return;
        }
        try {
            JRubyOpenSsl.checkAtLoad(context, JRubyOpenSsl.Capability.RANDOM);
        } catch (RuntimeException | LinkageError e) {
            undo.run();
            if (JRubyOpenSsl.isControlFlow(context, e)) throw e;
            Diagnostics.warn("Cipher#random_iv and random_key stay on jruby-openssl's SecureRandom (" + e.getMessage() + ")");
        }
    }

    @JRubyMethod(name = {"random_bytes", "pseudo_bytes"})
    public static IRubyObject random_bytes(ThreadContext context, IRubyObject self, IRubyObject n) {
        return Strings.binary(context.runtime, SecureRandomMethods.randomBytes(context, Call.OPENSSL, ByteCount.ofInt(context, n)));
    }
}
