package org.jruby.ext.fastrandom;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import org.jruby.Ruby;
import org.jruby.RubyBignum;
import org.jruby.RubyBoolean;
import org.jruby.RubyClass;
import org.jruby.RubyFixnum;
import org.jruby.RubyFloat;
import org.jruby.RubyHash;
import org.jruby.RubyModule;
import org.jruby.RubyString;
import org.jruby.RubySymbol;
import org.jruby.anno.JRubyMethod;
import org.jruby.exceptions.JumpException;
import org.jruby.exceptions.RaiseException;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

import fastrandom.jni.LibCrypto;
import fastrandom.kdf.DigestNames;
import fastrandom.kdf.Pbkdf2;
import fastrandom.support.Diagnostics;

/**
 * PBKDF2 for jruby-openssl: {@code OpenSSL::PKCS5.pbkdf2_hmac},
 * {@code OpenSSL::PKCS5.pbkdf2_hmac_sha1} and {@code OpenSSL::KDF.pbkdf2_hmac}
 * on {@link Pbkdf2} (the JDK's intrinsified digests), in place of
 * jruby-openssl's (a loop over BouncyCastle's HMAC which, in jruby-openssl
 * 0.15.6, computes {@code dkLen} blocks where one or two are needed). They
 * replace jruby-openssl's methods in place ({@link StockMethods}).
 *
 * <p>Every call is MRI's {@code KDF.pbkdf2_hmac} (MRI's PKCS5 methods are
 * Ruby on top of it): the arguments are checked and converted here as its
 * C code does, in its order (password and salt to_str, iteration count and
 * length as NUM2INT, the digest, a negative length, an iteration count
 * below 1), with MRI's exception classes and messages. SHA-1 and SHA-2 are
 * derived here, for any length; only other digests, with the converted
 * arguments, go to jruby-openssl's own method, and a key of length 0 is
 * {@code ""}. So no call gets stock's key of zeros (an iteration count
 * below 1), its Java exceptions, or the key of its {@code pbkdf2_hmac_sha1},
 * which reads a password as characters and keeps the low byte of each. If
 * the JDK's digest fails, the call goes to jruby-openssl's
 * {@code pbkdf2_hmac}, with one warning.
 */
public final class KdfMethods {
    /** KDF.pbkdf2_hmac's keywords, in the order MRI reads and names them. */
    private static final String[] KEYWORDS = {"salt", "iterations", "length", "hash"};
    /** Where NUM2INT takes a Float (below 2**63, at least -2**63), as MRI's rb_num2long tests it. */
    private static final double LONG_LIMIT = 0x1p63;

    private KdfMethods() {}

    /**
     * Puts these methods on OpenSSL::PKCS5 and OpenSSL::KDF in place of
     * jruby-openssl's, once, both or neither; openssl must be loaded and
     * have them ({@link JRubyOpenSsl#require}).
     */
    static void install(Ruby runtime) {
        RubyModule pkcs5 = runtime.getClassFromPath("OpenSSL::PKCS5").getSingletonClass();
        RubyModule kdf = runtime.getClassFromPath("OpenSSL::KDF").getSingletonClass();
        StockMethods.install(pkcs5, Pkcs5.class, new String[] {"pbkdf2_hmac", "pbkdf2_hmac_sha1"}, Collections.emptySet());
        try {
            StockMethods.install(kdf, Kdf.class, new String[] {"pbkdf2_hmac"}, Collections.emptySet());
        } catch (RuntimeException | LinkageError e) {
            StockMethods.uninstall(pkcs5);
            throw e;
        }
    }

    /** Gives OpenSSL::PKCS5 and OpenSSL::KDF jruby-openssl's own methods back. */
    static void uninstall(Ruby runtime) {
        StockMethods.uninstall(runtime.getClassFromPath("OpenSSL::PKCS5").getSingletonClass());
        StockMethods.uninstall(runtime.getClassFromPath("OpenSSL::KDF").getSingletonClass());
    }

    /** Calls jruby-openssl's own {@code name} on {@code module}, the method ours replaced. */
    private static IRubyObject stock(ThreadContext context, IRubyObject module, String name, IRubyObject[] args) {
        RubyModule singleton = module.getSingletonClass();
        return StockMethods.kept(context, singleton, name).call(context, module, singleton, name, args);
    }

    /** A call of jruby-openssl's method, with arguments converted and checked here. */
    private interface StockCall {
        IRubyObject derive(RubyString password, RubyString salt, int iterations, int length, IRubyObject digest);
    }

    /** {@code OpenSSL::PKCS5}'s methods. */
    public static final class Pkcs5 {
        private Pkcs5() {}

        /** {@code pbkdf2_hmac(pass, salt, iter, keylen, digest)}. */
        @JRubyMethod(name = "pbkdf2_hmac", rest = true)
        public static IRubyObject pbkdf2_hmac(ThreadContext context, IRubyObject self, IRubyObject[] args) {
            if (args.length != 5) throw Errors.arity(context, args.length, 5, 5);
            return derive(context, args[0], args[1], args[2], args[3], args[4], stockCall(context, self));
        }

        /** {@code pbkdf2_hmac_sha1(pass, salt, iter, keylen)}: MRI's {@code pbkdf2_hmac(..., "sha1")}. */
        @JRubyMethod(name = "pbkdf2_hmac_sha1", rest = true)
        public static IRubyObject pbkdf2_hmac_sha1(ThreadContext context, IRubyObject self, IRubyObject[] args) {
            if (args.length != 4) throw Errors.arity(context, args.length, 4, 4);
            return derive(context, args[0], args[1], args[2], args[3], RubyString.newString(context.runtime, "sha1"),
                    stockCall(context, self));
        }

        /** Stock's {@code pbkdf2_hmac}, also for SHA-1: stock's {@code pbkdf2_hmac_sha1} keeps a character's low byte only. */
        private static StockCall stockCall(ThreadContext context, IRubyObject self) {
            return (password, salt, iterations, length, digest) -> stock(context, self, "pbkdf2_hmac", new IRubyObject[] {
                password, salt, context.runtime.newFixnum(iterations), context.runtime.newFixnum(length), digest});
        }
    }

    /** {@code OpenSSL::KDF}'s methods. */
    public static final class Kdf {
        private Kdf() {}

        /**
         * {@code pbkdf2_hmac(pass, salt:, iterations:, length:, hash:)}. A
         * missing or unknown keyword raises MRI's ArgumentError (stock lets
         * a Java NullPointerException through for a missing one). A Hash
         * passed as such ({@code {"salt" => ...}}, braces) is a second
         * argument, as on MRI: "wrong number of arguments (given 2,
         * expected 1)".
         */
        @JRubyMethod(name = "pbkdf2_hmac", rest = true, keywords = true)
        public static IRubyObject pbkdf2_hmac(ThreadContext context, IRubyObject self, IRubyObject[] args) {
            boolean keywordCall = (ThreadContext.resetCallInfo(context) & ThreadContext.CALL_KEYWORD) != 0;
            IRubyObject last = args.length > 0 ? args[args.length - 1] : null;
            // Keywords, or a Hash a ruby2_keywords method passed on (its caller's keywords, as MRI takes them).
            boolean keywords = last instanceof RubyHash && (keywordCall || ((RubyHash) last).isRuby2KeywordHash());
            int positional = keywords ? args.length - 1 : args.length;
            if (positional != 1) throw Errors.arity(context, positional, 1, 1);
            RubyHash options = keywords ? (RubyHash) args[1] : RubyHash.newHash(context.runtime);
            checkKeywords(context, options);
            StockCall stock = (password, salt, iterations, length, digest) -> {
                RubyHash converted = RubyHash.newHash(context.runtime);
                converted.fastASet(symbol(context, "salt"), salt);
                converted.fastASet(symbol(context, "iterations"), context.runtime.newFixnum(iterations));
                converted.fastASet(symbol(context, "length"), context.runtime.newFixnum(length));
                converted.fastASet(symbol(context, "hash"), digest);
                return stock(context, self, "pbkdf2_hmac", new IRubyObject[] {password, converted});
            };
            return derive(context, args[0], option(context, options, "salt"), option(context, options, "iterations"),
                    option(context, options, "length"), option(context, options, "hash"), stock);
        }

        /** MRI's ArgumentError for missing keywords, then for unknown ones (any key but the four, by inspect). */
        private static void checkKeywords(ThreadContext context, RubyHash options) {
            List<String> missing = new ArrayList<>();
            for (String name : KEYWORDS) {
                if (!options.containsKey(symbol(context, name))) missing.add(":" + name);
            }
            if (!missing.isEmpty()) {
                throw context.runtime.newArgumentError((missing.size() == 1 ? "missing keyword: " : "missing keywords: ")
                        + String.join(", ", missing));
            }
            if (options.size() > KEYWORDS.length) {
                List<String> unknown = new ArrayList<>();
                for (IRubyObject name : options.keys().toJavaArrayMaybeUnsafe()) {
                    if (!(name instanceof RubySymbol) || !Arrays.asList(KEYWORDS).contains(name.toString())) {
                        unknown.add(name.callMethod(context, "inspect").toString());
                    }
                }
                throw context.runtime.newArgumentError((unknown.size() == 1 ? "unknown keyword: " : "unknown keywords: ")
                        + String.join(", ", unknown));
            }
        }

        private static IRubyObject option(ThreadContext context, RubyHash options, String name) {
            IRubyObject value = options.fastARef(symbol(context, name));
            return value != null ? value : context.nil;
        }

        private static RubySymbol symbol(ThreadContext context, String name) {
            return RubySymbol.newSymbol(context.runtime, name);
        }
    }

    /**
     * The derived key as a binary String: MRI's {@code KDF.pbkdf2_hmac}
     * (ossl_kdf.c), its conversions and errors in its order. SHA-1 and
     * SHA-2 are derived here; other digests go to {@code stock} once the
     * arguments are checked.
     */
    private static IRubyObject derive(ThreadContext context, IRubyObject password, IRubyObject salt, IRubyObject iterations,
                                      IRubyObject length, IRubyObject digest, StockCall stock) {
        RubyString pass = string(context, password);
        RubyString saltString = string(context, salt);
        int count = num2int(context, iterations);
        int bytes = num2int(context, length);
        DigestNames.Named named = named(context, digest);
        LibCrypto.Hash hash = named == null ? null : named.hash;
        IRubyObject stockDigest = digest;
        // MRI looks the digest up before it checks the length and count: a name it does not know fails first.
        if (digest instanceof RubyString) {
            String name = digest.toString();
            if (DigestNames.onlyStockReads(name)) throw unsupportedDigest(context, name);
            if (named != null && named.stockName != null) stockDigest = context.runtime.newString(named.stockName);
            else if (named == null && !stockHas(context, stock, digest)) throw unsupportedDigest(context, name);
        }
        if (bytes < 0) throw context.runtime.newArgumentError("negative string size (or size too big)");
        RubyClass kdfError = (RubyClass) context.runtime.getClassFromPath("OpenSSL::KDF::KDFError");
        if (count < 1) {
            throw context.runtime.newRaiseException(kdfError, count == 0 ? "PKCS5_PBKDF2_HMAC: invalid iteration count" : "PKCS5_PBKDF2_HMAC");
        }
        // OpenSSL's PBKDF2 refuses an extendable-output digest (SHAKE), whatever the length.
        if (named != null && named.extendable) throw context.runtime.newRaiseException(kdfError, "PKCS5_PBKDF2_HMAC");
        if (bytes == 0) return Strings.binary(context.runtime, new byte[0]);
        if (hash != null || (named != null && named.other != null)) {
            try {
                byte[] key = hash != null ? Pbkdf2.derive(hash, pass.getBytes(), saltString.getBytes(), count, bytes)
                        : Pbkdf2.derive(named.other, named.blockSize, pass.getBytes(), saltString.getBytes(), count, bytes);
                return Strings.binary(context.runtime, key);
            } catch (IllegalStateException e) {
                // A digest only made here (BLAKE2, MD5-SHA1): nothing else derives with it.
                if (hash == null) throw unsupportedDigest(context, digest instanceof RubyString ? digest.toString() : digest.callMethod(context, "name").toString());
                Diagnostics.warnOnce("PBKDF2 failed on the JDK's digests (" + e.getMessage() + "); such derivations run on"
                        + " jruby-openssl's code");
            } catch (OutOfMemoryError e) {
                throw ByteCount.tooLarge(context);
            }
        }
        try {
            return stock.derive(pass, saltString, count, bytes, stockDigest);
        } catch (OutOfMemoryError | NegativeArraySizeException e) {
            throw ByteCount.tooLarge(context); // stock allocates length times the digest's length, which overflows an int
        }
    }

    /**
     * Whether jruby-openssl's method derives with {@code digest}, a name we
     * do not compute: one call for a key of one byte and one iteration.
     */
    private static boolean stockHas(ThreadContext context, StockCall stock, IRubyObject digest) {
        RubyString empty = RubyString.newString(context.runtime, "");
        try {
            stock.derive(empty, empty, 1, 1, digest);
            return true;
        } catch (RaiseException e) {
            if (!context.runtime.getStandardError().isInstance(e.getException())) throw e;
            return false;
        } catch (JumpException e) {
            throw e;
        } catch (RuntimeException e) {
            return false; // stock's KDF.pbkdf2_hmac lets a Java ClassCastException through for a name it has no HMAC for
        }
    }

    /**
     * RuntimeError as MRI's ossl_evp_get_digestbyname words it; OpenSSL adds
     * its reason when the name does not parse as an object name either (a
     * dotted OID parses).
     */
    private static RaiseException unsupportedDigest(ThreadContext context, String name) {
        String reason = name.matches("[0-9]+(\\.[0-9]+)+") ? "" : ": unknown object name";
        return context.runtime.newRuntimeError("Unsupported digest algorithm (" + name + ")." + reason);
    }

    /** StringValue: a String, or what to_str gives, with MRI's TypeErrors. */
    private static RubyString string(ThreadContext context, IRubyObject value) {
        return (RubyString) convert(context, value, context.runtime.getString(), "to_str");
    }

    /**
     * NUM2INT: Integers, Floats truncated, anything else through to_int;
     * nil, out of range and no conversion raise what MRI raises, worded as
     * the Ruby this JRuby implements words them.
     */
    private static int num2int(ThreadContext context, IRubyObject value) {
        long n = num2long(context, value);
        if (n != (int) n) {
            throw context.runtime.newRangeError("integer " + n + " too " + (n < 0 ? "small" : "big") + " to convert to "
                    + Messages.quote(context, "int"));
        }
        return (int) n;
    }

    private static long num2long(ThreadContext context, IRubyObject value) {
        if (value instanceof RubyFixnum) return ((RubyFixnum) value).getLongValue();
        if (value instanceof RubyFloat) {
            double d = ((RubyFloat) value).getDoubleValue();
            if (d < LONG_LIMIT && d >= -LONG_LIMIT) return (long) d;
            throw context.runtime.newRangeError("float " + outOfRange(context, (RubyFloat) value) + " out of range of integer");
        }
        if (value instanceof RubyBignum) {
            BigInteger big = ((RubyBignum) value).getValue();
            if (big.bitLength() < 64) return big.longValue();
            throw context.runtime.newRangeError("bignum too big to convert into " + Messages.quote(context, "long"));
        }
        if (value.isNil()) throw Errors.nilToInteger(context);
        return num2long(context, convert(context, value, context.runtime.getInteger(), "to_int"));
    }

    /**
     * {@code value} if it is a {@code type}, else what its {@code method}
     * gives, with the TypeErrors of MRI's rb_convert_type.
     */
    private static IRubyObject convert(ThreadContext context, IRubyObject value, RubyClass type, String method) {
        if (type.isInstance(value)) return value;
        if (!value.isNil() && !(value instanceof RubyBoolean) && value.respondsTo(method)) {
            IRubyObject converted = value.callMethod(context, method);
            if (type.isInstance(converted)) return converted;
            String name = value.getMetaClass().getRealClass().getName();
            throw context.runtime.newTypeError("can't convert " + name + " to " + type.getName() + " (" + name + "#" + method
                    + " gives " + converted.getMetaClass().getRealClass().getName() + ")");
        }
        throw context.runtime.newTypeError("no implicit conversion of " + typeName(value) + " into " + type.getName());
    }

    /** A value's class as MRI's type errors name it: nil, true and false by their value. */
    private static String typeName(IRubyObject value) {
        if (value.isNil()) return "nil";
        if (value instanceof RubyBoolean) return value.isTrue() ? "true" : "false";
        return value.getMetaClass().getRealClass().getName();
    }

    /**
     * A Float beyond a long as MRI prints it in the RangeError: C's
     * {@code %-.10g}, here Ruby's own format (NaN, Inf).
     */
    private static String outOfRange(ThreadContext context, RubyFloat value) {
        return context.runtime.newString("%-.10g").callMethod(context, "%", value).toString();
    }

    /**
     * What a digest argument names ({@link DigestNames}: OpenSSL's names,
     * aliases and OIDs, any case), or null for a name not known there. An
     * OpenSSL::Digest counts by the name it was made with, as MRI takes its
     * algorithm: OpenSSL::Digest's own {@code name}, whatever a subclass
     * says. Anything but a String or an OpenSSL::Digest raises MRI's
     * TypeError, a name with a NUL byte its ArgumentError.
     */
    private static DigestNames.Named named(ThreadContext context, IRubyObject digest) {
        String name;
        RubyClass digestClass = (RubyClass) context.runtime.getClassFromPath("OpenSSL::Digest");
        if (digest instanceof RubyString) {
            if (((RubyString) digest).getByteList().indexOf(0) >= 0) {
                throw context.runtime.newArgumentError("string contains null byte");
            }
            name = digest.toString();
        } else if (digestClass.isInstance(digest)) {
            IRubyObject named = digestClass.searchMethod("name").call(context, digest, digestClass, "name");
            if (!(named instanceof RubyString)) return null;
            name = named.toString();
        } else {
            throw context.runtime.newTypeError("wrong argument type " + typeName(digest) + " (expected OpenSSL/Digest)");
        }
        return DigestNames.lookUp(name);
    }
}
