package fastrandom.cipher;

import java.security.GeneralSecurityException;
import java.security.ProviderException;
import java.security.spec.AlgorithmParameterSpec;
import java.util.Arrays;

import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

import fastrandom.Faults;

/**
 * A message on the JDK's cipher ({@link JdkCipher}), given out in
 * BouncyCastle's sizes: the parameters of the init that put it there, the
 * bytes held back from the JDK as BouncyCastle holds them back (a partial
 * block; CBC decryption's whole last block too), CBC's chain, and how much
 * data came. It knows where BouncyCastle would be, so that a CBC or CTR
 * message can go on there ({@link #resumeOnBouncyCastle}); GCM's replay is
 * {@link Replay}'s. GCM decryption gives the JDK its ciphertext only at the
 * final, whole ({@link #finish}).
 */
final class JdkMessage {
    private static final int BLOCK = 16;

    private final AesCipher.Mode mode;
    // The init's parameters.
    int opmode;
    SecretKeySpec key;
    /** {@link JdkCipher#print} of the key. */
    int keyPrint;
    AlgorithmParameterSpec spec;

    /** The JDK's cipher: this message's (or the thread's spare, kept for this cipher's next message). */
    private JdkCipher jdk;
    /** Whether {@link #jdk} has this message's init and AAD. */
    private boolean started;
    /** The message's data so far, in bytes (GCM decryption: the ciphertext held for the final). */
    long dataLength;
    /** CBC and CTR: the init's IV (a copy), where each message under it starts. */
    private byte[] iv;
    /** CBC: the last ciphertext block the JDK gave (encrypting) or took (decrypting); the IV to start. */
    private final byte[] chain = new byte[BLOCK];
    /** Data held back from the JDK as BouncyCastle holds it back (up to two blocks). */
    private final byte[] pending = new byte[2 * BLOCK];
    int pendingLength;

    JdkMessage(AesCipher.Mode mode) {
        this.mode = mode;
    }

    /** A message under new parameters (the key is this cipher's own copy). */
    void start(int opmode, SecretKeySpec key, int keyPrint, AlgorithmParameterSpec spec) {
        this.opmode = opmode;
        this.key = key;
        this.keyPrint = keyPrint;
        this.spec = spec;
        iv = mode != AesCipher.Mode.GCM && spec instanceof IvParameterSpec ? ((IvParameterSpec) spec).getIV() : null;
        forget();
        chainFromIv();
    }

    /** The message is over: nothing held (zeroed); the next one, if on the JDK, starts with {@link #start} or {@link #finished}. */
    void forget() {
        started = false;
        dataLength = 0;
        if (pendingLength > 0) Arrays.fill(pending, 0, pendingLength, (byte) 0);
        pendingLength = 0;
    }

    /**
     * An update of GCM encryption, CBC or CTR: BouncyCastle's output for
     * it, or null where BouncyCastle gives nothing. If the JDK fails, it
     * throws with nothing of this input taken: the message is where it was.
     */
    byte[] update(byte[] in, int offset, int len, Buffer aad) throws GeneralSecurityException {
        int outLength = releasedBy(dataLength, len);
        if (outLength == 0) {
            System.arraycopy(in, offset, pending, pendingLength, len);
            pendingLength += len;
            dataLength += len;
            return null;
        }
        begin(aad);
        Faults.at("aes:update");
        byte[] out = new byte[outLength];
        int fromInput = outLength - pendingLength;
        int written = jdk.cipher.update(pending, 0, pendingLength, out, 0);
        written += jdk.cipher.update(in, offset, fromInput, out, written);
        if (written != outLength) throw new ProviderException("the JDK gave " + written + " bytes for " + outLength);
        if (mode == AesCipher.Mode.CBC || mode == AesCipher.Mode.CBC_NO_PADDING) {
            if (opmode == Cipher.ENCRYPT_MODE) {
                System.arraycopy(out, outLength - BLOCK, chain, 0, BLOCK);
            } else if (fromInput >= BLOCK) {
                System.arraycopy(in, offset + fromInput - BLOCK, chain, 0, BLOCK);
            } else { // the last block the JDK took began in pending
                int fromPending = BLOCK - fromInput;
                System.arraycopy(pending, pendingLength - fromPending, chain, 0, fromPending);
                System.arraycopy(in, offset, chain, fromPending, fromInput);
            }
        }
        Arrays.fill(pending, 0, pendingLength, (byte) 0);
        pendingLength = len - fromInput;
        System.arraycopy(in, offset + fromInput, pending, 0, pendingLength);
        dataLength += len;
        return out;
    }

    /**
     * The message's output from the JDK, or null where BouncyCastle raises
     * (it says what): GCM decryption takes {@code ciphertext}, the whole
     * message kept for it.
     */
    byte[] finish(Buffer aad, Buffer ciphertext) throws GeneralSecurityException {
        switch (mode) {
            case GCM:
                begin(aad);
                Faults.at("aes:final");
                if (opmode == Cipher.ENCRYPT_MODE) return jdk.cipher.doFinal(pending, 0, pendingLength);
                return jdk.cipher.doFinal(ciphertext.contiguous(), 0, ciphertext.length);
            case CBC:
                if (opmode == Cipher.ENCRYPT_MODE) {
                    int padding = BLOCK - pendingLength % BLOCK;
                    Arrays.fill(pending, pendingLength, pendingLength + padding, (byte) padding);
                    begin(aad);
                    Faults.at("aes:final");
                    return jdk.cipher.doFinal(pending, 0, pendingLength + padding);
                }
                if (pendingLength != BLOCK) return null; // "last block incomplete in decryption"
                begin(aad);
                Faults.at("aes:final");
                byte[] last = jdk.cipher.doFinal(pending, 0, BLOCK);
                int count = paddingLength(last);
                if (count == 0) return null; // "pad block corrupted"
                byte[] out = Arrays.copyOf(last, BLOCK - count);
                Arrays.fill(last, (byte) 0);
                return out;
            case CBC_NO_PADDING:
                if (pendingLength != 0) return null; // "data not block size aligned"
                begin(aad);
                Faults.at("aes:final");
                jdk.cipher.doFinal();
                return new byte[0];
            case CTR:
                begin(aad);
                Faults.at("aes:final");
                return jdk.cipher.doFinal(pending, 0, pendingLength);
            default:
                throw new IllegalStateException(mode.toString());
        }
    }

    /**
     * PKCS#7 padding's length in {@code block}, 1 to 16, or 0 if it is not
     * well formed; in constant time, accepting exactly what BouncyCastle's
     * PKCS7Padding accepts.
     */
    static int paddingLength(byte[] block) {
        int count = block[BLOCK - 1] & 0xff;
        int bad = ((count - 1) >>> 31) | ((BLOCK - count) >>> 31); // count == 0 or count > 16
        for (int i = 0; i < BLOCK; i++) {
            int inPadding = ((BLOCK - 1 - i) - count) >>> 31; // i >= BLOCK - count
            bad |= inPadding & (((block[i] & 0xff) ^ count) + 0xff) >>> 8;
        }
        return count & (bad - 1);
    }

    private void begin(Buffer aad) throws GeneralSecurityException {
        if (started) return;
        if (jdk == null) jdk = JdkCipher.take(mode);
        Faults.at("aes:init");
        jdk.init(opmode, key, keyPrint, spec);
        if (aad.length > 0) {
            Faults.at("aes:aad");
            aad.read(jdk.cipher::updateAAD, aad.length);
        }
        started = true;
    }

    /** The message is done: its JDK cipher becomes the thread's spare (or stays), and the next starts under the same init. */
    void finished() {
        if (jdk != null && jdk.putBack(mode, keyPrint)) jdk = null;
        forget();
        chainFromIv();
    }

    /** CBC: a message under the init starts its chain at the IV. */
    private void chainFromIv() {
        if (iv != null) System.arraycopy(iv, 0, chain, 0, BLOCK);
    }

    /** The JDK's cipher has another message's state, or failed: not for the next one. */
    void dropCipher() {
        jdk = null;
        started = false;
    }

    /**
     * {@code fresh}, a BouncyCastle cipher, put where this CBC or CTR
     * message is (the last block, the counter) and given the bytes held
     * back; what it gives for them was released already.
     */
    Cipher resumeOnBouncyCastle(Cipher fresh) throws GeneralSecurityException {
        fresh.init(opmode, key, new IvParameterSpec(mode == AesCipher.Mode.CTR ? counterAfter(dataLength - pendingLength) : chain));
        if (pendingLength > 0) fresh.update(pending, 0, pendingLength);
        return fresh;
    }

    /** CTR's counter block after {@code bytes} (whole blocks) of the message: the IV plus their number, big-endian. */
    private byte[] counterAfter(long bytes) {
        byte[] counter = iv.clone();
        long carry = bytes / BLOCK;
        for (int i = BLOCK - 1; i >= 0 && carry != 0; i--) {
            long sum = (counter[i] & 0xff) + (carry & 0xff);
            counter[i] = (byte) sum;
            carry = (carry >>> 8) + (sum >>> 8);
        }
        return counter;
    }

    /** The bytes BouncyCastle releases when {@code len} more come after {@code before} (its update output). */
    int releasedBy(long before, int len) {
        long after = before + len;
        return (int) ((after - heldBack(after)) - (before - heldBack(before)));
    }

    /** Bytes BouncyCastle holds back after {@code total} bytes of data. */
    private int heldBack(long total) {
        if (mode == AesCipher.Mode.CBC) return total == 0 ? 0 : (int) ((total - 1) % BLOCK) + 1; // a whole last block too
        return (int) (total % BLOCK);
    }
}
