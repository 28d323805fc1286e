package fastrandom.support;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SignatureException;
import java.util.Arrays;

import fastrandom.jni.LibCrypto;

/**
 * The message of a one-call native signature or verification
 * ({@link LibCrypto.Key}'s PKCS#1 calls, {@link EcKey#sign},
 * {@link EcKey#verify}), as a JCA {@code Signature} receives it, in pieces:
 * kept here up to {@link #HASHED_NATIVELY} bytes and hashed inside the
 * native call; a longer message streams into the JDK's digest of the same
 * hash, and the native call takes that digest instead. Without a hash
 * (NONEwithECDSA) the bytes are a digest already.
 *
 * <p>A native call takes {@code (hash, data(), 0, length(), prehashed())};
 * a fallback that signs digests takes {@link #digest()}; {@link #reset()}
 * empties it for the next message, zeroing what it kept. Not thread-safe,
 * as the {@code Signature} objects that hold one.
 */
public final class SignatureInput {
    /** Messages up to this long are hashed inside the native call; longer ones here, as they stream in. */
    public static final int HASHED_NATIVELY = 16 * 1024;

    private final LibCrypto.Hash hash; // null: the bytes are the digest
    private byte[] message = new byte[256];
    private int length;
    private MessageDigest longMessage; // once the message outgrows HASHED_NATIVELY
    private byte[] longDigest;         // its digest, once asked for

    public SignatureInput(LibCrypto.Hash hash) {
        this.hash = hash;
    }

    public void update(byte[] b, int off, int len) throws SignatureException {
        if (longMessage != null) {
            longMessage.update(b, off, len);
        } else if (hash != null && len > HASHED_NATIVELY - length) {
            longMessage = jdkDigest(hash);
            longMessage.update(message, 0, length);
            longMessage.update(b, off, len);
            Arrays.fill(message, 0, length, (byte) 0);
            length = 0;
        } else {
            if (length + len > message.length) message = Arrays.copyOf(message, Math.max(length + len, 2 * message.length));
            System.arraycopy(b, off, message, length, len);
            length += len;
        }
    }

    /** Whether {@link #data()} is a digest (a long message's, or the bytes given without a hash). */
    public boolean prehashed() {
        return hash == null || longMessage != null;
    }

    /** What the native call takes, its first {@link #length()} bytes; ends a long message. */
    public byte[] data() {
        if (longMessage == null) return message;
        if (longDigest == null) longDigest = longMessage.digest();
        return longDigest;
    }

    public int length() {
        return longMessage == null ? length : data().length;
    }

    /** The message's digest, a copy: {@link #data()} when prehashed, else the kept bytes hashed with the JDK now. */
    public byte[] digest() throws SignatureException {
        if (prehashed()) return Arrays.copyOf(data(), length());
        MessageDigest digest = jdkDigest(hash);
        digest.update(message, 0, length);
        return digest.digest();
    }

    /** Empty again, for the next message; the kept bytes are zeroed. */
    public void reset() {
        Arrays.fill(message, 0, length, (byte) 0);
        length = 0;
        longMessage = null;
        longDigest = null;
    }

    /** The JDK's digest for a hash ("SHA-256" for SHA256). */
    public static MessageDigest jdkDigest(LibCrypto.Hash hash) throws SignatureException {
        String name = hash == LibCrypto.Hash.SHA1 ? "SHA-1" : "SHA-" + hash.name().substring(3);
        try {
            return MessageDigest.getInstance(name);
        } catch (NoSuchAlgorithmException e) {
            throw new SignatureException("no " + name + " digest: " + e.getMessage());
        }
    }
}
