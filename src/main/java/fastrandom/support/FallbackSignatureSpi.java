package fastrandom.support;

import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.SignatureException;
import java.security.SignatureSpi;

import fastrandom.jni.LibCrypto;

/**
 * What every one-call signature of fast_random (RSA PKCS#1 v1.5, ECDSA)
 * shares, for both providers: the message buffered or hashed as it comes
 * ({@link SignatureInput}), and the hand-over of a whole operation the
 * engine does not take to the fallback provider's own signature (for
 * jruby-openssl its BouncyCastle code, for the JVM-wide provider the next
 * provider in the JVM's list). Subclasses decide at init, then compute
 * {@link #sign()} and {@link #verify(byte[])} on the buffered message.
 */
public abstract class FallbackSignatureSpi extends SignatureSpi {
    private enum Mode { NONE, SIGN, VERIFY }

    /** The message of the operation in progress. */
    protected final SignatureInput message;
    private Signature delegate; // the fallback's, when it has the operation
    private Mode mode = Mode.NONE;

    /** With {@code hash} computed over long messages as they stream in (null: the message is kept as given). */
    protected FallbackSignatureSpi(LibCrypto.Hash hash) {
        this.message = new SignatureInput(hash);
    }

    /** The signature (its DER or block bytes) of the buffered message, computed here. */
    protected abstract byte[] sign() throws SignatureException;

    /** Whether {@code signature} verifies over the buffered message, computed here. */
    protected abstract boolean verify(byte[] signature) throws SignatureException;

    /** Counts an operation the fallback did whole ({@code signing}: a signature, else a verification). */
    protected void countHandedOver(boolean signing) {}

    /** Forgets the last key and message: the first step of every init. */
    protected final void forget() {
        message.reset();
        delegate = null;
        mode = Mode.NONE;
    }

    /** This object signs here from now on. */
    protected final void signHere() {
        mode = Mode.SIGN;
    }

    /** This object verifies here from now on. */
    protected final void verifyHere() {
        mode = Mode.VERIFY;
    }

    /** The fallback signs from now on, with its own checks of {@code key}. */
    protected final void handOverSign(Provider fallback, String algorithm, PrivateKey key, SecureRandom random)
            throws InvalidKeyException {
        Signature signature = signature(fallback, algorithm);
        if (random == null) signature.initSign(key);
        else signature.initSign(key, random);
        delegate = signature;
    }

    /** The fallback verifies from now on, refusing a key as it would without us. */
    protected final void handOverVerify(Provider fallback, String algorithm, PublicKey key) throws InvalidKeyException {
        Signature signature = signature(fallback, algorithm);
        signature.initVerify(key);
        delegate = signature;
    }

    /** {@code provider}'s signature {@code algorithm}; an InvalidKeyException when there is none. */
    protected static Signature signature(Provider provider, String algorithm) throws InvalidKeyException {
        try {
            if (provider == null) throw new NoSuchAlgorithmException("no other provider has " + algorithm);
            return Signature.getInstance(algorithm, provider);
        } catch (NoSuchAlgorithmException e) {
            throw new InvalidKeyException(algorithm + " is not available: " + e.getMessage(), e);
        }
    }

    @Override
    protected final void engineInitSign(PrivateKey key) throws InvalidKeyException {
        engineInitSign(key, null);
    }

    @Override
    protected final void engineUpdate(byte b) throws SignatureException {
        engineUpdate(new byte[] {b}, 0, 1);
    }

    @Override
    protected final void engineUpdate(byte[] b, int off, int len) throws SignatureException {
        if (delegate != null) {
            delegate.update(b, off, len);
        } else if (mode == Mode.NONE) {
            throw new SignatureException("object not initialized for signing or verification");
        } else {
            message.update(b, off, len);
        }
    }

    @Override
    protected final byte[] engineSign() throws SignatureException {
        if (delegate != null) {
            countHandedOver(true);
            return delegate.sign();
        }
        if (mode != Mode.SIGN) throw new SignatureException("object not initialized for signing");
        try {
            return sign();
        } finally {
            message.reset(); // back to the state after init: the same key, nothing buffered
        }
    }

    @Override
    protected final boolean engineVerify(byte[] signature) throws SignatureException {
        if (delegate != null) {
            countHandedOver(false);
            return delegate.verify(signature);
        }
        if (mode != Mode.VERIFY) throw new SignatureException("object not initialized for verification");
        try {
            return verify(signature);
        } finally {
            message.reset();
        }
    }

    // The deprecated string parameters: none, as the JDK's signatures say.

    @Override
    @Deprecated
    protected final void engineSetParameter(String param, Object value) {
        throw new UnsupportedOperationException("setParameter() not supported");
    }

    @Override
    @Deprecated
    protected final Object engineGetParameter(String param) {
        throw new UnsupportedOperationException("getParameter() not supported");
    }
}
