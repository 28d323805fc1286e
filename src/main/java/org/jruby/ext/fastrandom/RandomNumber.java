package org.jruby.ext.fastrandom;

import java.math.BigInteger;

import org.jruby.Ruby;
import org.jruby.RubyBignum;
import org.jruby.RubyFixnum;
import org.jruby.RubyFloat;
import org.jruby.RubyInteger;
import org.jruby.RubyNumeric;
import org.jruby.RubyRange;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

import fastrandom.random.BufferedRandom;

/**
 * {@code Random::Formatter#random_number} (and {@code #rand}) with MRI's
 * semantics (random.c, rand_random_number): Integer, Float and Range limits,
 * a Float in [0, 1) for nil, zero, negative limits and empty ranges,
 * Errno::EDOM for non-finite or endless limits, ArgumentError otherwise.
 * Integers are drawn by rejection over the exact bit length, so every value
 * in range is reachable and there is no modulo bias, for Bignums too.
 */
final class RandomNumber {
    private RandomNumber() {}

    static IRubyObject random(ThreadContext context, BufferedRandom random) {
        return RubyFloat.newFloat(context.runtime, random.nextDouble());
    }

    static IRubyObject random(ThreadContext context, BufferedRandom random, IRubyObject limit) {
        IRubyObject value = limited(context, random, limit);
        if (value == null) return random(context, random);
        return value;
    }

    /** rand_random: null where MRI returns nil (caller falls back to a Float in [0, 1)). */
    private static IRubyObject limited(ThreadContext context, BufferedRandom random, IRubyObject limit) {
        Ruby runtime = context.runtime;
        if (limit.isNil()) return null;
        if (!(limit instanceof RubyFloat)) {
            IRubyObject integer = checkToInteger(context, limit);
            if (integer != null) return belowInteger(context, random, integer);
        }
        Double max = checkToFloat(context, limit);
        if (max != null) {
            double m = finite(context, max);
            if (m < 0.0) return null;
            double r = random.nextDouble();
            return RubyFloat.newFloat(runtime, m > 0.0 ? r * m : r);
        }
        if (limit instanceof RubyRange) return inRange(context, random, (RubyRange) limit);
        throw runtime.newArgumentError("invalid argument - " + limit.asString());
    }

    /** rand_int, restrictive: [0, max) for max > 0, null for zero or negative. */
    private static IRubyObject belowInteger(ThreadContext context, BufferedRandom random, IRubyObject max) {
        if (max instanceof RubyFixnum) {
            long bound = ((RubyFixnum) max).getLongValue();
            if (bound <= 0) return null;
            return RubyFixnum.newFixnum(context.runtime, random.nextLong(bound));
        }
        BigInteger bound = ((RubyBignum) max).getValue();
        if (bound.signum() <= 0) return null;
        return RubyBignum.bignorm(context.runtime, belowBig(random, bound));
    }

    /** rand_range. */
    private static IRubyObject inRange(ThreadContext context, BufferedRandom random, RubyRange range) {
        Ruby runtime = context.runtime;
        IRubyObject begin = range.begin(context);
        IRubyObject end = range.end(context);
        boolean exclusive = range.isExcludeEnd();
        if (begin.isNil() || end.isNil()) throw Errors.domain(context);
        if (!end.respondsTo("-")) throw runtime.newArgumentError("invalid argument - " + range.asString());
        IRubyObject span = end.callMethod(context, "-", begin);

        IRubyObject offset = null;
        IRubyObject spanInteger = span instanceof RubyFloat ? null : checkToInteger(context, span);
        if (spanInteger != null) {
            offset = integerOffset(context, random, spanInteger, exclusive);
        } else {
            Double spanFloat = checkToFloat(context, span);
            if (spanFloat != null) {
                double max = spanFloat;
                if (Double.isInfinite(max)) {
                    // The span overflows a double: draw around the midpoint at half scale, as MRI does;
                    // an empty range (end below begin) gives nil there too.
                    double min = finite(context, toFloat(context, begin)) / 2.0;
                    double half = finite(context, toFloat(context, end)) / 2.0;
                    if (half - min <= 0.0) return null;
                    double mid = half + min;
                    double r = exclusive ? random.nextDouble() : random.nextDoubleInclusive();
                    return RubyFloat.newFloat(runtime, (r - 0.5) * (half - min) * 2 + mid);
                }
                if (Double.isNaN(max)) throw Errors.domain(context);
                if (max > 0.0) {
                    double r = exclusive ? random.nextDouble() : random.nextDoubleInclusive();
                    offset = RubyFloat.newFloat(runtime, r * max);
                } else if (max == 0.0 && !exclusive) {
                    offset = RubyFloat.newFloat(runtime, 0.0);
                }
            }
        }
        if (offset == null) return null;
        if (begin instanceof RubyFixnum && offset instanceof RubyFixnum) {
            long b = ((RubyFixnum) begin).getLongValue();
            long o = ((RubyFixnum) offset).getLongValue();
            long sum = b + o;
            if (((b ^ sum) & (o ^ sum)) >= 0) return RubyFixnum.newFixnum(runtime, sum);
        }
        if (offset instanceof RubyFloat) {
            Double b = checkToFloat(context, begin);
            if (b != null) return RubyFloat.newFloat(runtime, ((RubyFloat) offset).getValue() + b);
        }
        return begin.callMethod(context, "+", offset);
    }

    /** A uniform Integer in [0, span] (or [0, span) when exclusive); null for an empty range. */
    private static IRubyObject integerOffset(ThreadContext context, BufferedRandom random, IRubyObject span, boolean exclusive) {
        if (span instanceof RubyFixnum) {
            long spanValue = ((RubyFixnum) span).getLongValue();
            if (spanValue < 0) return null; // before subtracting: Long.MIN_VALUE - 1 would wrap around
            long max = spanValue - (exclusive ? 1 : 0);
            if (max < 0) return null;
            if (max == Long.MAX_VALUE) return RubyFixnum.newFixnum(context.runtime, random.nextLong() >>> 1);
            return RubyFixnum.newFixnum(context.runtime, random.nextLong(max + 1));
        }
        BigInteger max = ((RubyBignum) span).getValue();
        if (exclusive) max = max.subtract(BigInteger.ONE);
        if (max.signum() < 0) return null;
        return RubyBignum.bignorm(context.runtime, belowBig(random, max.add(BigInteger.ONE)));
    }

    /** A uniform BigInteger in [0, bound) for bound > 0, by rejection over bound's bit length. */
    static BigInteger belowBig(BufferedRandom random, BigInteger bound) {
        int bits = bound.subtract(BigInteger.ONE).bitLength();
        if (bits == 0) return BigInteger.ZERO;
        byte[] bytes = new byte[(bits + 7) / 8];
        int topMask = 0xff >>> (bytes.length * 8 - bits);
        BigInteger candidate;
        do {
            random.nextBytes(bytes, 0, bytes.length);
            bytes[0] &= (byte) topMask;
            candidate = new BigInteger(1, bytes);
        } while (candidate.compareTo(bound) >= 0);
        java.util.Arrays.fill(bytes, (byte) 0);
        return candidate;
    }

    /** rb_check_to_int: the Integer itself, or to_int's result if it is an Integer, else null. */
    private static IRubyObject checkToInteger(ThreadContext context, IRubyObject value) {
        if (value instanceof RubyFixnum || value instanceof RubyBignum) return value;
        if (!value.respondsTo("to_int")) return null;
        IRubyObject converted = value.callMethod(context, "to_int");
        return converted instanceof RubyInteger ? converted : null;
    }

    /** rb_check_to_float: a Float's value, a Numeric's to_f, else null. */
    private static Double checkToFloat(ThreadContext context, IRubyObject value) {
        if (value instanceof RubyFloat) return ((RubyFloat) value).getValue();
        if (!(value instanceof RubyNumeric)) return null;
        IRubyObject converted = value.callMethod(context, "to_f");
        return converted instanceof RubyFloat ? ((RubyFloat) converted).getValue() : null;
    }

    private static double toFloat(ThreadContext context, IRubyObject value) {
        Double d = checkToFloat(context, value);
        if (d == null) throw context.runtime.newTypeError("can't convert " + value.getMetaClass().getName() + " into Float");
        return d;
    }

    /** float_value: Errno::EDOM for NaN and infinities. */
    private static double finite(ThreadContext context, double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) throw Errors.domain(context);
        return value;
    }
}
