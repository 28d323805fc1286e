package org.jruby.ext.fastrandom;

import java.util.Base64;

import org.jruby.Ruby;
import org.jruby.RubyFixnum;
import org.jruby.RubyFloat;
import org.jruby.RubyModule;
import org.jruby.RubyNumeric;
import org.jruby.anno.JRubyMethod;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.Visibility;
import org.jruby.runtime.builtin.IRubyObject;

import fastrandom.jni.CpuRandomFailure;
import fastrandom.random.Call;
import fastrandom.text.Hex;
import fastrandom.text.Uuids;

/**
 * The hot SecureRandom methods, as instance methods of the module
 * {@code FastRandom::SecureRandomMethods}, which lib/fast_random prepends to
 * SecureRandom's singleton class. Integer (and nil) arguments take the Java
 * path; any other argument goes to the original method through super, so
 * conversions and errors stay exactly those of the stock implementation,
 * while the bytes it asks for still come from here.
 */
public final class SecureRandomMethods {
    static final int DEFAULT_LENGTH = 16;
    private static final Base64.Encoder BASE64 = Base64.getEncoder();
    private static final Base64.Encoder URLSAFE_BASE64 = Base64.getUrlEncoder();
    private static final Base64.Encoder URLSAFE_BASE64_UNPADDED = Base64.getUrlEncoder().withoutPadding();

    static final String PATH = "FastRandom::SecureRandomMethods";

    private SecureRandomMethods() {}

    static RubyModule define(Ruby runtime, RubyModule fastRandom) {
        RubyModule methods = runtime.defineModuleUnder("SecureRandomMethods", fastRandom);
        Bindings.define(methods, SecureRandomMethods.class);
        return methods;
    }

    @JRubyMethod(name = "bytes")
    public static IRubyObject bytes(ThreadContext context, IRubyObject self, IRubyObject n) {
        return urandom(context, self, "bytes", n);
    }

    @JRubyMethod(name = "gen_random")
    public static IRubyObject gen_random(ThreadContext context, IRubyObject self, IRubyObject n) {
        return urandom(context, self, "gen_random", n);
    }

    /** bytes and gen_random: Random.urandom's conversions (NUM2LONG). */
    private static IRubyObject urandom(ThreadContext context, IRubyObject self, String name, IRubyObject n) {
        if (n.isNil()) throw Errors.nilToInteger(context);
        if (!ByteCount.isInteger(n)) {
            // MRI's NUM2LONG raises RangeError for NaN, infinities and Floats
            // beyond a long; JRuby 9.4's urandom raises FloatDomainError.
            if (n instanceof RubyFloat) RubyNumeric.num2long(n);
            return callSuper(context, self, name, n);
        }
        return Strings.binary(context.runtime, randomBytes(context, Call.RANDOM_BYTES, ByteCount.of(context, n)));
    }

    @JRubyMethod(name = "random_bytes")
    public static IRubyObject random_bytes(ThreadContext context, IRubyObject self) {
        return Strings.binary(context.runtime, randomBytes(context, Call.RANDOM_BYTES, DEFAULT_LENGTH));
    }

    @JRubyMethod(name = "random_bytes")
    public static IRubyObject random_bytes(ThreadContext context, IRubyObject self, IRubyObject n) {
        if (!n.isNil() && !ByteCount.isInteger(n)) return callSuper(context, self, "random_bytes", n);
        return Strings.binary(context.runtime, randomBytes(context, Call.RANDOM_BYTES, length(context, n)));
    }

    @JRubyMethod(name = "hex")
    public static IRubyObject hex(ThreadContext context, IRubyObject self) {
        return hex(context, self, context.nil);
    }

    @JRubyMethod(name = "hex")
    public static IRubyObject hex(ThreadContext context, IRubyObject self, IRubyObject n) {
        if (!n.isNil() && !ByteCount.isInteger(n)) return callSuper(context, self, "hex", n);
        int length = length(context, n);
        if (length > ByteCount.MAX / 2) throw ByteCount.tooLarge(context);
        byte[] raw = randomBytes(context, Call.HEX, length);
        try {
            return Strings.ascii(context.runtime, Hex.encode(raw, 0, length));
        } catch (OutOfMemoryError e) {
            throw ByteCount.tooLarge(context);
        } finally {
            java.util.Arrays.fill(raw, (byte) 0);
        }
    }

    @JRubyMethod(name = "base64")
    public static IRubyObject base64(ThreadContext context, IRubyObject self) {
        return base64(context, self, context.nil);
    }

    @JRubyMethod(name = "base64")
    public static IRubyObject base64(ThreadContext context, IRubyObject self, IRubyObject n) {
        if (!n.isNil() && !ByteCount.isInteger(n)) return callSuper(context, self, "base64", n);
        return encoded(context, Call.BASE64, BASE64, n);
    }

    @JRubyMethod(name = "urlsafe_base64")
    public static IRubyObject urlsafe_base64(ThreadContext context, IRubyObject self) {
        return encoded(context, Call.URLSAFE_BASE64, URLSAFE_BASE64_UNPADDED, context.nil);
    }

    @JRubyMethod(name = "urlsafe_base64")
    public static IRubyObject urlsafe_base64(ThreadContext context, IRubyObject self, IRubyObject n) {
        if (!n.isNil() && !ByteCount.isInteger(n)) return callSuper(context, self, "urlsafe_base64", n);
        return encoded(context, Call.URLSAFE_BASE64, URLSAFE_BASE64_UNPADDED, n);
    }

    @JRubyMethod(name = "urlsafe_base64")
    public static IRubyObject urlsafe_base64(ThreadContext context, IRubyObject self, IRubyObject n, IRubyObject padding) {
        if (!n.isNil() && !ByteCount.isInteger(n)) {
            return Super.call(context, withStockFile(context, self), PATH, "urlsafe_base64", n, padding);
        }
        return encoded(context, Call.URLSAFE_BASE64, padding.isTrue() ? URLSAFE_BASE64 : URLSAFE_BASE64_UNPADDED, n);
    }

    @JRubyMethod(name = {"uuid", "uuid_v4"})
    public static IRubyObject uuid(ThreadContext context, IRubyObject self) {
        try {
            return Strings.ascii(context.runtime, Uuids.v4(Call.UUID.generator()));
        } catch (CpuRandomFailure e) {
            throw Errors.hardware(context, e);
        }
    }

    /**
     * The Java half of uuid_v7, private: lib/fast_random.rb's
     * {@code uuid_v7(extra_timestamp_bits: 0)} (a Ruby method, so that
     * keyword errors are Ruby's own) converts the keyword with
     * {@code Integer()}, as MRI does, and calls this.
     */
    @JRubyMethod(name = "uuid_v7_bits", visibility = Visibility.PRIVATE)
    public static IRubyObject uuid_v7_bits(ThreadContext context, IRubyObject self, IRubyObject bits) {
        long extra = bits instanceof RubyFixnum ? ((RubyFixnum) bits).getLongValue() : -1;
        if (extra < 0 || extra > 12) throw context.runtime.newArgumentError("extra_timestamp_bits must be in 0..12");
        try {
            return Strings.ascii(context.runtime, Uuids.v7(Call.UUID_V7.generator(), (int) extra));
        } catch (CpuRandomFailure e) {
            throw Errors.hardware(context, e);
        }
    }

    @JRubyMethod(name = {"random_number", "rand"})
    public static IRubyObject random_number(ThreadContext context, IRubyObject self) {
        try {
            return RandomNumber.random(context, Call.RANDOM_NUMBER.generator());
        } catch (CpuRandomFailure e) {
            throw Errors.hardware(context, e);
        }
    }

    @JRubyMethod(name = {"random_number", "rand"})
    public static IRubyObject random_number(ThreadContext context, IRubyObject self, IRubyObject limit) {
        try {
            return RandomNumber.random(context, Call.RANDOM_NUMBER.generator(), limit);
        } catch (CpuRandomFailure e) {
            throw Errors.hardware(context, e);
        }
    }

    // Every other argument count lands in the rest-argument variants below,
    // which raise ArgumentError worded as MRI words it (JRuby 9.4's own
    // check for Java methods puts the method name in front). Calls with a
    // valid count and a splatted array arrive here too, and are passed on.

    @JRubyMethod(name = "bytes", rest = true)
    public static IRubyObject bytes(ThreadContext context, IRubyObject self, IRubyObject[] args) {
        switch (args.length) {
            case 1: return bytes(context, self, args[0]);
            default: throw Errors.arity(context, args.length, 1, 1);
        }
    }

    @JRubyMethod(name = "gen_random", rest = true)
    public static IRubyObject gen_random(ThreadContext context, IRubyObject self, IRubyObject[] args) {
        switch (args.length) {
            case 1: return gen_random(context, self, args[0]);
            default: throw Errors.arity(context, args.length, 1, 1);
        }
    }

    @JRubyMethod(name = "random_bytes", rest = true)
    public static IRubyObject random_bytes(ThreadContext context, IRubyObject self, IRubyObject[] args) {
        switch (args.length) {
            case 0: return random_bytes(context, self);
            case 1: return random_bytes(context, self, args[0]);
            default: throw Errors.arity(context, args.length, 0, 1);
        }
    }

    @JRubyMethod(name = "hex", rest = true)
    public static IRubyObject hex(ThreadContext context, IRubyObject self, IRubyObject[] args) {
        switch (args.length) {
            case 0: return hex(context, self);
            case 1: return hex(context, self, args[0]);
            default: throw Errors.arity(context, args.length, 0, 1);
        }
    }

    @JRubyMethod(name = "base64", rest = true)
    public static IRubyObject base64(ThreadContext context, IRubyObject self, IRubyObject[] args) {
        switch (args.length) {
            case 0: return base64(context, self);
            case 1: return base64(context, self, args[0]);
            default: throw Errors.arity(context, args.length, 0, 1);
        }
    }

    @JRubyMethod(name = "urlsafe_base64", rest = true)
    public static IRubyObject urlsafe_base64(ThreadContext context, IRubyObject self, IRubyObject[] args) {
        switch (args.length) {
            case 0: return urlsafe_base64(context, self);
            case 1: return urlsafe_base64(context, self, args[0]);
            case 2: return urlsafe_base64(context, self, args[0], args[1]);
            default: throw Errors.arity(context, args.length, 0, 2);
        }
    }

    @JRubyMethod(name = {"uuid", "uuid_v4"}, rest = true)
    public static IRubyObject uuid(ThreadContext context, IRubyObject self, IRubyObject[] args) {
        switch (args.length) {
            case 0: return uuid(context, self);
            default: throw Errors.arity(context, args.length, 0, 0);
        }
    }

    @JRubyMethod(name = {"random_number", "rand"}, rest = true)
    public static IRubyObject random_number(ThreadContext context, IRubyObject self, IRubyObject[] args) {
        switch (args.length) {
            case 0: return random_number(context, self);
            case 1: return random_number(context, self, args[0]);
            default: throw Errors.arity(context, args.length, 0, 1);
        }
    }

    static byte[] randomBytes(ThreadContext context, Call call, int length) {
        byte[] out = ByteCount.allocate(context, length);
        try {
            call.generator().nextBytes(out, 0, length);
        } catch (CpuRandomFailure e) {
            throw Errors.hardware(context, e);
        }
        return out;
    }

    private static IRubyObject encoded(ThreadContext context, Call call, Base64.Encoder encoder, IRubyObject n) {
        int length = length(context, n);
        if (length > ByteCount.MAX / 4 * 3 - 3) throw ByteCount.tooLarge(context);
        byte[] raw = randomBytes(context, call, length);
        try {
            return Strings.ascii(context.runtime, encoder.encode(raw));
        } catch (OutOfMemoryError e) {
            throw ByteCount.tooLarge(context);
        } finally {
            java.util.Arrays.fill(raw, (byte) 0);
        }
    }

    /** nil means 16 bytes; otherwise an Integer count. */
    private static int length(ThreadContext context, IRubyObject n) {
        return n.isNil() ? DEFAULT_LENGTH : ByteCount.of(context, n);
    }

    private static IRubyObject callSuper(ThreadContext context, IRubyObject self, String name, IRubyObject arg) {
        return Super.call(context, withStockFile(context, self), PATH, name, arg);
    }

    /**
     * Arguments that are not Integers go to stock's methods, for their exact
     * conversions and errors: {@code bytes} and {@code gen_random} are
     * stock's securerandom.rb's, which lib/fast_random.rb does not load
     * (see there), so it is loaded now (once; past RubyGems, as
     * random/formatter).
     */
    private static IRubyObject withStockFile(ThreadContext context, IRubyObject self) {
        context.runtime.getLoadService().require("securerandom");
        return self;
    }
}
