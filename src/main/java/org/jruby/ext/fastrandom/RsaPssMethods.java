package org.jruby.ext.fastrandom;

import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;

import java.util.Collections;
import java.util.Map;
import java.util.Set;

import org.jruby.Ruby;
import org.jruby.RubyFixnum;
import org.jruby.RubyHash;
import org.jruby.RubyModule;
import org.jruby.RubyString;
import org.jruby.RubySymbol;
import org.jruby.anno.JRubyMethod;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

import fastrandom.random.GeneratorSecureRandom;
import fastrandom.rsa.RsaEngines;
import fastrandom.jca.PKeyAccess;
import fastrandom.jca.ProviderHook;
import fastrandom.rsa.jca.PssSigning;

/**
 * Methods of {@code OpenSSL::PKey::RSA}, put in place of jruby-openssl's own
 * when openssl is loaded ({@link #install}): the PSS forms of its signing methods ({@code sign_pss}, {@code verify_pss},
 * and {@code sign}, {@code verify}, {@code sign_raw}, {@code verify_raw} with
 * {@code "rsa_padding_mode" => "pss"}), which jruby-openssl computes with a
 * BouncyCastle engine of its own that no provider reaches.
 *
 * <p>A call is taken only when the selected RSA engine is a fast one and its
 * arguments are of the forms below, read as jruby-openssl reads them (the
 * same salt lengths and defaults); every other call, and every call on the
 * {@code :java} engine, goes to jruby-openssl's own method, so conversions,
 * errors and odd forms stay exactly stock.
 *
 * <p>They replace jruby-openssl's methods in place, as an alias chain
 * would, rather than being prepended: so a method redefined on the class
 * afterwards replaces ours and sees every call, a polyfill that aliases the
 * method and wraps it calls ours through its alias, and a module prepended
 * to the class (before or after) wraps ours, all as on stock JRuby. (Behind a
 * prepended module, an alias chain would call itself forever.) PSS signatures are randomized,
 * so "the same" means the same salt length, digests and verdicts.
 *
 * <ul>
 *   <li>digest: a String or an {@code OpenSSL::Digest} naming SHA1, SHA256,
 *       SHA384 or SHA512 (jruby-openssl's PSS digests);</li>
 *   <li>{@code sign_pss}/{@code verify_pss} keywords: {@code salt_length:}
 *       {@code :digest}, {@code :max}, {@code :auto} or an Integer from 0 to
 *       the maximum, {@code mgf1_hash:} a String;</li>
 *   <li>options Hash: String keys {@code rsa_padding_mode} ({@code "pss"}),
 *       {@code rsa_pss_saltlen} (0 to the maximum, as Integer or digits),
 *       {@code rsa_mgf1_md} (a String).</li>
 * </ul>
 */
public final class RsaPssMethods {
    private static final String[] NAMES = {"sign_pss", "verify_pss", "sign", "verify", "sign_raw", "verify_raw"};

    /** How a missing salt length defaults, per method (jruby-openssl's choices). */
    private enum DefaultSalt { DIGEST, MAX }

    private RsaPssMethods() {}

    /**
     * Puts these methods on {@code rsaClass} (OpenSSL::PKey::RSA) in place of
     * jruby-openssl's, each where the loaded release defines it on the class
     * (0.15.6 and later; before, RSA has none of them and PKey#sign takes no
     * options, which fast_random then does not add). Done once; openssl must
     * be loaded. Returns the names replaced.
     */
    static Set<String> install(RubyModule rsaClass) {
        return StockMethods.install(rsaClass, RsaPssMethods.class, NAMES, Collections.emptySet());
    }

    /** Calls jruby-openssl's own {@code name}, the method ours replaced. */
    private static IRubyObject stock(ThreadContext context, IRubyObject self, String name, IRubyObject[] args) {
        RubyModule rsaClass = context.runtime.getClassFromPath("OpenSSL::PKey::RSA");
        return StockMethods.kept(context, rsaClass, name).call(context, self, rsaClass, name, args);
    }

    /** {@code sign_pss(digest, data, salt_length:, mgf1_hash:)}. */
    @JRubyMethod(name = "sign_pss", rest = true)
    public static IRubyObject sign_pss(ThreadContext context, IRubyObject self, IRubyObject[] args) {
        RSAPrivateCrtKey key = privateKey(self);
        Options options = key == null || args.length < 2 || args.length > 3 ? null
                : Options.fromKeywords(context, args[0], args.length == 3 ? args[2] : context.nil, DefaultSalt.MAX, false, key.getModulus().bitLength());
        if (options == null || !(args[1] instanceof RubyString)) return stock(context, self, "sign_pss", args);
        return sign(context, key, options, (RubyString) args[1], false);
    }

    /** {@code verify_pss(digest, signature, data, salt_length:, mgf1_hash:)}. */
    @JRubyMethod(name = "verify_pss", rest = true)
    public static IRubyObject verify_pss(ThreadContext context, IRubyObject self, IRubyObject[] args) {
        RSAPublicKey key = publicKey(self);
        Options options = key == null || args.length < 3 || args.length > 4 ? null
                : Options.fromKeywords(context, args[0], args.length == 4 ? args[3] : context.nil, DefaultSalt.DIGEST, true, key.getModulus().bitLength());
        if (options == null || !(args[1] instanceof RubyString) || !(args[2] instanceof RubyString)) {
            return stock(context, self, "verify_pss", args);
        }
        return verify(context, key, options, (RubyString) args[1], (RubyString) args[2], false);
    }

    /** {@code sign(digest, data, options)} with PSS options; other calls are stock (PKCS#1 v1.5, already fast). */
    @JRubyMethod(name = "sign", rest = true)
    public static IRubyObject sign(ThreadContext context, IRubyObject self, IRubyObject[] args) {
        RSAPrivateCrtKey key = args.length == 3 && isPss(args[2]) ? privateKey(self) : null;
        Options options = key == null ? null : Options.fromHash(context, args[0], args[2], DefaultSalt.MAX, key.getModulus().bitLength());
        if (options == null || !(args[1] instanceof RubyString)) return stock(context, self, "sign", args);
        return sign(context, key, options, (RubyString) args[1], false);
    }

    /** {@code verify(digest, signature, data, options)} with PSS options. */
    @JRubyMethod(name = "verify", rest = true)
    public static IRubyObject verify(ThreadContext context, IRubyObject self, IRubyObject[] args) {
        RSAPublicKey key = args.length == 4 && isPss(args[3]) ? publicKey(self) : null;
        Options options = key == null ? null : Options.fromHash(context, args[0], args[3], DefaultSalt.DIGEST, key.getModulus().bitLength());
        if (options == null || !(args[1] instanceof RubyString) || !(args[2] instanceof RubyString)) {
            return stock(context, self, "verify", args);
        }
        return verify(context, key, options, (RubyString) args[1], (RubyString) args[2], false);
    }

    /** {@code sign_raw(digest, hash, options)} with PSS options. */
    @JRubyMethod(name = "sign_raw", rest = true)
    public static IRubyObject sign_raw(ThreadContext context, IRubyObject self, IRubyObject[] args) {
        RSAPrivateCrtKey key = args.length == 3 && isPss(args[2]) ? privateKey(self) : null;
        Options options = key == null ? null : Options.fromHash(context, args[0], args[2], DefaultSalt.DIGEST, key.getModulus().bitLength());
        if (options == null || !isHashOf(args[1], options)) return stock(context, self, "sign_raw", args);
        return sign(context, key, options, (RubyString) args[1], true);
    }

    /** {@code verify_raw(digest, signature, hash, options)} with PSS options. */
    @JRubyMethod(name = "verify_raw", rest = true)
    public static IRubyObject verify_raw(ThreadContext context, IRubyObject self, IRubyObject[] args) {
        RSAPublicKey key = args.length == 4 && isPss(args[3]) ? publicKey(self) : null;
        Options options = key == null ? null : Options.fromHash(context, args[0], args[3], DefaultSalt.DIGEST, key.getModulus().bitLength());
        if (options == null || !(args[1] instanceof RubyString) || !isHashOf(args[2], options)) {
            return stock(context, self, "verify_raw", args);
        }
        return verify(context, key, options, (RubyString) args[1], (RubyString) args[2], true);
    }

    private static IRubyObject sign(ThreadContext context, RSAPrivateCrtKey key, Options options, RubyString input, boolean prehashed) {
        try {
            byte[] signature = PssSigning.sign(key, options.digest, options.mgf1Digest, options.saltLength,
                    input.getBytes(), prehashed, GeneratorSecureRandom.INSTANCE);
            return Strings.binary(context.runtime, signature);
        } catch (RuntimeException e) {
            throw Errors.pkeyError(context, e.getMessage() == null ? e.toString() : e.getMessage());
        }
    }

    private static IRubyObject verify(ThreadContext context, RSAPublicKey key, Options options, RubyString signature,
                                      RubyString input, boolean prehashed) {
        try {
            return context.runtime.newBoolean(PssSigning.verify(key, options.digest, options.mgf1Digest, options.saltLength,
                    input.getBytes(), prehashed, signature.getBytes()));
        } catch (RuntimeException e) {
            // A signature that is no number below the modulus, say: it does not verify.
            return context.runtime.getFalse();
        }
    }

    private static RSAPrivateCrtKey privateKey(IRubyObject self) {
        if (!OpenSSLHook.serving(self.getRuntime(), ProviderHook.Capability.RSA) || RsaEngines.current() == null) {
            return null; // uninstalled or :java: stock throughout
        }
        PrivateKey key = PKeyAccess.privateKey(self);
        if (!(key instanceof RSAPrivateCrtKey)) return null;
        RSAPrivateCrtKey crt = (RSAPrivateCrtKey) key;
        return crt.getPrimeP() != null && crt.getPrimeP().signum() > 0 ? crt : null;
    }

    private static RSAPublicKey publicKey(IRubyObject self) {
        if (!OpenSSLHook.serving(self.getRuntime(), ProviderHook.Capability.RSA) || RsaEngines.current() == null) return null;
        PublicKey key = PKeyAccess.publicKey(self);
        return key instanceof RSAPublicKey ? (RSAPublicKey) key : null;
    }

    /** Whether {@code options} is a Hash asking for PSS padding ({@code "rsa_padding_mode" => "pss"}). */
    private static boolean isPss(IRubyObject options) {
        if (!(options instanceof RubyHash)) return false;
        IRubyObject mode = ((RubyHash) options).fastARef(options.getRuntime().newString("rsa_padding_mode"));
        return mode instanceof RubyString && "pss".equalsIgnoreCase(mode.asJavaString());
    }

    /** A hash value as long as the digest's: what the raw forms sign. */
    private static boolean isHashOf(IRubyObject hash, Options options) {
        return hash instanceof RubyString && ((RubyString) hash).getByteList().realSize() == options.hashLength;
    }

    /** A PSS call's parameters, or null when the call is not of a form taken here. */
    private static final class Options {
        final String digest;
        final String mgf1Digest;
        final int saltLength; // or PssSigning.RECOVER_SALT_LENGTH
        final int hashLength;

        private Options(String digest, String mgf1Digest, int saltLength, int hashLength) {
            this.digest = digest;
            this.mgf1Digest = mgf1Digest;
            this.saltLength = saltLength;
            this.hashLength = hashLength;
        }

        /** From {@code salt_length:} and {@code mgf1_hash:} keywords (sign_pss, verify_pss). */
        static Options fromKeywords(ThreadContext context, IRubyObject digestArg, IRubyObject keywords,
                                    DefaultSalt defaultSalt, boolean verifying, int modulusBits) {
            Ruby runtime = context.runtime;
            String digest = digestName(context, digestArg);
            if (digest == null) return null;
            IRubyObject salt = null;
            IRubyObject mgf1 = null;
            if (!keywords.isNil()) {
                if (!(keywords instanceof RubyHash)) return null;
                RubyHash hash = (RubyHash) keywords;
                RubySymbol saltKey = runtime.newSymbol("salt_length");
                RubySymbol mgf1Key = runtime.newSymbol("mgf1_hash");
                for (Object key : hash.directKeySet()) {
                    if (key != saltKey && key != mgf1Key) return null;
                }
                salt = hash.fastARef(saltKey);
                mgf1 = hash.fastARef(mgf1Key);
            }
            String mgf1Digest = mgf1 == null || mgf1.isNil() ? digest : mgf1 instanceof RubyString ? mgf1.asJavaString() : null;
            if (mgf1Digest == null || PssSigning.digest(mgf1Digest) == null) return null;

            int hashLength = PssSigning.digest(digest).getDigestLength();
            int max = PssSigning.maxSaltLength(modulusBits, hashLength);
            int saltLength;
            if (salt == null || salt.isNil()) {
                saltLength = defaultSalt == DefaultSalt.MAX ? max : hashLength;
            } else if (salt instanceof RubySymbol) {
                switch (salt.asJavaString()) {
                    case "digest": saltLength = hashLength; break;
                    case "max": saltLength = max; break;
                    case "auto": saltLength = verifying ? PssSigning.RECOVER_SALT_LENGTH : max; break;
                    default: return null;
                }
            } else if (salt instanceof RubyFixnum) {
                long value = ((RubyFixnum) salt).getLongValue();
                if (value < 0 || value > max) return null;
                saltLength = (int) value;
            } else {
                return null;
            }
            if (max < 0 || saltLength > max) return null;
            return new Options(digest, mgf1Digest, saltLength, hashLength);
        }

        /** From an options Hash with {@code "rsa_padding_mode" => "pss"} (sign, verify, sign_raw, verify_raw). */
        static Options fromHash(ThreadContext context, IRubyObject digestArg, IRubyObject options,
                                DefaultSalt defaultSalt, int modulusBits) {
            String digest = digestName(context, digestArg);
            if (digest == null) return null;
            RubyHash hash = (RubyHash) options;
            IRubyObject salt = null;
            IRubyObject mgf1 = null;
            for (Object key : hash.directKeySet()) {
                if (!(key instanceof RubyString)) return null;
                switch (key.toString()) {
                    case "rsa_padding_mode": break;
                    case "rsa_pss_saltlen": salt = hash.fastARef((IRubyObject) key); break;
                    case "rsa_mgf1_md": mgf1 = hash.fastARef((IRubyObject) key); break;
                    default: return null;
                }
            }
            String mgf1Digest = mgf1 == null ? digest : mgf1 instanceof RubyString ? mgf1.asJavaString() : null;
            if (mgf1Digest == null || PssSigning.digest(mgf1Digest) == null) return null;

            int hashLength = PssSigning.digest(digest).getDigestLength();
            int max = PssSigning.maxSaltLength(modulusBits, hashLength);
            long saltLength;
            if (salt == null) {
                saltLength = defaultSalt == DefaultSalt.MAX ? max : hashLength;
            } else if (salt instanceof RubyFixnum) {
                saltLength = ((RubyFixnum) salt).getLongValue();
            } else if (salt instanceof RubyString && salt.asJavaString().matches("[0-9]{1,9}")) {
                saltLength = Long.parseLong(salt.asJavaString());
            } else {
                return null;
            }
            if (max < 0 || saltLength < 0 || saltLength > max) return null;
            return new Options(digest, mgf1Digest, (int) saltLength, hashLength);
        }

        /** The digest's name when it is a String or an OpenSSL::Digest naming a PSS digest; else null. */
        private static String digestName(ThreadContext context, IRubyObject digest) {
            String name;
            if (digest instanceof RubyString) {
                name = digest.asJavaString();
            } else if (digest.getMetaClass().getRealClass().getName().equals("OpenSSL::Digest")) {
                IRubyObject value = digest.callMethod(context, "name");
                if (!(value instanceof RubyString)) return null;
                name = value.asJavaString();
            } else {
                return null;
            }
            MessageDigest known = PssSigning.digest(name);
            return known == null ? null : name;
        }
    }
}
