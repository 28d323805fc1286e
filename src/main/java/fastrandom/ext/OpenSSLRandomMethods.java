package fastrandom.ext;

import org.jruby.Ruby;
import org.jruby.RubyModule;
import org.jruby.anno.JRubyMethod;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

/**
 * {@code FastRandom::OpenSSLRandomMethods}, prepended to the singleton class
 * of {@code OpenSSL::Random} once jruby-openssl is loaded, so
 * {@code OpenSSL::Random.random_bytes} draws from the same generators as
 * SecureRandom. Non-Integer arguments go to jruby-openssl's own method.
 */
public final class OpenSSLRandomMethods {
    /** jruby-openssl's own methods, for arguments we leave to them. */
    static final StockMethods STOCK = new StockMethods();

    private OpenSSLRandomMethods() {}

    /** {@code prepend_to(OpenSSL::Random)}: puts these methods in front of its own. */
    @JRubyMethod(name = "prepend_to", meta = true)
    public static IRubyObject prepend_to(ThreadContext context, IRubyObject self, IRubyObject target) {
        STOCK.prependOver(target, (RubyModule) self);
        return target;
    }

    static RubyModule define(Ruby runtime, RubyModule fastRandom) {
        RubyModule methods = runtime.defineModuleUnder("OpenSSLRandomMethods", fastRandom);
        methods.defineAnnotatedMethods(OpenSSLRandomMethods.class);
        return methods;
    }

    @JRubyMethod(name = "random_bytes")
    public static IRubyObject random_bytes(ThreadContext context, IRubyObject self, IRubyObject n) {
        return generate(context, self, "random_bytes", n);
    }

    @JRubyMethod(name = "pseudo_bytes")
    public static IRubyObject pseudo_bytes(ThreadContext context, IRubyObject self, IRubyObject n) {
        return generate(context, self, "pseudo_bytes", n);
    }

    private static IRubyObject generate(ThreadContext context, IRubyObject self, String name, IRubyObject n) {
        if (!ByteCount.isInteger(n)) return STOCK.call(context, self, name, n);
        return Strings.binary(context.runtime, SecureRandomMethods.randomBytes(context, ByteCount.of(context, n)));
    }
}
