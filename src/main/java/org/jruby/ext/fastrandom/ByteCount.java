package org.jruby.ext.fastrandom;

import java.math.BigInteger;

import org.jruby.RubyBignum;
import org.jruby.RubyFixnum;
import org.jruby.RubyNumeric;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

/**
 * Turns an Integer byte count into a Java array length, raising what MRI
 * raises for the same count (Random.urandom's conversions), never letting a
 * Java OutOfMemoryError or NegativeArraySizeException through.
 */
final class ByteCount {
    /** The largest array the JVM reliably allocates. */
    static final int MAX = Integer.MAX_VALUE - 8;
    private static final BigInteger TWO_TO_64 = BigInteger.ONE.shiftLeft(64);

    private ByteCount() {}

    static boolean isInteger(IRubyObject n) {
        return n instanceof RubyFixnum || n instanceof RubyBignum;
    }

    /** {@code n} must be a Fixnum or Bignum. */
    static int of(ThreadContext context, IRubyObject n) {
        if (n instanceof RubyFixnum) {
            long count = ((RubyFixnum) n).getLongValue();
            if (count < 0) throw negative(context);
            if (count > MAX) throw tooLarge(context);
            return (int) count;
        }
        BigInteger count = ((RubyBignum) n).getValue();
        if (count.abs().compareTo(TWO_TO_64) >= 0) {
            throw context.runtime.newRangeError("bignum too big to convert into " + Messages.quote(context, "unsigned long"));
        }
        throw negative(context); // 2**63...2**64 wraps negative in MRI's conversion
    }

    /**
     * A count as MRI's NUM2INT converts it (OpenSSL::Random.random_bytes):
     * Floats truncate, to_int is honoured, RangeError beyond an int or a
     * long, ArgumentError when negative.
     */
    static int ofInt(ThreadContext context, IRubyObject n) {
        if (n instanceof RubyBignum) {
            throw context.runtime.newRangeError("bignum too big to convert into " + Messages.quote(context, "long"));
        }
        long count = RubyNumeric.num2long(n);
        if (count > Integer.MAX_VALUE || count < Integer.MIN_VALUE) {
            String direction = count > 0 ? "big" : "small";
            throw context.runtime.newRangeError("integer " + count + " too " + direction + " to convert to " + Messages.quote(context, "int"));
        }
        return of(context, RubyFixnum.newFixnum(context.runtime, count));
    }

    /** Allocates the array for a count, turning memory exhaustion into NoMemoryError. */
    static byte[] allocate(ThreadContext context, int count) {
        try {
            return new byte[count];
        } catch (OutOfMemoryError e) {
            throw tooLarge(context);
        }
    }

    private static RuntimeException negative(ThreadContext context) {
        return context.runtime.newArgumentError("negative string size (or size too big)");
    }

    /**
     * NoMemoryError, as MRI raises when it cannot allocate a string that
     * long; also what a Java OutOfMemoryError while building a result becomes.
     */
    static RuntimeException tooLarge(ThreadContext context) {
        return context.runtime.newRaiseException(context.runtime.getNoMemoryError(), "failed to allocate memory");
    }
}
