package org.jruby.ext.fastrandom;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.Provider;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;
import java.security.spec.RSAPrivateCrtKeySpec;
import java.security.spec.RSAPublicKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.ASN1Encoding;
import org.bouncycastle.asn1.DERSequence;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.jruby.Ruby;
import org.jruby.RubyHash;
import org.jruby.RubyModule;
import org.jruby.RubyString;
import org.jruby.exceptions.RaiseException;
import org.jruby.internal.runtime.methods.DynamicMethod;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;
import org.jruby.util.ByteList;

import fastrandom.cipher.AesCipher;
import fastrandom.ec.EcKnownAnswerTest;
import fastrandom.ec.EcStats;
import fastrandom.jca.ProviderHook;
import fastrandom.random.Backend;
import fastrandom.random.Call;
import fastrandom.random.GeneratorSecureRandom;
import fastrandom.rsa.KnownAnswerTest;
import fastrandom.rsa.Operands;
import fastrandom.rsa.RsaStats;

/**
 * The known-answer checks a capability passes, once installed, before a
 * jruby-openssl the suite has not run on keeps it ({@link JRubyOpenSsl#checkAtLoad}):
 * each calls jruby-openssl's own Ruby methods, as an application does, and
 * compares what comes back through fast_random with an answer made
 * elsewhere: MRI's (the RSA and P-256 known answers of the engines'
 * self-tests), BouncyCastle's verification with the public key (for
 * randomized answers: ECDSA, PSS, RSA encryption; never a private-key
 * operation, which would cost more than the check), the JDK's own AES
 * (SunJCE), or the jruby-openssl method fast_random's replaced, on the
 * same input (PBKDF2's; X.509's, on MRI's certificates and CRL). A method
 * the release does not have is not checked; one it has must answer right. A
 * check also fails when the calls did not reach fast_random (its counters
 * did not move): the hook would then report engines that serve nothing, or
 * the comparison hold for jruby-openssl against itself. Each returns null
 * when all holds, else what failed.
 */
final class OpenSSLChecks {
    private static final byte[] MESSAGE = "fast_random's check of jruby-openssl at load".getBytes(StandardCharsets.US_ASCII);
    /** DigestInfo's head for SHA-256, before the 32 bytes of the digest (PKCS #1, EMSA-PKCS1-v1_5). */
    private static final byte[] SHA256_DIGEST_INFO = hex("3031300d060960864801650304020105000420");
    /** SEC 1 ECPrivateKey on P-256, up to its private value: SEQUENCE, version 1, OCTET STRING of 32. */
    private static final byte[] P256_SEC1_HEAD = hex("30770201010420");
    /** After the private value: [0] prime256v1's OID, [1] BIT STRING of an uncompressed point (04, then x and y). */
    private static final byte[] P256_SEC1_POINT = hex("a00a06082a8648ce3d030107a14403420004");
    /** SubjectPublicKeyInfo of a P-256 key, up to its point's x and y. */
    private static final byte[] P256_SPKI_HEAD = hex("3059301306072a8648ce3d020106082a8648ce3d03010703420004");
    /*
     * The X.509 check's certificates and CRL (DER, Base64), made by MRI 3.1's
     * openssl on OpenSSL 3.0 with the engines' fixed keys (KnownAnswerTest's
     * RSA key, EcKnownAnswerTest's first P-256 key): each certificate
     * self-signed with SHA-256, version 3, serial 1, subject and issuer
     * "/CN=fast_random check", valid from 2025-01-01 to 2049-01-01 UTC
     * (UTCTime both), with basicConstraints "CA:TRUE" (critical) and keyUsage
     * "keyCertSign"; the CRL version 2, by the same name, over the same
     * dates, revoking serial 2 at 2025-01-01, signed by the P-256 key with
     * SHA-256. MRI verifies each with its key; stock jruby-openssl signs the
     * RSA certificate again into these very bytes.
     */
    private static final String RSA_CERTIFICATE = "MIIC0zCCAbugAwIBAgIBATANBgkqhkiG9w0BAQsFADAcMRowGAYDVQQDDBFmYXN0X3JhbmRvbSBjaGVjazAeFw0yNTAxMDEw"
            + "MDAwMDBaFw00OTAxMDEwMDAwMDBaMBwxGjAYBgNVBAMMEWZhc3RfcmFuZG9tIGNoZWNrMIIBIjANBgkqhkiG9w0BAQEFAAOC"
            + "AQ8AMIIBCgKCAQEAwMuEwNyZfAnTfXt2zftqawMU3Yty7vrPFKOwvT37JuvGTBmCN3MB9+i9uBZ+dFaVxi7Ru2lGUBY8kmhh"
            + "Y7+yul0ywzc0+ANTd9ju7Wv+dqYCfyQOCI9vJuJ3y1xHHpkXuBZd1kSgzrZFkKoofF8S1b0mMN6oTD2pt2p84zhpH5oja9HG"
            + "Wxk1aZciIvf2Nd+mHyQcht/A1WliOIUXbij7N7pdssSkCupd4Fp7Slwrr8Ez479xpz3+m8yKyzdQg5peJQDMsMWax9ziJUnR"
            + "/U+zP9tofss9Wj3xH1ZYIlRfzXpwCqyghUcMD+LQiY8C8EiH6ouM7x8pOicp6hQrz1VCAQIDAQABoyAwHjAPBgNVHRMBAf8E"
            + "BTADAQH/MAsGA1UdDwQEAwICBDANBgkqhkiG9w0BAQsFAAOCAQEAUzO+Pr2MPGocNBVr0XOZRyoVHHIEu6IYnt0zhuKolDS0"
            + "KGBRIG7kr0gFQCIMQgLDwf2f/IB7g78SIxyU931bqRMwdYQ+PyDTW+ssCjsAuq4qvkLWUnUQ4t50N9YLEg5T30HsJA5xgB7w"
            + "wyd+YU9O+RBTT+n+WYaE+hyZ7Jg+YiHs5gXDH9yyONl2HW6fw5j0Is5ryXgb2ky+OC+H3c0DKDmNw6dePsQv4o3gGckK04H7"
            + "nVTnG5/G8SHDdPshligcRwFszuDcCFk/PLFradJaL4vgyrBGDjMtJiMSUeGuDcFTS+4N2qHgauew7DC16F3SwDfg22WAa/eA"
            + "4RQ3wB8bPg==";
    static final String P256_CERTIFICATE = "MIIBRTCB7aADAgECAgEBMAoGCCqGSM49BAMCMBwxGjAYBgNVBAMMEWZhc3RfcmFuZG9tIGNoZWNrMB4XDTI1MDEwMTAwMDAw"
            + "MFoXDTQ5MDEwMTAwMDAwMFowHDEaMBgGA1UEAwwRZmFzdF9yYW5kb20gY2hlY2swWTATBgcqhkjOPQIBBggqhkjOPQMBBwNC"
            + "AAStujFMkE3o+0dVXayc7vo2m3x7x1gA3nWF1nflj+i6SWHHxZdyxVm90qfqsmcbukKbWuJ/YbOvxywSmDioH/PCoyAwHjAP"
            + "BgNVHRMBAf8EBTADAQH/MAsGA1UdDwQEAwICBDAKBggqhkjOPQQDAgNHADBEAiB2R55VpZLijMD6ED7ByoIBklJMwrCubFaY"
            + "F7DTB85NlwIgYsovh7nCeunzUapkW0ae9q4DlvSeabkXw23pVuMPEJs=";
    private static final String P256_CRL = "MIG6MGECAQEwCgYIKoZIzj0EAwIwHDEaMBgGA1UEAwwRZmFzdF9yYW5kb20gY2hlY2sXDTI1MDEwMTAwMDAwMFoXDTQ5MDEw"
            + "MTAwMDAwMFowFDASAgECFw0yNTAxMDEwMDAwMDBaMAoGCCqGSM49BAMCA0kAMEYCIQCpaqul+z7mu9vwnhiqzeT3WMu1F3+1"
            + "d4WvsEnsQxxGzAIhAKmiyW0aQf+tLydmWlphE4M7Yr6gR0dfQ76C1OsA5LHw";

    private OpenSSLChecks() {}

    /** Null when {@code capability} answers right through jruby-openssl, else what failed. */
    static String run(ThreadContext context, JRubyOpenSsl.Capability capability) {
        try {
            switch (capability) {
                case RSA: return rsa(context, bouncyCastle(context));
                case EC: return ec(context, bouncyCastle(context));
                case AES: return aes(context);
                case PBKDF2: return pbkdf2(context);
                case RANDOM: return random(context);
                case X509: return x509(context);
                case TLS: return TlsCheck.run(context);
                default: throw new IllegalArgumentException(capability.name());
            }
        } catch (GeneralSecurityException e) {
            return "the answer to compare with could not be made: " + e;
        }
    }

    /** A Ruby exception as Ruby names it, any other as Java does. */
    static String describe(ThreadContext context, Throwable e) {
        if (e instanceof RaiseException) {
            IRubyObject exception = ((RaiseException) e).getException();
            return exception.getMetaClass().getName() + ": " + exception.callMethod(context, "message");
        }
        return e.toString();
    }

    private static Provider bouncyCastle(ThreadContext context) {
        return ProviderHook.bouncyCastle(context.runtime.getJRubyClassLoader());
    }

    /**
     * On the engines' fixed 2048-bit key: PKCS#1 v1.5 signatures made and
     * verified, MRI's private_encrypt answer and its inverse, both
     * encryptions, and PSS by every form the release has.
     */
    private static String rsa(ThreadContext context, Provider bc) throws GeneralSecurityException {
        RSAPrivateCrtKeySpec spec = KnownAnswerTest.keySpec();
        PublicKey jcaPublic = KeyFactory.getInstance("RSA", bc).generatePublic(new RSAPublicKeySpec(spec.getModulus(), spec.getPublicExponent()));
        RubyModule rsaClass = context.runtime.getClassFromPath("OpenSSL::PKey::RSA");
        IRubyObject key = rsaKey(context);
        Set<String> replaced = replaced(rsaClass);
        long before = rsaOperations();

        if (defined(rsaClass, "sign") && defined(rsaClass, "verify")) {
            Signature pkcs1 = Signature.getInstance("SHA256withRSA", bc);
            pkcs1.initVerify(jcaPublic);
            pkcs1.update(MESSAGE);
            byte[] signature = bytes(call(context, key, "sign", digestName(context), string(context, MESSAGE)));
            if (!pkcs1.verify(signature)) return "BouncyCastle did not verify what RSA#sign gave";
            String verdicts = verdicts(context, key, "verify", signature, digestName(context), null, string(context, MESSAGE));
            if (verdicts != null) return verdicts;
        }

        // MRI's private_encrypt of a SHA-256 DigestInfo (PKCS#1 padding): the engines' known answer.
        byte[] block = KnownAnswerTest.input().toByteArray();
        byte[] digestInfo = Arrays.copyOfRange(block, block.length - SHA256_DIGEST_INFO.length - 32, block.length);
        byte[] output = Operands.fixedLength(KnownAnswerTest.output(), 256);
        if (defined(rsaClass, "private_encrypt")
                && !Arrays.equals(bytes(call(context, key, "private_encrypt", string(context, digestInfo))), output)) {
            return "RSA#private_encrypt gave another answer than MRI";
        }
        if (defined(rsaClass, "public_decrypt")
                && !Arrays.equals(bytes(call(context, key, "public_decrypt", string(context, output))), digestInfo)) {
            return "RSA#public_decrypt did not give back what MRI encrypted";
        }
        if (defined(rsaClass, "private_decrypt")) {
            Cipher padded = Cipher.getInstance("RSA/ECB/PKCS1Padding", bc);
            padded.init(Cipher.ENCRYPT_MODE, jcaPublic, GeneratorSecureRandom.OPENSSL);
            if (!Arrays.equals(bytes(call(context, key, "private_decrypt", string(context, padded.doFinal(MESSAGE)))), MESSAGE)) {
                return "RSA#private_decrypt did not give back what BouncyCastle encrypted";
            }
            if (defined(rsaClass, "public_encrypt")) {
                byte[] encrypted = bytes(call(context, key, "public_encrypt", string(context, MESSAGE)));
                if (encrypted.length != 256 || !Arrays.equals(bytes(call(context, key, "private_decrypt", string(context, encrypted))), MESSAGE)) {
                    return "RSA#private_decrypt did not give back what RSA#public_encrypt gave";
                }
            }
        }

        String pss = rsaPss(context, key, bc, jcaPublic, replaced);
        if (pss != null) return pss;
        return rsaOperations() > before || nothingCalled(rsaClass, "sign", "private_encrypt", "public_decrypt", "private_decrypt")
                ? null : "RSA's calls did not reach fast_random's engines";
    }

    /** The PSS forms fast_random replaced on this release: sign_pss and verify_pss, and sign, verify, sign_raw and verify_raw with PSS options. */
    private static String rsaPss(ThreadContext context, IRubyObject key, Provider bc, PublicKey jcaPublic, Set<String> replaced)
            throws GeneralSecurityException {
        Ruby runtime = context.runtime;
        Signature pss = Signature.getInstance("SHA256withRSAandMGF1", bc);
        pss.setParameter(new PSSParameterSpec("SHA-256", "MGF1", MGF1ParameterSpec.SHA256, 32, 1));
        if (replaced.contains("sign_pss") && replaced.contains("verify_pss")) {
            RubyHash keywords = RubyHash.newHash(runtime);
            keywords.fastASet(runtime.newSymbol("salt_length"), runtime.newSymbol("digest"));
            keywords.fastASet(runtime.newSymbol("mgf1_hash"), runtime.newString("SHA256"));
            byte[] signature = bytes(call(context, key, "sign_pss", digestName(context), string(context, MESSAGE), keywords));
            pss.initVerify(jcaPublic);
            pss.update(MESSAGE);
            if (!pss.verify(signature)) return "BouncyCastle did not verify what RSA#sign_pss gave";
            String verdicts = verdicts(context, key, "verify_pss", signature, digestName(context), keywords, string(context, MESSAGE));
            if (verdicts != null) return verdicts;
        }
        RubyHash options = RubyHash.newHash(runtime);
        options.fastASet(runtime.newString("rsa_padding_mode"), runtime.newString("pss"));
        options.fastASet(runtime.newString("rsa_pss_saltlen"), runtime.newFixnum(32)); // jruby-openssl's own method takes an Integer only
        options.fastASet(runtime.newString("rsa_mgf1_md"), runtime.newString("SHA256"));
        String[][] forms = {{"sign", "verify"}, {"sign_raw", "verify_raw"}};
        for (String[] form : forms) {
            if (!replaced.contains(form[0]) || !replaced.contains(form[1])) continue;
            boolean raw = form[0].equals("sign_raw");
            IRubyObject input = string(context, raw ? sha256(MESSAGE) : MESSAGE);
            byte[] signature = bytes(call(context, key, form[0], digestName(context), input, options));
            pss.initVerify(jcaPublic);
            pss.update(MESSAGE);
            if (!pss.verify(signature)) return "BouncyCastle did not verify what RSA#" + form[0] + " gave with PSS options";
            String verdicts = verdicts(context, key, form[1], signature, digestName(context), options, input);
            if (verdicts != null) return verdicts;
        }
        return pssDefaults(context, key, bc, jcaPublic, replaced);
    }

    /**
     * The salt lengths fast_random's PSS methods take when none is given
     * (RsaPssMethods: the longest for sign_pss and sign, the digest's for
     * sign_raw and every verification, as jruby-openssl does) are this
     * release's: what its own methods sign without one verifies with that
     * salt length, and its own verdicts without one are fast_random's, for
     * a signature with each length.
     */
    private static String pssDefaults(ThreadContext context, IRubyObject key, Provider bc, PublicKey jcaPublic, Set<String> replaced)
            throws GeneralSecurityException {
        Ruby runtime = context.runtime;
        RubyModule rsaClass = context.runtime.getClassFromPath("OpenSSL::PKey::RSA");
        StockMethods stock = StockMethods.of(rsaClass);
        if (stock == null) return null;
        RubyHash pss = RubyHash.newHash(runtime);
        pss.fastASet(runtime.newString("rsa_padding_mode"), runtime.newString("pss"));
        IRubyObject message = string(context, MESSAGE);
        IRubyObject hashed = string(context, sha256(MESSAGE));
        int longest = 256 - 32 - 2;
        Object[][] signing = {{"sign_pss", longest, new IRubyObject[] {digestName(context), message}},
            {"sign", longest, new IRubyObject[] {digestName(context), message, pss}},
            {"sign_raw", 32, new IRubyObject[] {digestName(context), hashed, pss}}};
        for (Object[] form : signing) {
            String name = (String) form[0];
            if (!replaced.contains(name)) continue;
            Signature verifier = Signature.getInstance("SHA256withRSAandMGF1", bc);
            verifier.setParameter(new PSSParameterSpec("SHA-256", "MGF1", MGF1ParameterSpec.SHA256, (Integer) form[1], 1));
            for (boolean ours : new boolean[] {false, true}) {
                IRubyObject[] args = (IRubyObject[]) form[2];
                Object signed = outcome(context, () -> ours ? call(context, key, name, args) : stock.call(context, key, rsaClass, name, args));
                if (!(signed instanceof byte[])) {
                    if (ours || !signed.equals(outcome(context, () -> call(context, key, name, args)))) {
                        return "RSA#" + name + " with PSS's default salt length raised " + signed + (ours ? "" : " on jruby-openssl's method alone");
                    }
                    break; // both raise alike: nothing to compare
                }
                verifier.initVerify(jcaPublic);
                verifier.update(MESSAGE);
                if (!verifier.verify((byte[]) signed)) {
                    return "RSA#" + name + (ours ? "" : ", jruby-openssl's own,") + " signs with another default salt length than fast_random assumes";
                }
            }
        }
        if (!replaced.contains("sign_pss")) return null;
        Object[][] verifying = {{"verify_pss", new IRubyObject[] {digestName(context), null, message}},
            {"verify", new IRubyObject[] {digestName(context), null, message, pss}},
            {"verify_raw", new IRubyObject[] {digestName(context), null, hashed, pss}}};
        for (int salt : new int[] {32, longest}) {
            RubyHash keywords = RubyHash.newHash(runtime);
            keywords.fastASet(runtime.newSymbol("salt_length"), runtime.newFixnum(salt));
            keywords.fastASet(runtime.newSymbol("mgf1_hash"), runtime.newString("SHA256"));
            IRubyObject signature = call(context, key, "sign_pss", digestName(context), message, keywords);
            for (Object[] form : verifying) {
                String name = (String) form[0];
                if (!replaced.contains(name)) continue;
                IRubyObject[] args = ((IRubyObject[]) form[1]).clone();
                args[1] = signature;
                Object ours = outcome(context, () -> call(context, key, name, args));
                Object theirs = outcome(context, () -> stock.call(context, key, rsaClass, name, args));
                if (!ours.equals(theirs)) {
                    return "RSA#" + name + " with PSS's default salt length answers " + ours + " where jruby-openssl's answers " + theirs
                            + " (a signature with a salt of " + salt + " bytes)";
                }
            }
        }
        return null;
    }

    /** What a call gives: a String's bytes, true or false, or the class of the StandardError it raised. */
    private static Object outcome(ThreadContext context, Supplier<IRubyObject> call) {
        try {
            IRubyObject value = call.get();
            return value instanceof RubyString ? ((RubyString) value).getBytes() : Boolean.valueOf(value.isTrue());
        } catch (RaiseException e) {
            if (JRubyOpenSsl.isControlFlow(context, e)) throw e;
            return e.getException().getMetaClass().getName();
        }
    }

    /**
     * On P-256 (a curve of the native engine), with the engine's two fixed
     * keys: MRI's signature verified and one bit of it changed refused, by
     * every verifying method the release has; signatures made by every
     * signing method verified by BouncyCastle; MRI's ECDH secret.
     */
    private static String ec(ThreadContext context, Provider bc) throws GeneralSecurityException {
        EcKnownAnswerTest.Vector vector = EcKnownAnswerTest.p256();
        byte[] q1 = concat(fixed(vector.q1x), fixed(vector.q1y));
        byte[] q2 = concat(fixed(vector.q2x), fixed(vector.q2y));
        RubyModule ecClass = context.runtime.getClassFromPath("OpenSSL::PKey::EC");
        IRubyObject key = p256Key(context);
        IRubyObject peer = ecClass.callMethod(context, "new", string(context, concat(P256_SPKI_HEAD, q2)));
        PublicKey jcaPublic = KeyFactory.getInstance("EC", bc).generatePublic(new X509EncodedKeySpec(concat(P256_SPKI_HEAD, q1)));
        Set<String> replaced = replaced(ecClass);
        long before = ecOperations();
        byte[] digest = fixed(vector.digest);
        byte[] mris = ecdsaSignature(new BigInteger(vector.r, 16), new BigInteger(vector.s, 16));

        String verdicts = defined(ecClass, "dsa_verify_asn1") ? verdicts(context, key, "dsa_verify_asn1", mris, string(context, digest), null, null) : null;
        if (verdicts != null) return verdicts;
        if (replaced.contains("verify_raw")) {
            verdicts = verdicts(context, key, "verify_raw", mris, context.nil, null, string(context, digest));
            if (verdicts != null) return verdicts;
        }
        Signature raw = Signature.getInstance("NONEwithECDSA", bc);
        for (String method : new String[] {"dsa_sign_asn1", "sign_raw"}) {
            if (method.equals("sign_raw") ? !replaced.contains(method) : !defined(ecClass, method)) continue;
            IRubyObject signed = method.equals("sign_raw") ? call(context, key, method, context.nil, string(context, digest))
                    : call(context, key, method, string(context, digest));
            raw.initVerify(jcaPublic);
            raw.update(digest);
            if (!raw.verify(bytes(signed))) return "BouncyCastle did not verify what EC#" + method + " gave";
        }
        if (defined(ecClass, "sign") && defined(ecClass, "verify")) {
            Signature sha256 = Signature.getInstance("SHA256withECDSA", bc);
            byte[] signature = bytes(call(context, key, "sign", digestName(context), string(context, MESSAGE)));
            sha256.initVerify(jcaPublic);
            sha256.update(MESSAGE);
            if (!sha256.verify(signature)) return "BouncyCastle did not verify what EC#sign gave";
            verdicts = verdicts(context, key, "verify", signature, digestName(context), null, string(context, MESSAGE));
            if (verdicts != null) return verdicts;
        }

        byte[] secret = fixed(vector.secret);
        if (defined(ecClass, "dh_compute_key")
                && !Arrays.equals(bytes(call(context, key, "dh_compute_key", call(context, peer, "public_key"))), secret)) {
            return "EC#dh_compute_key gave another secret than MRI";
        }
        if (defined(ecClass, "derive") && !Arrays.equals(bytes(call(context, key, "derive", peer)), secret)) {
            return "EC#derive gave another secret than MRI";
        }
        return ecOperations() > before || nothingCalled(ecClass, "dsa_verify_asn1", "dsa_sign_asn1", "sign", "derive")
                ? null : "EC's calls did not reach fast_random's engine";
    }

    /**
     * A GCM message with AAD each way and a forged tag refused, and CBC and
     * CTR messages each way, against the JDK's own AES (the cipher fast_random
     * hands jruby-openssl's calls to: what is checked is that they arrive
     * as meant).
     */
    private static String aes(ThreadContext context) throws GeneralSecurityException {
        byte[] key = new byte[32];
        byte[] iv = new byte[16];
        for (int i = 0; i < key.length; i++) key[i] = (byte) (i * 7 + 1);
        for (int i = 0; i < iv.length; i++) iv[i] = (byte) (i * 13 + 5);
        byte[] nonce = Arrays.copyOf(iv, 12);
        byte[] aad = "fast_random".getBytes(StandardCharsets.US_ASCII);
        long before = AesCipher.jdkMessages();

        Cipher gcm = Cipher.getInstance("AES/GCM/NoPadding", "SunJCE");
        gcm.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, nonce));
        gcm.updateAAD(aad);
        byte[] sealed = gcm.doFinal(MESSAGE);
        byte[] ciphertext = Arrays.copyOf(sealed, MESSAGE.length);
        byte[] tag = Arrays.copyOfRange(sealed, MESSAGE.length, sealed.length);
        IRubyObject cipher = cipher(context, "aes-256-gcm", "encrypt", key, nonce);
        cipher.callMethod(context, "auth_data=", string(context, aad));
        if (!Arrays.equals(finish(context, cipher, MESSAGE), ciphertext) || !Arrays.equals(bytes(cipher.callMethod(context, "auth_tag")), tag)) {
            return "aes-256-gcm encryption gave another message than the JDK";
        }
        for (byte[] offered : new byte[][] {tag, forged(tag)}) {
            cipher = cipher(context, "aes-256-gcm", "decrypt", key, nonce);
            cipher.callMethod(context, "auth_tag=", string(context, offered));
            cipher.callMethod(context, "auth_data=", string(context, aad));
            try {
                if (!Arrays.equals(finish(context, cipher, ciphertext), MESSAGE)) return "aes-256-gcm decryption did not give the JDK's message back";
                if (offered != tag) return "aes-256-gcm decryption took a forged tag";
            } catch (RaiseException e) {
                if (offered == tag || !"OpenSSL::Cipher::CipherError".equals(e.getException().getMetaClass().getName())) {
                    return "aes-256-gcm decryption raised " + describe(context, e);
                }
            }
        }

        for (String[] mode : new String[][] {{"aes-256-cbc", "AES/CBC/PKCS5Padding"}, {"aes-256-ctr", "AES/CTR/NoPadding"}}) {
            Cipher jdk = Cipher.getInstance(mode[1], "SunJCE");
            jdk.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new IvParameterSpec(iv));
            byte[] expected = jdk.doFinal(MESSAGE);
            if (!Arrays.equals(finish(context, cipher(context, mode[0], "encrypt", key, iv), MESSAGE), expected)) {
                return mode[0] + " encryption gave another message than the JDK";
            }
            if (!Arrays.equals(finish(context, cipher(context, mode[0], "decrypt", key, iv), expected), MESSAGE)) {
                return mode[0] + " decryption did not give the JDK's message back";
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
        IRubyObject kdf = runtime.getClassFromPath("OpenSSL::KDF");
        context.callInfo = ThreadContext.CALL_KEYWORD; // the options are keywords, as a Ruby caller gives them
        IRubyObject derived = kdf.callMethod(context, "pbkdf2_hmac", new IRubyObject[] {password, keywords});
        String failure = Arrays.equals(bytes(derived), bytes(stock(context, "OpenSSL::KDF", "pbkdf2_hmac", new IRubyObject[] {password, keywords})))
                ? null : "OpenSSL::KDF.pbkdf2_hmac gave another key than jruby-openssl's";
        if (failure != null) return failure;
        if (!replaced(runtime.getClassFromPath("OpenSSL::PKCS5").getSingletonClass()).contains("pbkdf2_hmac")) return null;
        IRubyObject[] arguments = {password, salt, runtime.newFixnum(2), runtime.newFixnum(40), runtime.newString("sha512")};
        failure = sameAsStock(context, "OpenSSL::PKCS5", "pbkdf2_hmac", "pbkdf2_hmac", arguments);
        if (failure != null || !replaced(runtime.getClassFromPath("OpenSSL::PKCS5").getSingletonClass()).contains("pbkdf2_hmac_sha1")) {
            return failure;
        }
        IRubyObject[] sha1 = {password, salt, runtime.newFixnum(2), runtime.newFixnum(40)};
        IRubyObject ours = runtime.getClassFromPath("OpenSSL::PKCS5").callMethod(context, "pbkdf2_hmac_sha1", sha1);
        IRubyObject stock = stock(context, "OpenSSL::PKCS5", "pbkdf2_hmac",
                new IRubyObject[] {password, salt, runtime.newFixnum(2), runtime.newFixnum(40), runtime.newString("sha1")});
        return Arrays.equals(bytes(ours), bytes(stock)) ? null : "OpenSSL::PKCS5.pbkdf2_hmac_sha1 gave another key than jruby-openssl's pbkdf2_hmac";
    }

    /**
     * Cipher#random_key (else #random_iv), which jruby-openssl draws in Java,
     * drawn from fast_random's generators; nothing to check where it has
     * neither when its Java classes are loaded.
     */
    private static String random(ThreadContext context) {
        RubyModule cipherClass = context.runtime.getClassFromPath("OpenSSL::Cipher");
        String method = defined(cipherClass, "random_key") ? "random_key" : defined(cipherClass, "random_iv") ? "random_iv" : null;
        if (method == null) return null;
        long before = openSslCalls();
        IRubyObject cipher = cipherClass.callMethod(context, "new", context.runtime.newString("aes-128-cbc"));
        cipher.callMethod(context, "encrypt");
        if (bytes(cipher.callMethod(context, method)).length != 16) return "Cipher#" + method + " gave one of another length";
        return openSslCalls() > before ? null : "Cipher#" + method + " did not draw from fast_random's generators";
    }

    /**
     * Certificate#verify, #sign and CRL#verify, where fast_random replaced
     * them, answer as jruby-openssl's own methods (which they replaced, and
     * call for what they do not take) on the same fresh objects: verdicts
     * on MRI's RSA and P-256 certificates and P-256 CRL (true), each with
     * one bit of its signature changed (false), the RSA certificate with
     * the P-256 key and the P-256 one with another algorithm outside its
     * TBS than in it (jruby-openssl's answers, whatever they are), and
     * the RSA certificate signed again (deterministic PKCS#1 v1.5: the same
     * bytes). The verifications must reach the engines of RSA and EC where
     * those serve, else the comparisons held for stock against itself.
     * Signing costs an RSA private-key operation on stock's path too (the
     * other checks make none outside fast_random's): nothing cheaper shows
     * what sign encodes and records.
     */
    private static String x509(ThreadContext context) {
        Ruby runtime = context.runtime;
        RubyModule certificateClass = x509Class(runtime, "Certificate");
        RubyModule crlClass = x509Class(runtime, "CRL");
        Set<String> certificateMethods = certificateClass == null ? Collections.emptySet() : replaced(certificateClass);
        boolean certificateVerify = certificateMethods.contains("verify");
        boolean crlVerify = crlClass != null && replaced(crlClass).contains("verify");
        IRubyObject rsa = rsaKey(context);
        IRubyObject ec = p256Key(context);
        byte[] rsaCertificate = Base64.getDecoder().decode(RSA_CERTIFICATE);
        byte[] p256Certificate = Base64.getDecoder().decode(P256_CERTIFICATE);
        byte[] crl = Base64.getDecoder().decode(P256_CRL);
        long[] served = new long[2]; // RSA's and EC's operations in fast_random's calls
        if (certificateVerify) {
            Object[][] verifying = {{"MRI's RSA certificate", rsaCertificate, rsa}, {"MRI's P-256 certificate", p256Certificate, ec},
                {"MRI's RSA certificate, a bit of its signature changed", forged(rsaCertificate), rsa},
                {"MRI's P-256 certificate, a bit of its signature changed", forged(p256Certificate), ec},
                {"MRI's RSA certificate and a P-256 key", rsaCertificate, ec},
                {"MRI's P-256 certificate, ecdsa-with-SHA384 outside its TBS", outerAlgorithm(p256Certificate), ec}};
            for (Object[] test : verifying) {
                String failure = asStock(context, certificateClass, "verify", (String) test[0], served,
                        () -> parsed(context, certificateClass, (byte[]) test[1]), UnaryOperator.identity(), (IRubyObject) test[2]);
                if (failure != null) return failure;
            }
        }
        if (crlVerify) {
            for (byte[] der : new byte[][] {crl, forged(crl)}) {
                String input = der == crl ? "MRI's P-256 CRL" : "MRI's P-256 CRL, a bit of its signature changed";
                String failure = asStock(context, crlClass, "verify", input, served, () -> parsed(context, crlClass, der), UnaryOperator.identity(), ec);
                if (failure != null) return failure;
            }
        }
        // Before signing, whose private-key operation would count as RSA reached.
        if (certificateVerify && served[0] == 0 && OpenSSLHook.serving(runtime, ProviderHook.Capability.RSA)) {
            return "X.509's RSA verifications did not reach fast_random's engines";
        }
        if ((certificateVerify || crlVerify) && served[1] == 0 && OpenSSLHook.serving(runtime, ProviderHook.Capability.EC)) {
            return "X.509's EC verifications did not reach fast_random's engine";
        }
        if (certificateMethods.contains("sign")) {
            String failure = asStock(context, certificateClass, "sign", "MRI's RSA certificate signed again with SHA256", served, () -> {
                IRubyObject certificate = parsed(context, certificateClass, rsaCertificate);
                certificate.callMethod(context, "public_key=", rsa); // a parsed certificate has none for sign to encode
                return certificate;
            }, signed -> signed.callMethod(context, "to_der"), rsa, digestName(context));
            if (failure != null) return failure;
        }
        return null;
    }

    /**
     * {@code name(args)} on a fresh receiver through fast_random's method
     * and through jruby-openssl's own, which it replaced: null when both
     * give the same {@code answer} (a value, bytes, or the class of the
     * error raised), else what differs ({@code input}: what was asked).
     * Adds the RSA and EC operations fast_random's call made to
     * {@code served}.
     */
    private static String asStock(ThreadContext context, RubyModule type, String name, String input, long[] served,
                                  Supplier<IRubyObject> receiver, UnaryOperator<IRubyObject> answer, IRubyObject... args) {
        StockMethods stock = StockMethods.of(type);
        long rsa = rsaOperations();
        long ec = ecOperations();
        Object ours = outcome(context, () -> answer.apply(receiver.get().callMethod(context, name, args)));
        served[0] += rsaOperations() - rsa;
        served[1] += ecOperations() - ec;
        Object theirs = outcome(context, () -> answer.apply(stock.call(context, receiver.get(), type, name, args)));
        if (Objects.deepEquals(ours, theirs)) return null;
        return type.getName() + "#" + name + " gives " + shown(ours) + " where jruby-openssl's gives " + shown(theirs) + " (" + input + ")";
    }

    /** An {@link #outcome} as a message says it: bytes by their length and hash, so that two that differ read differently. */
    private static String shown(Object outcome) {
        if (!(outcome instanceof byte[])) return outcome instanceof String ? outcome + " raised" : outcome.toString();
        byte[] bytes = (byte[]) outcome;
        return bytes.length + " bytes (hash " + Integer.toHexString(Arrays.hashCode(bytes)) + ")";
    }

    /** {@code OpenSSL::X509::name}, or null where the release has no such class (nothing of it replaced, nothing to check). */
    private static RubyModule x509Class(Ruby runtime, String name) {
        String path = "OpenSSL::X509::" + name;
        return OpenSSLHook.defined(runtime, path) ? runtime.getClassFromPath(path) : null;
    }

    /** A certificate or CRL ({@code type}) parsed from {@code der} by jruby-openssl. */
    private static IRubyObject parsed(ThreadContext context, RubyModule type, byte[] der) {
        return type.callMethod(context, "new", string(context, der));
    }

    /**
     * The certificate with ecdsa-with-SHA384 for its outer signature
     * algorithm, no longer its TBS's: BouncyCastle refuses it, so
     * fast_random's verify must find the mismatch in this release's TBS and
     * leave the answer to jruby-openssl's.
     */
    private static byte[] outerAlgorithm(byte[] der) {
        org.bouncycastle.asn1.x509.Certificate certificate = org.bouncycastle.asn1.x509.Certificate.getInstance(der);
        try {
            return new DERSequence(new ASN1Encodable[] {certificate.getTBSCertificate(),
                new AlgorithmIdentifier(X9ObjectIdentifiers.ecdsa_with_SHA384), certificate.getSignature()}).getEncoded(ASN1Encoding.DER);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e); // encoding in memory
        }
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

    /** The names of {@code target}'s methods fast_random replaced. */
    private static Set<String> replaced(RubyModule target) {
        StockMethods kept = StockMethods.of(target);
        return kept == null ? Collections.emptySet() : kept.replacedNames();
    }

    /**
     * {@code key.method(before, signature[, options][, after])} true for
     * {@code signature} and false for it with one bit changed.
     */
    private static String verdicts(ThreadContext context, IRubyObject key, String method, byte[] signature, IRubyObject before,
                                   RubyHash options, IRubyObject after) {
        for (byte[] offered : new byte[][] {signature, forged(signature)}) {
            IRubyObject[] args = after == null ? new IRubyObject[] {before, string(context, offered)}
                    : new IRubyObject[] {before, string(context, offered), after};
            if (options != null) {
                args = Arrays.copyOf(args, args.length + 1);
                args[args.length - 1] = options;
            }
            boolean expected = offered == signature;
            if (key.callMethod(context, method, args).isTrue() != expected) {
                return key.getMetaClass().getRealClass().getName() + "#" + method
                        + (expected ? " refused a good signature" : " accepted a wrong signature");
            }
        }
        return null;
    }

    /** A copy with the last bit changed (in a DER signature, s's last: still DER, and no longer the signature). */
    private static byte[] forged(byte[] bytes) {
        byte[] copy = bytes.clone();
        copy[copy.length - 1] ^= 1;
        return copy;
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
        return concat(bytes(cipher.callMethod(context, "update", string(context, data))), bytes(cipher.callMethod(context, "final")));
    }

    private static IRubyObject call(ThreadContext context, IRubyObject receiver, String name, IRubyObject... args) {
        return receiver.callMethod(context, name, args);
    }

    /** Whether {@code type} has none of the methods a check calls (so nothing could reach fast_random). */
    private static boolean nothingCalled(RubyModule type, String... names) {
        for (String name : names) {
            if (defined(type, name)) return false;
        }
        return true;
    }

    private static boolean defined(RubyModule type, String name) {
        DynamicMethod method = type.searchMethod(name);
        return method != null && !method.isUndefined();
    }

    private static IRubyObject digestName(ThreadContext context) {
        return context.runtime.newString("SHA256");
    }

    private static RubyString string(ThreadContext context, byte[] bytes) {
        return RubyString.newString(context.runtime, new ByteList(bytes, true));
    }

    /** A String's bytes; an empty array for anything else, which no expected answer equals. */
    private static byte[] bytes(IRubyObject value) {
        return value instanceof RubyString ? ((RubyString) value).getBytes() : new byte[0];
    }

    /** The engines' fixed RSA-2048 key (KnownAnswerTest's), as jruby-openssl reads it. */
    private static IRubyObject rsaKey(ThreadContext context) {
        return context.runtime.getClassFromPath("OpenSSL::PKey::RSA").callMethod(context, "new",
                string(context, rsaPrivateKey(KnownAnswerTest.keySpec())));
    }

    /** The engines' first fixed P-256 key (EcKnownAnswerTest's), private and public, as jruby-openssl reads it. */
    static IRubyObject p256Key(ThreadContext context) {
        EcKnownAnswerTest.Vector vector = EcKnownAnswerTest.p256();
        byte[] sec1 = concat(P256_SEC1_HEAD, fixed(vector.d1), P256_SEC1_POINT, fixed(vector.q1x), fixed(vector.q1y));
        return context.runtime.getClassFromPath("OpenSSL::PKey::EC").callMethod(context, "new", string(context, sec1));
    }

    /** PKCS #1 RSAPrivateKey DER: SEQUENCE { version 0, n, e, d, p, q, dp, dq, qinv }. */
    private static byte[] rsaPrivateKey(RSAPrivateCrtKeySpec spec) {
        return der(0x30, integer(BigInteger.ZERO), integer(spec.getModulus()), integer(spec.getPublicExponent()),
                integer(spec.getPrivateExponent()), integer(spec.getPrimeP()), integer(spec.getPrimeQ()),
                integer(spec.getPrimeExponentP()), integer(spec.getPrimeExponentQ()), integer(spec.getCrtCoefficient()));
    }

    /** An ECDSA signature as DER: SEQUENCE { r, s }. */
    private static byte[] ecdsaSignature(BigInteger r, BigInteger s) {
        return der(0x30, integer(r), integer(s));
    }

    private static byte[] integer(BigInteger value) {
        return der(0x02, value.toByteArray());
    }

    /** A DER element: the tag, the length (short form, or long form of up to two bytes), the contents. */
    private static byte[] der(int tag, byte[]... contents) {
        byte[] body = concat(contents);
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + 4);
        out.write(tag);
        if (body.length < 0x80) {
            out.write(body.length);
        } else if (body.length < 0x100) {
            out.write(0x81);
            out.write(body.length);
        } else {
            out.write(0x82);
            out.write(body.length >> 8);
            out.write(body.length & 0xff);
        }
        out.write(body, 0, body.length);
        return out.toByteArray();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) out.write(part, 0, part.length);
        return out.toByteArray();
    }

    /** P-256 hex as its 32 bytes. */
    private static byte[] fixed(String hex) {
        return Operands.fixedLength(new BigInteger(hex, 16), 32);
    }

    private static byte[] hex(String digits) {
        byte[] out = new byte[digits.length() / 2];
        for (int i = 0; i < out.length; i++) out[i] = (byte) Integer.parseInt(digits.substring(2 * i, 2 * i + 2), 16);
        return out;
    }

    private static byte[] sha256(byte[] data) throws GeneralSecurityException {
        return MessageDigest.getInstance("SHA-256").digest(data);
    }

    private static long rsaOperations() {
        long sum = 0;
        for (long[] counts : RsaStats.operations().values()) sum += counts[0] + counts[1];
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
