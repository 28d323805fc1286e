package org.jruby.ext.fastrandom;

import org.jruby.Ruby;
import org.jruby.RubyModule;
import org.jruby.anno.JRubyMethod;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

import fastrandom.random.Call;

/**
 * {@code FastRandom::OpenSSLRandomMethods}, prepended to the singleton class
 * of {@code OpenSSL::Random} once jruby-openssl is loaded ({@link OpenSSLLibrary}), so
 * {@code OpenSSL::Random.random_bytes} draws from the same generators as
 * SecureRandom. The length converts as MRI's NUM2INT does (Floats truncate,
 * to_int is honoured, RangeError beyond an int), which also spares
 * jruby-openssl's own conversion, that fails with a Java
 * ClassCastException on a Float.
 */
public final class OpenSSLRandomMethods {
    private OpenSSLRandomMethods() {}

    static RubyModule define(Ruby runtime, RubyModule fastRandom) {
        RubyModule methods = runtime.defineModuleUnder("OpenSSLRandomMethods", fastRandom);
        Bindings.define(methods, OpenSSLRandomMethods.class);
        return methods;
    }

    @JRubyMethod(name = {"random_bytes", "pseudo_bytes"})
    public static IRubyObject random_bytes(ThreadContext context, IRubyObject self, IRubyObject n) {
        return Strings.binary(context.runtime, SecureRandomMethods.randomBytes(context, Call.OPENSSL, ByteCount.ofInt(context, n)));
    }
}
