package fastrandom.rsa.jca;

import java.math.BigInteger;
import java.security.AlgorithmParameters;
import java.security.InvalidAlgorithmParameterException;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.ProviderException;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.SignatureException;
import java.security.SignatureSpi;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.AlgorithmParameterSpec;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;
import java.util.Arrays;
import java.util.function.BiFunction;

import fastrandom.random.GeneratorSecureRandom;
import fastrandom.rsa.InconsistentKeyException;
import fastrandom.rsa.OpenSslRsaEngine;
import fastrandom.rsa.Operands;
import fastrandom.rsa.Pss;
import fastrandom.rsa.RsaEngineException;
import fastrandom.rsa.RsaEngines;
import fastrandom.rsa.RsaPrivateKey;
import fastrandom.rsa.RsaStats;

/**
 * The JVM-wide provider's RSASSA-PSS (what TLS 1.3 signs with for RSA
 * certificates): EMSA-PSS in Java ({@link Pss}) around the engine's
 * exponentiation (the private one the engine's checked CRT, blinded by the
 * engine; the public one fast_random's IFMA code where the CPU has it).
 * Parameters are a {@link PSSParameterSpec}, set before or after init as
 * with the JDK's;
 * ours are MGF1 with trailer field 1 and digests the JDK has, and the salt
 * comes from fast_random's generators unless the caller gives a
 * SecureRandom. Other parameters, keys the engine does not take, another
 * engine, and an engine failure mid-signature go to the next provider in the
 * JVM's list.
 */
public final class JvmRsaPssSignature extends SignatureSpi {
    private final BiFunction<String, String, Provider> next;

    private AlgorithmParameterSpec parameters; // as given, ours or not
    private MessageDigest digest; // the message digest when the parameters are ours, else null
    private Signature delegate; // the next provider's, once it has the operation

    private PrivateKey jcaSigningKey; // ours: the keys this object was initialized with
    private RsaPrivateKey signingKey;
    private RSAPublicKey verifyingKey;
    private SecureRandom random;

    public JvmRsaPssSignature(BiFunction<String, String, Provider> next) {
        this.next = next;
    }

    @Override
    protected void engineSetParameter(AlgorithmParameterSpec params) throws InvalidAlgorithmParameterException {
        if (delegate != null) {
            delegate.setParameter(params);
            parameters = params;
            return;
        }
        if (!(params instanceof PSSParameterSpec)) throw new InvalidAlgorithmParameterException("Only PSSParameterSpec is supported");
        parameters = params;
        digest = ourDigest((PSSParameterSpec) params);
        boolean keyed = signingKey != null || verifyingKey != null;
        if (digest == null || (keyed && !fits(signingKey != null ? signingKey.modulus : verifyingKey.getModulus()))) {
            try {
                handOver(); // the next provider takes them, or says why not
            } catch (InvalidKeyException e) {
                throw new InvalidAlgorithmParameterException(e.getMessage(), e);
            }
        }
    }

    @Override
    protected AlgorithmParameters engineGetParameters() {
        if (delegate != null) return delegate.getParameters();
        if (parameters == null) return null;
        try {
            AlgorithmParameters encoded = AlgorithmParameters.getInstance("RSASSA-PSS");
            encoded.init(parameters);
            return encoded;
        } catch (Exception e) {
            throw new ProviderException("could not encode the PSS parameters", e);
        }
    }

    @Override
    protected void engineInitSign(PrivateKey key) throws InvalidKeyException {
        engineInitSign(key, null);
    }

    @Override
    protected void engineInitSign(PrivateKey key, SecureRandom secureRandom) throws InvalidKeyException {
        forgetKey();
        RsaPrivateKey crt = RsaKeys.openssl() == null ? null : RsaKeys.crt(key);
        jcaSigningKey = key;
        random = secureRandom;
        if (crt != null && (parameters == null || (digest != null && fits(crt.modulus)))) {
            signingKey = crt;
        } else {
            handOver();
        }
    }

    @Override
    protected void engineInitVerify(PublicKey key) throws InvalidKeyException {
        forgetKey();
        boolean usable = RsaKeys.openssl() != null && RsaKeys.usable(key);
        if (usable && (parameters == null || (digest != null && fits(((RSAPublicKey) key).getModulus())))) {
            verifyingKey = (RSAPublicKey) key;
        } else {
            handOver(key);
        }
    }

    @Override
    protected void engineUpdate(byte b) throws SignatureException {
        if (delegate != null) delegate.update(b);
        else ourDigest().update(b);
    }

    @Override
    protected void engineUpdate(byte[] b, int off, int len) throws SignatureException {
        if (delegate != null) delegate.update(b, off, len);
        else ourDigest().update(b, off, len);
    }

    @Override
    protected byte[] engineSign() throws SignatureException {
        if (delegate != null) return delegate.sign();
        if (signingKey == null) throw new SignatureException("object not initialized for signing");
        byte[] mHash = ourDigest().digest();
        PSSParameterSpec pss = (PSSParameterSpec) parameters;
        BigInteger n = signingKey.modulus;
        int k = Operands.byteLength(n);
        byte[] em = Pss.encode(mHash, digestFor(pss.getDigestAlgorithm()), mgfDigest(pss), pss.getSaltLength(), n.bitLength(),
                random != null ? random : GeneratorSecureRandom.INSTANCE);
        try {
            OpenSslRsaEngine engine = RsaKeys.openssl(); // null: another engine was selected since init
            try {
                if (engine != null) {
                    BigInteger signature = engine.privateOperation(signingKey, new BigInteger(1, em));
                    RsaStats.count(OpenSslRsaEngine.NAME, true);
                    return Operands.fixedLength(signature, k);
                }
            } catch (InconsistentKeyException e) {
                // Not a key an engine takes: the next provider signs it, or says why not.
            } catch (RsaEngineException e) {
                EngineRsaSignature.warnFallback(e, next.apply("Cipher", "RSA"), true);
            }
            RsaStats.count(RsaEngines.JAVA, true);
            byte[] block = new byte[k]; // EM is k or k - 1 bytes; below n either way
            System.arraycopy(em, 0, block, k - em.length, em.length);
            try {
                return PlainRsa.privateEncrypt(next.apply("Cipher", "RSA"), "NoPadding", jcaSigningKey, block);
            } finally {
                Arrays.fill(block, (byte) 0);
            }
        } finally {
            Arrays.fill(em, (byte) 0);
        }
    }

    @Override
    protected boolean engineVerify(byte[] signature) throws SignatureException {
        if (delegate != null) return delegate.verify(signature);
        if (verifyingKey == null) throw new SignatureException("object not initialized for verification");
        byte[] mHash = ourDigest().digest();
        PSSParameterSpec pss = (PSSParameterSpec) parameters;
        BigInteger n = verifyingKey.getModulus();
        int k = Operands.byteLength(n);
        if (signature.length != k) { // as the JDK's RSASSA-PSS (RSAPSSSignature), in its words
            throw new SignatureException("Signature length not correct: got " + signature.length + " but was expecting " + k);
        }
        BigInteger s = new BigInteger(1, signature);
        if (s.compareTo(n) >= 0) return false;
        BigInteger m;
        OpenSslRsaEngine engine = RsaKeys.openssl();
        try {
            if (engine == null) throw new RsaEngineException("the openssl engine is no longer selected");
            m = engine.publicOperation(n, verifyingKey.getPublicExponent(), s);
            RsaStats.count(OpenSslRsaEngine.NAME, false);
        } catch (RsaEngineException e) {
            if (engine != null) RsaStats.fellBack(OpenSslRsaEngine.NAME, e, "fast_random's Java code (BigInteger.modPow)");
            RsaStats.count(RsaEngines.JAVA, false);
            m = s.modPow(verifyingKey.getPublicExponent(), n); // public values only: nothing to hide
        }
        int emBits = n.bitLength() - 1;
        if (m.bitLength() > emBits) return false;
        return Pss.verify(mHash, Operands.fixedLength(m, (emBits + 7) / 8), digestFor(pss.getDigestAlgorithm()), mgfDigest(pss),
                pss.getSaltLength(), n.bitLength());
    }

    @Override
    @Deprecated
    protected void engineSetParameter(String param, Object value) {
        throw new UnsupportedOperationException("setParameter() not supported");
    }

    @Override
    @Deprecated
    protected Object engineGetParameter(String param) {
        throw new UnsupportedOperationException("getParameter() not supported");
    }

    /** The message digest, once the parameters are known (as the JDK: no update before them). */
    private MessageDigest ourDigest() throws SignatureException {
        if (signingKey == null && verifyingKey == null) {
            throw new SignatureException("object not initialized for signing or verification");
        }
        if (digest == null) throw new SignatureException("Parameters required for RSASSA-PSS signatures");
        return digest;
    }

    /** Whether EMSA-PSS with the current parameters fits a modulus of this size. */
    private boolean fits(BigInteger modulus) {
        int emLength = (modulus.bitLength() - 1 + 7) / 8;
        return emLength >= digest.getDigestLength() + ((PSSParameterSpec) parameters).getSaltLength() + 2;
    }

    /** The message digest for parameters we take (MGF1, trailer field 1, digests the JDK has), else null. */
    private static MessageDigest ourDigest(PSSParameterSpec pss) {
        if (!"MGF1".equalsIgnoreCase(pss.getMGFAlgorithm()) || pss.getTrailerField() != PSSParameterSpec.TRAILER_FIELD_BC
                || pss.getSaltLength() < 0 || !(pss.getMGFParameters() instanceof MGF1ParameterSpec)) {
            return null;
        }
        try {
            MessageDigest.getInstance(((MGF1ParameterSpec) pss.getMGFParameters()).getDigestAlgorithm());
            return MessageDigest.getInstance(pss.getDigestAlgorithm());
        } catch (NoSuchAlgorithmException e) {
            return null;
        }
    }

    private static MessageDigest mgfDigest(PSSParameterSpec pss) throws SignatureException {
        return digestFor(((MGF1ParameterSpec) pss.getMGFParameters()).getDigestAlgorithm());
    }

    private static MessageDigest digestFor(String name) throws SignatureException {
        try {
            return MessageDigest.getInstance(name);
        } catch (NoSuchAlgorithmException e) {
            throw new SignatureException(e.getMessage(), e);
        }
    }

    /** The next provider takes over with the signing key this object holds (or none yet). */
    private void handOver() throws InvalidKeyException {
        handOver(null);
    }

    private void handOver(PublicKey verifying) throws InvalidKeyException {
        PrivateKey signing = jcaSigningKey;
        PublicKey publicKey = verifying != null ? verifying : verifyingKey;
        SecureRandom secureRandom = random;
        forgetKey();
        Provider provider = next.apply("Signature", "RSASSA-PSS");
        try {
            if (provider == null) throw new NoSuchAlgorithmException("no other provider has RSASSA-PSS");
            Signature signature = Signature.getInstance("RSASSA-PSS", provider);
            if (signing != null && secureRandom != null) signature.initSign(signing, secureRandom);
            else if (signing != null) signature.initSign(signing);
            else if (publicKey != null) signature.initVerify(publicKey);
            if (parameters != null) signature.setParameter(parameters);
            delegate = signature;
        } catch (NoSuchAlgorithmException | InvalidAlgorithmParameterException e) {
            throw new InvalidKeyException(e.getMessage(), e);
        }
    }

    private void forgetKey() {
        delegate = null;
        jcaSigningKey = null;
        signingKey = null;
        verifyingKey = null;
        random = null;
        if (digest != null) digest.reset();
    }
}
