package fastrandom.rsa.jca;

import java.math.BigInteger;

import org.bouncycastle.crypto.CipherParameters;
import org.bouncycastle.crypto.DataLengthException;
import org.bouncycastle.crypto.engines.RSABlindedEngine;
import org.bouncycastle.crypto.params.ParametersWithRandom;
import org.bouncycastle.crypto.params.RSAKeyParameters;
import org.bouncycastle.crypto.params.RSAPrivateCrtKeyParameters;

import fastrandom.rsa.InconsistentKeyException;
import fastrandom.rsa.RsaEngine;
import fastrandom.rsa.RsaEngineException;
import fastrandom.rsa.RsaEngines;
import fastrandom.rsa.RsaPrivateKey;
import fastrandom.rsa.RsaStats;
import fastrandom.support.EngineRegistry;

/**
 * BouncyCastle's RSA block engine with the exponentiation done by one of our
 * engines: what BC's paddings (PKCS#1 v1.5, OAEP, ISO 9796-1), the PSS
 * methods of OpenSSL::PKey::RSA ({@link PssSigning}) and jruby-openssl's
 * signatures and ciphers run on once fast_random is hooked in.
 *
 * <p>It is an {@link RSABlindedEngine} because BC's cipher SPI checks for one
 * (and so anything that asks gets the same contract): the input and output
 * conversions below are exactly BC's (RSACoreEngine's), so results are
 * byte-identical to stock. The engine is the one selected when the operation
 * is initialised ({@link RsaEngines#current()}); with none (the {@code :java}
 * engine), and for private keys without CRT values, BC does the work itself.
 * Our engines blind and check their results themselves; when one fails, BC
 * does the operation instead, with one warning. {@link RsaStats} counts
 * which engine did what.
 */
public final class RsaBlockEngine extends RSABlindedEngine {
    private RsaEngine engine;
    private RSAKeyParameters key;
    private RsaPrivateKey privateKey; // set when key is a usable CRT private key
    private boolean forEncryption;

    @Override
    public void init(boolean forEncryption, CipherParameters parameters) {
        super.init(forEncryption, parameters);
        CipherParameters keyParameters = parameters instanceof ParametersWithRandom
                ? ((ParametersWithRandom) parameters).getParameters() : parameters;
        this.key = (RSAKeyParameters) keyParameters;
        this.forEncryption = forEncryption;
        this.engine = RsaEngines.current();
        this.privateKey = key instanceof RSAPrivateCrtKeyParameters ? crtKey((RSAPrivateCrtKeyParameters) key) : null;
    }

    @Override
    public byte[] processBlock(byte[] in, int inOff, int inLen) {
        if (key == null) throw new IllegalStateException("RSA engine not initialised");
        if (engine == null || (key.isPrivate() && privateKey == null)) {
            RsaStats.count(RsaEngines.JAVA, key.isPrivate());
            return super.processBlock(in, inOff, inLen);
        }
        BigInteger input = convertInput(in, inOff, inLen);
        BigInteger result;
        try {
            result = privateKey != null
                    ? engine.privateOperation(privateKey, input)
                    : engine.publicOperation(key.getModulus(), key.getExponent(), input);
        } catch (InconsistentKeyException e) {
            // Not a key an engine takes: BouncyCastle does this one, and fails
            // on it exactly as stock does.
            RsaStats.count(RsaEngines.JAVA, key.isPrivate());
            return super.processBlock(in, inOff, inLen);
        } catch (RsaEngineException e) {
            // Nothing the engine computed is released; BouncyCastle does this
            // one (with its own blinding and check), so the caller sees
            // exactly what stock jruby-openssl would.
            RsaStats.fellBack(engine.name(), e, EngineRegistry.JRUBY_OPENSSL_CODE);
            RsaStats.count(RsaEngines.JAVA, key.isPrivate());
            return super.processBlock(in, inOff, inLen);
        }
        RsaStats.count(engine.name(), key.isPrivate());
        return convertOutput(result);
    }

    /** Our key form, or null when the CRT values are missing (BC then does the work). */
    private static RsaPrivateKey crtKey(RSAPrivateCrtKeyParameters k) {
        BigInteger[] parts = {k.getPublicExponent(), k.getP(), k.getQ(), k.getDP(), k.getDQ(), k.getQInv()};
        for (BigInteger part : parts) {
            if (part == null || part.signum() <= 0) return null;
        }
        // The modulus instance comes from the JCA key object behind the Ruby
        // key (BC's RSAUtil passes getModulus() through), so it lives exactly
        // as long as that key: engines cache per-key state against it.
        return new RsaPrivateKey(k.getModulus(), k.getPublicExponent(), k.getExponent(),
                k.getP(), k.getQ(), k.getDP(), k.getDQ(), k.getQInv(), k.getModulus());
    }

    private int modulusBytes() {
        return (key.getModulus().bitLength() + 7) / 8;
    }

    // The two conversions are RSACoreEngine's (package-private in BC), kept
    // identical so lengths, leading zeros and errors match stock exactly.

    private BigInteger convertInput(byte[] in, int inOff, int inLen) {
        int maxLength = forEncryption ? modulusBytes() - 1 : modulusBytes();
        if (inLen > maxLength + 1) throw new DataLengthException("input too large for RSA cipher.");
        if (inLen == maxLength + 1 && !forEncryption) throw new DataLengthException("input too large for RSA cipher.");
        byte[] block;
        if (inOff != 0 || inLen != in.length) {
            block = new byte[inLen];
            System.arraycopy(in, inOff, block, 0, inLen);
        } else {
            block = in;
        }
        BigInteger res = new BigInteger(1, block);
        if (res.compareTo(key.getModulus()) >= 0) throw new DataLengthException("input too large for RSA cipher.");
        return res;
    }

    private byte[] convertOutput(BigInteger result) {
        byte[] output = result.toByteArray();
        if (forEncryption) {
            int outputLength = modulusBytes();
            if (output[0] == 0 && output.length > outputLength) {
                byte[] tmp = new byte[output.length - 1];
                System.arraycopy(output, 1, tmp, 0, tmp.length);
                return tmp;
            }
            if (output.length < outputLength) {
                byte[] tmp = new byte[outputLength];
                System.arraycopy(output, 0, tmp, tmp.length - output.length, output.length);
                return tmp;
            }
            return output;
        }
        byte[] rv;
        if (output[0] == 0) {
            rv = new byte[output.length - 1];
            System.arraycopy(output, 1, rv, 0, rv.length);
        } else {
            rv = output.clone();
        }
        java.util.Arrays.fill(output, (byte) 0);
        return rv;
    }
}
