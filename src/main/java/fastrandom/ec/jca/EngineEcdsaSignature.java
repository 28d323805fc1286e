package fastrandom.ec.jca;

import java.math.BigInteger;
import java.security.InvalidKeyException;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.SignatureException;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.util.function.Predicate;
import java.util.function.Supplier;

import fastrandom.ec.EcCurve;
import fastrandom.ec.EcEngineException;
import fastrandom.ec.EcEngines;
import fastrandom.ec.EcStats;
import fastrandom.ec.OpenSslEcEngine;
import fastrandom.jni.LibCrypto;
import fastrandom.support.EngineRegistry;
import fastrandom.support.FallbackSignatureSpi;
import fastrandom.support.SignatureInput;

/**
 * An ECDSA signature (SHA*withECDSA, or NONEwithECDSA on a given digest) on
 * the {@code :openssl} EC engine: one native call per signature or
 * verification (the message hashed in it, or here as it streams in when
 * long: {@link SignatureInput}). Signatures are DER, as
 * BouncyCastle's; a signature to verify is decoded exactly as BouncyCastle
 * decodes it ({@link DsaEncoding}: strict DER, r and s below the order), so
 * the verdicts are BouncyCastle's (and the JDK's).
 *
 * <p>Keys the engine does not take (other curves, other key classes), the
 * {@code :java} engine, and any engine failure (with one warning) go to the
 * fallback provider's own signature: for jruby-openssl its BouncyCastle
 * (stock's results and exceptions), for the JVM-wide provider the next
 * provider in the JVM's list.
 */
final class EngineEcdsaSignature extends FallbackSignatureSpi {
    private final Supplier<Provider> fallback;
    private final Predicate<EcCurve> takes;
    private final String algorithm;
    private final LibCrypto.Hash hash; // null: NONEwithECDSA, the data is the digest
    private final boolean jvmWide; // the fallback is the next JCA provider, not jruby-openssl's

    private OpenSslEcEngine engine;
    private EcCurve curve;
    private ECPrivateKey signingKey;
    private ECPublicKey verifyingKey;

    EngineEcdsaSignature(Supplier<Provider> fallback, Predicate<EcCurve> takes, String algorithm, LibCrypto.Hash hash,
                         boolean jvmWide) {
        super(hash);
        this.fallback = fallback;
        this.jvmWide = jvmWide;
        this.takes = takes;
        this.algorithm = algorithm;
        this.hash = hash;
    }

    @Override
    protected void engineInitSign(PrivateKey key, SecureRandom random) throws InvalidKeyException {
        forgetKey();
        OpenSslEcEngine current = EcEngines.current();
        EcCurve keyCurve = current != null && key instanceof ECPrivateKey ? EcCurve.of(((ECPrivateKey) key).getParams(), takes.and(current::serves)) : null;
        if (keyCurve == null) {
            handOverSign(fallback.get(), algorithm, key, random);
            return;
        }
        engine = current;
        curve = keyCurve;
        signingKey = (ECPrivateKey) key;
        signHere();
    }

    @Override
    protected void engineInitVerify(PublicKey key) throws InvalidKeyException {
        forgetKey();
        OpenSslEcEngine current = EcEngines.current();
        EcCurve keyCurve = current != null && key instanceof ECPublicKey ? EcCurve.of(((ECPublicKey) key).getParams(), takes.and(current::serves)) : null;
        if (keyCurve == null || !onCurve(keyCurve, (ECPublicKey) key)) {
            handOverVerify(fallback.get(), algorithm, key); // the fallback refuses a bad point as it would without us
            return;
        }
        engine = current;
        curve = keyCurve;
        verifyingKey = (ECPublicKey) key;
        verifyHere();
    }

    @Override
    protected void countHandedOver(boolean signing) {
        EcStats.count(EcEngines.JAVA, signing ? EcStats.Operation.SIGN : EcStats.Operation.VERIFY);
    }

    @Override
    protected byte[] sign() throws SignatureException {
        try {
            try {
                byte[] signature = engine.sign(signingKey, curve, hash, message.data(), 0, message.length(), message.prehashed());
                EcStats.count(OpenSslEcEngine.NAME, EcStats.Operation.SIGN);
                return signature;
            } catch (EcEngineException e) {
                warnFallback(e, fallback.get(), jvmWide);
            } catch (IllegalArgumentException e) {
                // A key no engine takes: BouncyCastle signs it, as stock.
            }
            EcStats.count(EcEngines.JAVA, EcStats.Operation.SIGN);
            Signature plain = signature(fallback.get(), "NONEwithECDSA");
            plain.initSign(signingKey);
            plain.update(message.digest());
            return plain.sign();
        } catch (InvalidKeyException e) {
            throw new SignatureException(e.toString(), e);
        }
    }

    @Override
    protected boolean verify(byte[] signature) throws SignatureException {
        try {
            BigInteger[] rs;
            try {
                rs = DsaEncoding.decode(curve.order(), signature);
            } catch (Exception e) {
                throw new SignatureException("error decoding signature bytes."); // BouncyCastle's words
            }
            try {
                boolean valid = engine.verify(verifyingKey, curve, hash, message.data(), 0, message.length(), message.prehashed(),
                        rs[0], rs[1]);
                EcStats.count(OpenSslEcEngine.NAME, EcStats.Operation.VERIFY);
                return valid;
            } catch (EcEngineException e) {
                warnFallback(e, fallback.get(), jvmWide);
            }
            EcStats.count(EcEngines.JAVA, EcStats.Operation.VERIFY);
            Signature plain = signature(fallback.get(), "NONEwithECDSA");
            plain.initVerify(verifyingKey);
            plain.update(message.digest());
            return plain.verify(signature);
        } catch (InvalidKeyException e) {
            throw new SignatureException(e.toString(), e);
        }
    }

    private static boolean onCurve(EcCurve curve, ECPublicKey key) {
        java.security.spec.ECPoint w = key.getW();
        return w != null && w != java.security.spec.ECPoint.POINT_INFINITY && curve.contains(w.getAffineX(), w.getAffineY());
    }

    /**
     * One warning per wording that the engine failed, saying what runs such
     * operations instead: jruby-openssl's Java code (its BouncyCastle
     * provider), or for the JVM-wide provider the next JCA provider, named.
     */
    static void warnFallback(EcEngineException e, Provider fallback, boolean jvmWide) {
        EcStats.fellBack(e, !jvmWide ? EngineRegistry.JRUBY_OPENSSL_CODE
                : "the next JCA provider (" + (fallback == null ? "none" : fallback.getName()) + ")");
    }

    private void forgetKey() {
        forget();
        engine = null;
        curve = null;
        signingKey = null;
        verifyingKey = null;
    }
}
