package org.jruby.ext.fastrandom;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.Signature;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;
import java.security.spec.RSAPrivateCrtKeySpec;
import java.security.spec.RSAPublicKeySpec;
import java.util.Arrays;
import java.util.Map;

import javax.crypto.Cipher;
import javax.crypto.KeyAgreement;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

import org.jruby.Ruby;
import org.jruby.RubyHash;
import org.jruby.RubyModule;
import org.jruby.RubyString;
import org.jruby.exceptions.RaiseException;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;
import org.jruby.util.ByteList;

import fastrandom.cipher.AesCipher;
import fastrandom.ec.EcStats;
import fastrandom.jca.PKeyAccess;
import fastrandom.jca.ProviderHook;
import fastrandom.random.Backend;
import fastrandom.random.Call;
import fastrandom.random.GeneratorSecureRandom;
import fastrandom.rsa.KnownAnswerTest;
import fastrandom.rsa.RsaStats;

/**
 * The known-answer checks a capability passes, once installed, before a
 * jruby-openssl the suite has not run on keeps it ({@link JRubyOpenSsl#checkAtLoad}):
 * each calls jruby-openssl's own Ruby methods, as an application does, and
 * compares what comes back through fast_random with what jruby-openssl's
 * own BouncyCastle provider (stock's code) or its own replaced method gives
 * for the same input; randomized answers (ECDSA, PSS, RSA encryption) are
 * checked each way, one side made by BouncyCastle. A check also fails when
 * the calls did not reach fast_random (its counters did not move): then
 * the hook would report engines that serve nothing. Each returns null when
 * all holds, else what failed; they run at {@code require "openssl"}, a
 * few milliseconds each, and never on a release the suite tested.
 */
final class OpenSSLChecks {
    /** SEC 1 ECPrivateKey on P-256, up to its private value: SEQUENCE, version 1, OCTET STRING of 32. */
    private static final byte[] P256_SEC1_HEAD = {0x30, 0x77, 0x02, 0x01, 0x01, 0x04, 0x20};
    /** After the private value: [0] prime256v1's OID, [1] BIT STRING of an uncompressed point (04, then x and y). */
    private static final byte[] P256_SEC1_POINT = {(byte) 0xa0, 0x0a, 0x06, 0x08, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x03,
        0x01, 0x07, (byte) 0xa1, 0x44, 0x03, 0x42, 0x00, 0x04};
    private static final byte[] MESSAGE = "fast_random's check of jruby-openssl at load".getBytes(StandardCharsets.US_ASCII);

    private OpenSSLChecks() {}

    /** Null when {@code capability} answers right through jruby-openssl, else what failed. */
    static String run(ThreadContext context, JRubyOpenSsl.Capability capability) {
        Provider bouncyCastle = ProviderHook.bouncyCastle(context.runtime.getJRubyClassLoader());
        try {
            switch (capability) {
                case RSA: return rsa(context, bouncyCastle);
                case EC: return ec(context, bouncyCastle);
                case AES: return aes(context, bouncyCastle);
                case PBKDF2: return pbkdf2(context);
                case RANDOM: return random(context);
                default: throw new IllegalArgumentException(capability.name());
            }
        } catch (GeneralSecurityException e) {
            return "BouncyCastle could not make the expected answer: " + e;
        }
    }

    /** A Ruby exception as Ruby names it, any other as Java does. */
    static String describe(ThreadContext context, RuntimeException e) {
        if (e instanceof RaiseException) {
            IRubyObject exception = ((RaiseException) e).getException();
            return exception.getMetaClass().getName() + ": " + exception.callMethod(context, "message");
        }
        return e.toString();
    }

    /** PKCS#1 v1.5 signatures and both encryptions, each way, and PSS where the release has it. */
    private static String rsa(ThreadContext context, Provider bc) throws GeneralSecurityException {
        RSAPrivateCrtKeySpec spec = KnownAnswerTest.keySpec();
        KeyFactory factory = KeyFactory.getInstance("RSA", bc);
        PrivateKey jcaPrivate = factory.generatePrivate(spec);
        PublicKey jcaPublic = factory.generatePublic(new RSAPublicKeySpec(spec.getModulus(), spec.getPublicExponent()));
        RubyModule rsaClass = context.runtime.getClassFromPath("OpenSSL::PKey::RSA");
        IRubyObject key = rsaClass.callMethod(context, "new", string(context, jcaPrivate.getEncoded()));
        if (!(PKeyAccess.privateKey(key) instanceof RSAPrivateCrtKey)) return "RSA.new(DER) gave a key without its private part";
        long before = rsaOperations();

        Signature signer = Signature.getInstance("SHA256withRSA", bc);
        signer.initSign(jcaPrivate);
        signer.update(MESSAGE);
        byte[] expected = signer.sign();
        if (!Arrays.equals(bytes(key.callMethod(context, "sign", new IRubyObject[] {digest(context), string(context, MESSAGE)})), expected)) {
            return "RSA#sign gave another signature than BouncyCastle";
        }
        String verdicts = verdicts(context, key, "verify", expected, digest(context), null, string(context, MESSAGE));
        if (verdicts != null) return verdicts;

        Cipher padded = Cipher.getInstance("RSA/ECB/PKCS1Padding", bc);
        padded.init(Cipher.ENCRYPT_MODE, jcaPrivate);
        byte[] block = padded.doFinal(MESSAGE);
        if (!Arrays.equals(bytes(key.callMethod(context, "private_encrypt", string(context, MESSAGE))), block)) {
            return "RSA#private_encrypt gave another answer than BouncyCastle";
        }
        if (!Arrays.equals(bytes(key.callMethod(context, "public_decrypt", string(context, block))), MESSAGE)) {
            return "RSA#public_decrypt did not give back what BouncyCastle encrypted";
        }
        padded.init(Cipher.ENCRYPT_MODE, jcaPublic, GeneratorSecureRandom.OPENSSL);
        if (!Arrays.equals(bytes(key.callMethod(context, "private_decrypt", string(context, padded.doFinal(MESSAGE)))), MESSAGE)) {
            return "RSA#private_decrypt did not give back what BouncyCastle encrypted";
        }
        padded.init(Cipher.DECRYPT_MODE, jcaPrivate);
        if (!Arrays.equals(padded.doFinal(bytes(key.callMethod(context, "public_encrypt", string(context, MESSAGE)))), MESSAGE)) {
            return "BouncyCastle did not decrypt what RSA#public_encrypt gave";
        }

        if (defined(rsaClass, "sign_pss") && defined(rsaClass, "verify_pss")) {
            RubyHash options = RubyHash.newHash(context.runtime);
            options.fastASet(context.runtime.newSymbol("salt_length"), context.runtime.newSymbol("digest"));
            options.fastASet(context.runtime.newSymbol("mgf1_hash"), context.runtime.newString("SHA256"));
            Signature pss = Signature.getInstance("SHA256withRSAandMGF1", bc);
            pss.setParameter(new PSSParameterSpec("SHA-256", "MGF1", MGF1ParameterSpec.SHA256, 32, 1));
            pss.initVerify(jcaPublic);
            pss.update(MESSAGE);
            if (!pss.verify(bytes(key.callMethod(context, "sign_pss", new IRubyObject[] {digest(context), string(context, MESSAGE), options})))) {
                return "BouncyCastle did not verify what RSA#sign_pss gave";
            }
            pss.initSign(jcaPrivate, GeneratorSecureRandom.OPENSSL);
            pss.update(MESSAGE);
            verdicts = verdicts(context, key, "verify_pss", pss.sign(), digest(context), options, string(context, MESSAGE));
            if (verdicts != null) return verdicts;
        }
        return rsaOperations() > before ? null : "RSA's calls did not reach fast_random's engines";
    }

    /** ECDSA each way, by every method the release has, and ECDH, on P-256 (a curve of the native engine). */
    private static String ec(ThreadContext context, Provider bc) throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC", bc);
        generator.initialize(new ECGenParameterSpec("secp256r1"), GeneratorSecureRandom.OPENSSL);
        KeyPair pair = generator.generateKeyPair();
        KeyPair peer = generator.generateKeyPair();
        RubyModule ecClass = context.runtime.getClassFromPath("OpenSSL::PKey::EC");
        IRubyObject key = ecClass.callMethod(context, "new", string(context, sec1(pair)));
        IRubyObject peerKey = ecClass.callMethod(context, "new", string(context, peer.getPublic().getEncoded()));
        if (PKeyAccess.privateKey(key) == null || PKeyAccess.publicKey(key) == null) {
            return "EC.new(DER) gave a key without its private or public part";
        }
        long before = ecOperations();
        byte[] digest = sha256(MESSAGE);

        Signature sha256 = Signature.getInstance("SHA256withECDSA", bc);
        sha256.initVerify(pair.getPublic());
        sha256.update(MESSAGE);
        if (!sha256.verify(bytes(key.callMethod(context, "sign", new IRubyObject[] {digest(context), string(context, MESSAGE)})))) {
            return "BouncyCastle did not verify what EC#sign gave";
        }
        sha256.initSign(pair.getPrivate(), GeneratorSecureRandom.OPENSSL);
        sha256.update(MESSAGE);
        String verdicts = verdicts(context, key, "verify", sha256.sign(), digest(context), null, string(context, MESSAGE));
        if (verdicts != null) return verdicts;

        Signature raw = Signature.getInstance("NONEwithECDSA", bc);
        raw.initVerify(pair.getPublic());
        raw.update(digest);
        if (!raw.verify(bytes(key.callMethod(context, "dsa_sign_asn1", string(context, digest))))) {
            return "BouncyCastle did not verify what EC#dsa_sign_asn1 gave";
        }
        raw.initSign(pair.getPrivate(), GeneratorSecureRandom.OPENSSL);
        raw.update(digest);
        byte[] signature = raw.sign();
        verdicts = verdicts(context, key, "dsa_verify_asn1", signature, string(context, digest), null, null);
        if (verdicts != null) return verdicts;
        if (defined(ecClass, "sign_raw") && defined(ecClass, "verify_raw")) {
            raw.initVerify(pair.getPublic());
            raw.update(digest);
            if (!raw.verify(bytes(key.callMethod(context, "sign_raw", new IRubyObject[] {context.nil, string(context, digest)})))) {
                return "BouncyCastle did not verify what EC#sign_raw gave";
            }
            verdicts = verdicts(context, key, "verify_raw", signature, context.nil, null, string(context, digest));
            if (verdicts != null) return verdicts;
        }

        KeyAgreement agreement = KeyAgreement.getInstance("ECDH", bc);
        agreement.init(pair.getPrivate());
        agreement.doPhase(peer.getPublic(), true);
        byte[] secret = agreement.generateSecret();
        IRubyObject point = peerKey.callMethod(context, "public_key");
        if (!Arrays.equals(bytes(key.callMethod(context, "dh_compute_key", point)), secret)) {
            return "EC#dh_compute_key gave another secret than BouncyCastle";
        }
        if (defined(ecClass, "derive") && !Arrays.equals(bytes(key.callMethod(context, "derive", peerKey)), secret)) {
            return "EC#derive gave another secret than BouncyCastle";
        }
        return ecOperations() > before ? null : "EC's calls did not reach fast_random's engine";
    }

    /** A GCM message with AAD each way and a forged tag refused, and CBC and CTR messages each way. */
    private static String aes(ThreadContext context, Provider bc) throws GeneralSecurityException {
        byte[] key = new byte[32];
        byte[] iv = new byte[16];
        for (int i = 0; i < key.length; i++) key[i] = (byte) (i * 7 + 1);
        for (int i = 0; i < iv.length; i++) iv[i] = (byte) (i * 13 + 5);
        byte[] nonce = Arrays.copyOf(iv, 12);
        byte[] aad = "fast_random".getBytes(StandardCharsets.US_ASCII);
        long before = AesCipher.jdkMessages();

        Cipher gcm = Cipher.getInstance("AES/GCM/NoPadding", bc);
        gcm.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, nonce));
        gcm.updateAAD(aad);
        byte[] sealed = gcm.doFinal(MESSAGE);
        byte[] ciphertext = Arrays.copyOf(sealed, MESSAGE.length);
        byte[] tag = Arrays.copyOfRange(sealed, MESSAGE.length, sealed.length);
        IRubyObject cipher = cipher(context, "aes-256-gcm", "encrypt", key, nonce);
        cipher.callMethod(context, "auth_data=", string(context, aad));
        if (!Arrays.equals(finish(context, cipher, MESSAGE), ciphertext) || !Arrays.equals(bytes(cipher.callMethod(context, "auth_tag")), tag)) {
            return "aes-256-gcm encryption gave another message than BouncyCastle";
        }
        cipher = cipher(context, "aes-256-gcm", "decrypt", key, nonce);
        cipher.callMethod(context, "auth_tag=", string(context, tag));
        cipher.callMethod(context, "auth_data=", string(context, aad));
        if (!Arrays.equals(finish(context, cipher, ciphertext), MESSAGE)) return "aes-256-gcm decryption did not give BouncyCastle's message back";
        byte[] forged = tag.clone();
        forged[0] ^= 1;
        cipher = cipher(context, "aes-256-gcm", "decrypt", key, nonce);
        cipher.callMethod(context, "auth_tag=", string(context, forged));
        cipher.callMethod(context, "auth_data=", string(context, aad));
        try {
            finish(context, cipher, ciphertext);
            return "aes-256-gcm decryption took a forged tag";
        } catch (RaiseException e) {
            if (!"OpenSSL::Cipher::CipherError".equals(e.getException().getMetaClass().getName())) {
                return "aes-256-gcm decryption refused a forged tag with " + describe(context, e) + ", not CipherError";
            }
        }

        for (String[] mode : new String[][] {{"aes-256-cbc", "AES/CBC/PKCS5Padding"}, {"aes-256-ctr", "AES/CTR/NoPadding"}}) {
            Cipher jca = Cipher.getInstance(mode[1], bc);
            jca.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new IvParameterSpec(iv));
            byte[] expected = jca.doFinal(MESSAGE);
            if (!Arrays.equals(finish(context, cipher(context, mode[0], "encrypt", key, iv), MESSAGE), expected)) {
                return mode[0] + " encryption gave another message than BouncyCastle";
            }
            if (!Arrays.equals(finish(context, cipher(context, mode[0], "decrypt", key, iv), expected), MESSAGE)) {
                return mode[0] + " decryption did not give BouncyCastle's message back";
            }
        }
        return AesCipher.jdkMessages() > before ? null : "AES's messages did not reach fast_random's ciphers";
    }

    /** Each of fast_random's PBKDF2 methods against jruby-openssl's own, which it replaced, for the same key. */
    private static String pbkdf2(ThreadContext context) {
        Ruby runtime = context.runtime;
        IRubyObject password = runtime.newString("password");
        IRubyObject salt = runtime.newString("NaCl-fast_random");
        RubyHash keywords = RubyHash.newHash(runtime);
        keywords.fastASet(runtime.newSymbol("salt"), salt);
        keywords.fastASet(runtime.newSymbol("iterations"), runtime.newFixnum(2));
        keywords.fastASet(runtime.newSymbol("length"), runtime.newFixnum(40));
        keywords.fastASet(runtime.newSymbol("hash"), runtime.newString("sha256"));
        String failure = sameAsStock(context, "OpenSSL::KDF", "pbkdf2_hmac", "pbkdf2_hmac", password, keywords);
        if (failure != null) return failure;
        IRubyObject[] arguments = {password, salt, runtime.newFixnum(2), runtime.newFixnum(40), runtime.newString("sha512")};
        failure = sameAsStock(context, "OpenSSL::PKCS5", "pbkdf2_hmac", "pbkdf2_hmac", arguments);
        if (failure != null) return failure;
        IRubyObject[] sha1 = {password, salt, runtime.newFixnum(2), runtime.newFixnum(40)};
        IRubyObject ours = runtime.getClassFromPath("OpenSSL::PKCS5").callMethod(context, "pbkdf2_hmac_sha1", sha1);
        IRubyObject stock = stock(context, "OpenSSL::PKCS5", "pbkdf2_hmac",
                new IRubyObject[] {password, salt, runtime.newFixnum(2), runtime.newFixnum(40), runtime.newString("sha1")});
        return Arrays.equals(bytes(ours), bytes(stock)) ? null : "OpenSSL::PKCS5.pbkdf2_hmac_sha1 gave another key than jruby-openssl's pbkdf2_hmac";
    }

    /** Cipher#random_key, which jruby-openssl draws in Java, drawn from fast_random's generators. */
    private static String random(ThreadContext context) {
        long before = openSslCalls();
        IRubyObject cipher = context.runtime.getClassFromPath("OpenSSL::Cipher").callMethod(context, "new", context.runtime.newString("aes-128-cbc"));
        cipher.callMethod(context, "encrypt");
        if (bytes(cipher.callMethod(context, "random_key")).length != 16) return "Cipher#random_key gave a key of another length";
        return openSslCalls() > before ? null : "Cipher#random_key did not draw from fast_random's generators";
    }

    private static String sameAsStock(ThreadContext context, String module, String name, String stockName, IRubyObject... args) {
        IRubyObject ours = context.runtime.getClassFromPath(module).callMethod(context, name, args);
        IRubyObject stock = stock(context, module, stockName, args);
        return Arrays.equals(bytes(ours), bytes(stock)) ? null : module + "." + name + " gave another key than jruby-openssl's";
    }

    /** jruby-openssl's own singleton method {@code name} of {@code module}, which fast_random's replaced. */
    private static IRubyObject stock(ThreadContext context, String module, String name, IRubyObject[] args) {
        RubyModule target = context.runtime.getClassFromPath(module);
        RubyModule singleton = target.getSingletonClass();
        return StockMethods.kept(context, singleton, name).call(context, target, singleton, name, args);
    }

    /**
     * {@code key.method(..., signature, ...)} true for {@code signature} and
     * false for it with one bit changed; arguments before and after it as given
     * ({@code options} last when not null).
     */
    private static String verdicts(ThreadContext context, IRubyObject key, String method, byte[] signature, IRubyObject before,
                                   RubyHash options, IRubyObject after) {
        byte[] wrong = signature.clone();
        wrong[wrong.length / 2] ^= 1;
        boolean[] expected = {true, false};
        byte[][] signatures = {signature, wrong};
        for (int i = 0; i < 2; i++) {
            IRubyObject[] args = after == null ? new IRubyObject[] {before, string(context, signatures[i])}
                    : new IRubyObject[] {before, string(context, signatures[i]), after};
            if (options != null) {
                args = Arrays.copyOf(args, args.length + 1);
                args[args.length - 1] = options;
            }
            if (key.callMethod(context, method, args).isTrue() != expected[i]) {
                return key.getMetaClass().getRealClass().getName() + "#" + method
                        + (expected[i] ? " refused BouncyCastle's signature" : " accepted a wrong signature");
            }
        }
        return null;
    }

    /**
     * A P-256 key pair as SEC 1 DER (ECPrivateKey with its curve and public
     * point), which every jruby-openssl reads whole: from PKCS#8 it takes
     * the private value alone.
     */
    private static byte[] sec1(KeyPair pair) {
        java.security.spec.ECPoint point = ((ECPublicKey) pair.getPublic()).getW();
        java.io.ByteArrayOutputStream der = new java.io.ByteArrayOutputStream(121);
        der.write(P256_SEC1_HEAD, 0, P256_SEC1_HEAD.length);
        der.write(fixed(((ECPrivateKey) pair.getPrivate()).getS()), 0, 32);
        der.write(P256_SEC1_POINT, 0, P256_SEC1_POINT.length);
        der.write(fixed(point.getAffineX()), 0, 32);
        der.write(fixed(point.getAffineY()), 0, 32);
        return der.toByteArray();
    }

    /** A non-negative value below 2^256 as 32 bytes, big-endian. */
    private static byte[] fixed(BigInteger value) {
        byte[] bytes = value.toByteArray();
        byte[] out = new byte[32];
        int length = Math.min(bytes.length, 32);
        System.arraycopy(bytes, bytes.length - length, out, 32 - length, length);
        return out;
    }

    private static IRubyObject cipher(ThreadContext context, String name, String direction, byte[] key, byte[] iv) {
        IRubyObject cipher = context.runtime.getClassFromPath("OpenSSL::Cipher").callMethod(context, "new", context.runtime.newString(name));
        cipher.callMethod(context, direction);
        cipher.callMethod(context, "key=", string(context, key));
        cipher.callMethod(context, "iv=", string(context, iv));
        return cipher;
    }

    /** update(data) + final, as bytes. */
    private static byte[] finish(ThreadContext context, IRubyObject cipher, byte[] data) {
        byte[] head = bytes(cipher.callMethod(context, "update", string(context, data)));
        byte[] tail = bytes(cipher.callMethod(context, "final"));
        byte[] all = Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, all, head.length, tail.length);
        return all;
    }

    private static boolean defined(RubyModule type, String name) {
        org.jruby.internal.runtime.methods.DynamicMethod method = type.searchMethod(name);
        return method != null && !method.isUndefined();
    }

    private static IRubyObject digest(ThreadContext context) {
        return context.runtime.newString("SHA256");
    }

    private static RubyString string(ThreadContext context, byte[] bytes) {
        return RubyString.newString(context.runtime, new ByteList(bytes, true));
    }

    /** A String's bytes; an empty array for anything else, which no expected answer equals. */
    private static byte[] bytes(IRubyObject value) {
        return value instanceof RubyString ? ((RubyString) value).getBytes() : new byte[0];
    }

    private static byte[] sha256(byte[] data) throws GeneralSecurityException {
        return java.security.MessageDigest.getInstance("SHA-256").digest(data);
    }

    private static long rsaOperations() {
        long sum = 0;
        for (Map.Entry<String, long[]> engine : RsaStats.operations().entrySet()) sum += engine.getValue()[0] + engine.getValue()[1];
        return sum;
    }

    private static long ecOperations() {
        long sum = 0;
        for (long[] counts : EcStats.operations().values()) {
            for (long count : counts) sum += count;
        }
        return sum;
    }

    private static long openSslCalls() {
        long sum = 0;
        for (Backend backend : Backend.values()) sum += Call.OPENSSL.count(backend);
        return sum;
    }
}
