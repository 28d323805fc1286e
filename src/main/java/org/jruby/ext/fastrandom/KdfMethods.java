package org.jruby.ext.fastrandom;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.jruby.Ruby;
import org.jruby.RubyClass;
import org.jruby.RubyFixnum;
import org.jruby.RubyHash;
import org.jruby.RubyModule;
import org.jruby.RubyString;
import org.jruby.RubySymbol;
import org.jruby.anno.JRubyMethod;
import org.jruby.internal.runtime.methods.DynamicMethod;
import org.jruby.internal.runtime.methods.JavaMethod;
import org.jruby.runtime.Block;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

import fastrandom.jni.LibCrypto;
import fastrandom.kdf.Pbkdf2;
import fastrandom.support.Diagnostics;

/**
 * PBKDF2 for jruby-openssl: {@code OpenSSL::PKCS5.pbkdf2_hmac},
 * {@code OpenSSL::PKCS5.pbkdf2_hmac_sha1} and {@code OpenSSL::KDF.pbkdf2_hmac}
 * on {@link Pbkdf2} (the JDK's intrinsified digests), in place of
 * jruby-openssl's (a loop over BouncyCastle's HMAC which, in jruby-openssl
 * 0.15.6, computes {@code dkLen} blocks where one or two are needed). If
 * the JDK's digest fails, the call goes to jruby-openssl's, with one
 * warning.
 *
 * <p>A call is taken when the password and salt are Strings, the iteration
 * count and length are Integers (the length from 1 to {@link #MAX_LENGTH}),
 * and the digest is SHA-1 or SHA-2 (a name, as jruby-openssl reads it, or
 * an {@code OpenSSL::Digest}); every other call goes to jruby-openssl's own
 * method, so conversions and errors stay stock's. The bytes are stock's, and MRI's; one difference: stock's
 * {@code pbkdf2_hmac_sha1} reads a password as characters and keeps the low
 * byte of each, so a password with characters beyond Latin-1 derives another
 * key than on MRI, where ours derives MRI's. They replace jruby-openssl's
 * methods in place, as {@link RsaPssMethods} do.
 */
public final class KdfMethods {
    /** The longest key taken (longer ones go to stock): far beyond any cipher's key. */
    static final int MAX_LENGTH = 1 << 16;
    /** Where the replaced methods are kept, on each module's singleton class. */
    private static final String STOCK = "fast_random_stock_methods";

    private KdfMethods() {}

    /** Puts these methods on OpenSSL::PKCS5 and OpenSSL::KDF in place of jruby-openssl's, once; openssl must be loaded. */
    static void install(Ruby runtime) {
        replace(runtime.getClassFromPath("OpenSSL::PKCS5"), Pkcs5.class, "pbkdf2_hmac", "pbkdf2_hmac_sha1");
        replace(runtime.getClassFromPath("OpenSSL::KDF"), Kdf.class, "pbkdf2_hmac");
    }

    private static void replace(RubyModule module, Class<?> methods, String... names) {
        RubyModule singleton = module.getSingletonClass();
        RubyModule methodLocation = singleton.getMethodLocation();
        synchronized (module) {
            if (singleton.getInternalVariables().getInternalVariable(STOCK) != null) return;
            Map<String, DynamicMethod> stock = new HashMap<>();
            for (String name : names) {
                DynamicMethod method = methodLocation.getMethods().get(name);
                if (method == null) throw new IllegalStateException("jruby-openssl's " + module.getName() + " has no " + name);
                stock.put(name, method);
            }
            singleton.getInternalVariables().setInternalVariable(STOCK, Collections.unmodifiableMap(stock));
            Bindings.define(singleton, methods);
            // A method already redefined (a polyfill loaded before us) stays as it is, for every call.
            for (Map.Entry<String, DynamicMethod> entry : stock.entrySet()) {
                if (!(entry.getValue() instanceof JavaMethod)) methodLocation.addMethod(entry.getKey(), entry.getValue());
            }
        }
    }

    /** Calls jruby-openssl's own {@code name} on {@code module}, the method ours replaced. */
    @SuppressWarnings("unchecked")
    private static IRubyObject stock(ThreadContext context, IRubyObject module, String name, IRubyObject[] args) {
        RubyModule singleton = module.getSingletonClass();
        Map<String, DynamicMethod> stock = (Map<String, DynamicMethod>) singleton.getInternalVariables().getInternalVariable(STOCK);
        return stock.get(name).call(context, module, singleton, name, args, Block.NULL_BLOCK);
    }

    /** {@code OpenSSL::PKCS5}'s methods. */
    public static final class Pkcs5 {
        private Pkcs5() {}

        /** {@code pbkdf2_hmac(pass, salt, iter, keylen, digest)}. */
        @JRubyMethod(name = "pbkdf2_hmac", rest = true)
        public static IRubyObject pbkdf2_hmac(ThreadContext context, IRubyObject self, IRubyObject[] args) {
            IRubyObject key = args.length == 5 ? derive(context, args[0], args[1], args[2], args[3], hash(context, args[4])) : null;
            return key != null ? key : stock(context, self, "pbkdf2_hmac", args);
        }

        /** {@code pbkdf2_hmac_sha1(pass, salt, iter, keylen)}. */
        @JRubyMethod(name = "pbkdf2_hmac_sha1", rest = true)
        public static IRubyObject pbkdf2_hmac_sha1(ThreadContext context, IRubyObject self, IRubyObject[] args) {
            IRubyObject key = args.length == 4 ? derive(context, args[0], args[1], args[2], args[3], LibCrypto.Hash.SHA1) : null;
            return key != null ? key : stock(context, self, "pbkdf2_hmac_sha1", args);
        }
    }

    /** {@code OpenSSL::KDF}'s methods. */
    public static final class Kdf {
        private Kdf() {}

        private static final String[] KEYWORDS = {"salt", "iterations", "length", "hash"};

        /**
         * {@code pbkdf2_hmac(pass, salt:, iterations:, length:, hash:)}. A
         * missing or unknown keyword raises MRI's ArgumentError (stock lets
         * a Java NullPointerException through for a missing one).
         */
        @JRubyMethod(name = "pbkdf2_hmac", rest = true)
        public static IRubyObject pbkdf2_hmac(ThreadContext context, IRubyObject self, IRubyObject[] args) {
            IRubyObject key = null;
            if (args.length == 2 && args[1] instanceof RubyHash && symbolKeys((RubyHash) args[1])) {
                RubyHash options = (RubyHash) args[1];
                checkKeywords(context, options);
                key = derive(context, args[0], option(context, options, "salt"), option(context, options, "iterations"),
                        option(context, options, "length"), hash(context, option(context, options, "hash")));
            }
            return key != null ? key : stock(context, self, "pbkdf2_hmac", args);
        }

        private static boolean symbolKeys(RubyHash options) {
            for (IRubyObject name : options.keys().toJavaArrayMaybeUnsafe()) {
                if (!(name instanceof RubySymbol)) return false;
            }
            return true;
        }

        /** MRI's ArgumentError for missing keywords, then for unknown ones. */
        private static void checkKeywords(ThreadContext context, RubyHash options) {
            List<String> missing = new ArrayList<>();
            for (String name : KEYWORDS) {
                if (!options.containsKey(RubySymbol.newSymbol(context.runtime, name))) missing.add(":" + name);
            }
            if (!missing.isEmpty()) {
                throw context.runtime.newArgumentError((missing.size() == 1 ? "missing keyword: " : "missing keywords: ")
                        + String.join(", ", missing));
            }
            if (options.size() > KEYWORDS.length) {
                List<String> unknown = new ArrayList<>();
                for (IRubyObject name : options.keys().toJavaArrayMaybeUnsafe()) {
                    if (!Arrays.asList(KEYWORDS).contains(name.toString())) unknown.add(":" + name);
                }
                throw context.runtime.newArgumentError((unknown.size() == 1 ? "unknown keyword: " : "unknown keywords: ")
                        + String.join(", ", unknown));
            }
        }

        private static IRubyObject option(ThreadContext context, RubyHash options, String name) {
            IRubyObject value = options.fastARef(RubySymbol.newSymbol(context.runtime, name));
            return value != null ? value : context.nil;
        }
    }

    /**
     * The derived key as a binary String, or null when the call is not one
     * we take. An iteration count below 1 raises OpenSSL::KDF::KDFError and
     * a negative length ArgumentError, as on MRI (stock answers the first
     * with a key of zeros and the second with a Java exception).
     */
    private static IRubyObject derive(ThreadContext context, IRubyObject password, IRubyObject salt, IRubyObject iterations,
                                      IRubyObject length, LibCrypto.Hash hash) {
        if (hash == null || !(password instanceof RubyString) || !(salt instanceof RubyString)
                || !(iterations instanceof RubyFixnum) || !(length instanceof RubyFixnum)) {
            return null;
        }
        long count = ((RubyFixnum) iterations).getLongValue();
        long bytes = ((RubyFixnum) length).getLongValue();
        if (count > Integer.MAX_VALUE || bytes == 0 || bytes > MAX_LENGTH) return null; // stock: RangeError, "", slow
        if (count < 1) {
            RubyClass error = (RubyClass) context.runtime.getClassFromPath("OpenSSL::KDF::KDFError");
            throw context.runtime.newRaiseException(error, count == 0 ? "PKCS5_PBKDF2_HMAC: invalid iteration count" : "PKCS5_PBKDF2_HMAC");
        }
        if (bytes < 0) throw context.runtime.newArgumentError("negative string size (or size too big)");
        try {
            byte[] key = Pbkdf2.derive(hash, ((RubyString) password).getBytes(), ((RubyString) salt).getBytes(), (int) count,
                    (int) bytes);
            return RubyString.newStringNoCopy(context.runtime, key);
        } catch (IllegalStateException e) {
            Diagnostics.warnOnce("PBKDF2 failed on the JDK's digests (" + e.getMessage() + "); such derivations run on"
                    + " jruby-openssl's code");
            return null;
        }
    }

    /**
     * The hash a digest argument names, as jruby-openssl reads it (upper
     * case, "SHA-" as "SHA"; an OpenSSL::Digest by its name), when it is
     * SHA-1 or SHA-2; else null.
     */
    private static LibCrypto.Hash hash(ThreadContext context, IRubyObject digest) {
        String name;
        if (digest instanceof RubyString) {
            name = digest.toString();
        } else if (context.runtime.getClassFromPath("OpenSSL::Digest").isInstance(digest)) {
            IRubyObject named = digest.callMethod(context, "name");
            if (!(named instanceof RubyString)) return null;
            name = named.toString();
        } else {
            return null;
        }
        name = name.toUpperCase(Locale.ROOT);
        if (name.startsWith("SHA-")) name = "SHA" + name.substring(4);
        switch (name) {
            case "SHA1": return LibCrypto.Hash.SHA1;
            case "SHA224": return LibCrypto.Hash.SHA224;
            case "SHA256": return LibCrypto.Hash.SHA256;
            case "SHA384": return LibCrypto.Hash.SHA384;
            case "SHA512": return LibCrypto.Hash.SHA512;
            default: return null;
        }
    }
}
