package fastrandom.cipher;

import java.nio.ByteBuffer;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.InvalidAlgorithmParameterException;
import java.security.InvalidKeyException;
import java.security.Key;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.Provider;
import java.security.ProviderException;
import java.security.SecureRandom;
import java.security.spec.AlgorithmParameterSpec;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

import javax.crypto.BadPaddingException;
import javax.crypto.Cipher;
import javax.crypto.CipherSpi;
import javax.crypto.IllegalBlockSizeException;
import javax.crypto.NoSuchPaddingException;
import javax.crypto.SecretKey;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

import fastrandom.support.Diagnostics;

/**
 * jruby-openssl's AES in GCM, CBC and CTR modes on the JDK's AES (SunJCE:
 * AES-NI, and for GCM the GHASH intrinsics), with BouncyCastle's behaviour,
 * which is stock's: the same bytes from each {@code update} (BouncyCastle
 * holds back a partial block, and CBC with padding a whole last block),
 * the same output, and every error raised by BouncyCastle itself.
 *
 * <p>How errors stay BouncyCastle's: whatever the JDK path would refuse
 * (bad padding, a misaligned block, a wrong tag, data after a GCM final)
 * and any parameter outside it (other IV or tag lengths, wrap modes, no
 * IV) goes to a fresh BouncyCastle cipher, given the message so far
 * (replayed); it raises its own exception or gives its answer. That is
 * also how a failing JDK call is answered: BouncyCastle finishes the
 * message (stock's result), a warning counts the faults, and the next
 * message is on the JDK again.
 *
 * <p>The replay is exact or it does not happen. CBC and CTR keep one
 * block; a GCM message keeps its AAD and data up to {@link #REPLAY_LIMIT}
 * and, past it, goes on on BouncyCastle (replayed while it still can be:
 * stock's code and speed for the rest of a long message), so a JDK
 * failure always has the whole message to replay. What cannot be replayed
 * is refused before any output: AAD after a GCM message's data is a
 * CipherError, as on MRI (OpenSSL hashes the AAD first; BouncyCastle would
 * restart the message), and so is every later call until the next init. A
 * message that fails midway is never half continued: it refuses too.
 *
 * <p>One deliberate difference: GCM decryption releases no plaintext before
 * the tag is verified, up to {@link #REPLAY_LIMIT} of ciphertext. {@code
 * update} returns nothing and {@code final} everything, where BouncyCastle
 * (and OpenSSL) return unverified plaintext from {@code update}. Past the
 * limit the message streams as stock's and MRI's do (the plaintext so far
 * comes out then, and the tag is checked at the final), so any size runs
 * in bounded memory. Concatenated, the result is the same.
 *
 * <p>Secrets: the JDK cipher a message ran on goes back to the thread,
 * re-keyed with zeros after a message under a new key ({@link JdkCipher}
 * says how long a key the thread keeps using stays); the kept message and
 * the held back bytes are zeroed when the message is done ({@link Buffer}).
 */
public final class AesCipher extends CipherSpi {
    /** The modes served, by the transformation jruby-openssl asks for (BouncyCastle's name too). */
    public enum Mode {
        GCM("AES/GCM/NoPadding", "AES/GCM/NoPadding"),
        CBC("AES/CBC/PKCS5Padding", "AES/CBC/NoPadding"),
        CBC_NO_PADDING("AES/CBC/NoPadding", "AES/CBC/NoPadding"),
        CTR("AES/CTR/NoPadding", "AES/CTR/NoPadding");

        /** What jruby-openssl asks its provider for. */
        final String transformation;
        /** What this mode asks the JDK for (CBC's padding is done here, to hold back BouncyCastle's block). */
        final String jdkTransformation;

        Mode(String transformation, String jdkTransformation) {
            this.transformation = transformation;
            this.jdkTransformation = jdkTransformation;
        }

        /** The mode jruby-openssl's {@code algorithm} names, or null if this class does not serve it. */
        public static Mode of(String algorithm) {
            for (Mode mode : values()) {
                if (mode.transformation.equalsIgnoreCase(algorithm)) return mode;
            }
            return null;
        }
    }

    private static final int BLOCK = 16;
    /**
     * The most of a GCM message kept (AAD and data; GCM decryption's
     * ciphertext until its tag is verified): a replay needs no more, and a
     * message that grows past it goes on on BouncyCastle.
     */
    static final int REPLAY_LIMIT = 16 << 20;

    private static final LongAdder JDK_MESSAGES = new LongAdder();
    private static final LongAdder BOUNCY_CASTLE_MESSAGES = new LongAdder();
    private static final AtomicLong FAULTS = new AtomicLong();
    /**
     * Tests: a JDK call whose step ("cipher", "init", "aad", "update",
     * "final") it accepts fails. Set by the test build's AesFaults only:
     * the shipped jar has no way to set it.
     */
    static volatile Predicate<String> faults;
    /**
     * While jruby-openssl's update runs on this thread: TRUE, or the GCM
     * decryption whose update returned (see {@link #callerRaised}); else
     * null. An Object[], so that the thread keeps no class of ours.
     */
    private static final ThreadLocal<Object[]> RETURNED = ThreadLocal.withInitial(() -> new Object[1]);

    private final Mode mode;
    private final Provider bouncyCastle;
    /** This cipher's JDK cipher while a message runs on it (or the thread had a spare: then kept). */
    private JdkCipher jdk;
    /** The BouncyCastle cipher the message runs on, if it does, else null. */
    private Cipher fallback;
    /** This cipher's own BouncyCastle cipher (for messages outside the JDK path), made when first needed. */
    private Cipher ownBouncyCastle;
    /** Whether the last init went to {@link #ownBouncyCastle} (which then knows every init since the JDK's last). */
    private boolean initWentToBouncyCastle;

    // The message: parameters as given to init, and its input so far.
    private int opmode;
    private SecretKeySpec key;
    /** {@link JdkCipher#print} of the key. */
    private int keyPrint;
    private AlgorithmParameterSpec spec;
    private boolean initialized;
    private boolean jdkStarted;
    /** GCM encryption finished: BouncyCastle refuses more until the next init. */
    private boolean spent;
    /** Why the message is refused until the next init (a call that could not be served exactly), or null. */
    private String refusal;
    /** GCM: the message has data (AAD after it is refused). */
    private boolean gcmData;
    /** GCM decryption past {@link #REPLAY_LIMIT}: BouncyCastle's plaintext comes out from update, as stock's. */
    private boolean streaming;
    /** The message's AAD and data so far (for a replay; GCM decryption's until its final), up to the limit. */
    private final Buffer aad = new Buffer();
    private final Buffer data = new Buffer();
    /** GCM decryption on BouncyCastle: the plaintext its updates gave, released at a final that verifies the tag. */
    private final Buffer unverified = new Buffer();
    /**
     * GCM decryption: what its last update would have released (the
     * plaintext's range on the JDK path, else the bytes it added to {@link
     * #unverified}), and the ranges of plaintext never to be released,
     * whose update raised in jruby-openssl after it returned (start, end).
     */
    private long lastReleasedFrom, lastReleasedTo;
    private long[] dropped = NO_RANGES;
    private int droppedCount;
    private static final long[] NO_RANGES = new long[0];
    /** The message's data so far, in bytes. */
    private long dataLength;
    /**
     * CBC: the last ciphertext block the JDK gave (encrypting) or took
     * (decrypting), where BouncyCastle would go on from; the IV to start.
     */
    private final byte[] chain = new byte[BLOCK];
    /** Data held back from the JDK as BouncyCastle holds it back (up to two blocks). */
    private final byte[] pending = new byte[2 * BLOCK];
    private int pendingLength;

    // BouncyCastle's GCM refuses an encryption with the key and nonce of the init before.
    private byte[] lastKey;
    private byte[] lastNonce;

    private AesCipher(Mode mode, Provider bouncyCastle) {
        this.mode = mode;
        this.bouncyCastle = bouncyCastle;
    }

    /** A new cipher for {@code mode}, falling back to jruby-openssl's {@code bouncyCastle}. */
    public static CipherSpi newInstance(Mode mode, Provider bouncyCastle) {
        return new AesCipher(mode, bouncyCastle);
    }

    /** Messages finished on the JDK (in this class loader). */
    public static long jdkMessages() {
        return JDK_MESSAGES.sum();
    }

    /** Messages finished on BouncyCastle: a parameter, call or error the JDK path leaves to it, a GCM message past the limit. */
    public static long bouncyCastleMessages() {
        return BOUNCY_CASTLE_MESSAGES.sum();
    }

    /** JDK calls that failed, whose message BouncyCastle then took over (a message it refuses too is no fault). */
    public static long faults() {
        return FAULTS.get();
    }

    // --- init ---

    @Override
    protected void engineInit(int opmode, Key key, SecureRandom random) throws InvalidKeyException {
        try {
            startOnBouncyCastle(opmode, key, null, null, random);
        } catch (InvalidAlgorithmParameterException e) {
            throw new InvalidKeyException(e.getMessage(), e);
        }
    }

    @Override
    protected void engineInit(int opmode, Key key, AlgorithmParameters params, SecureRandom random)
            throws InvalidKeyException, InvalidAlgorithmParameterException {
        startOnBouncyCastle(opmode, key, null, params, random);
    }

    @Override
    protected void engineInit(int opmode, Key key, AlgorithmParameterSpec params, SecureRandom random)
            throws InvalidKeyException, InvalidAlgorithmParameterException {
        byte[] nonce = jdkPathIv(opmode, key, params);
        if (nonce == null) {
            startOnBouncyCastle(opmode, key, params, null, random);
            return;
        }
        byte[] keyBytes = key.getEncoded(); // jruby-openssl's own array (not ours to zero)
        initialized = false;
        if (initWentToBouncyCastle) {
            // The inits before went to BouncyCastle's cipher, which remembers them (failed ones too): it decides.
            bouncyCastle().init(opmode, key, params, random);
            initWentToBouncyCastle = false;
        } else if (mode == Mode.GCM && opmode == Cipher.ENCRYPT_MODE
                && Arrays.equals(nonce, lastNonce) && MessageDigest.isEqual(keyBytes, lastKey)) {
            // BouncyCastle refuses to encrypt twice under the key and nonce of the init before: let it say so.
            Cipher cipher = newBouncyCastle();
            cipher.init(opmode, key, params, random);
            cipher.init(opmode, key, params, random);
            throw new InvalidAlgorithmParameterException("cannot reuse nonce for GCM encryption");
        }
        if (lastKey != null) Arrays.fill(lastKey, (byte) 0);
        lastKey = keyBytes.clone();
        lastNonce = nonce;
        this.opmode = opmode;
        // A key of our own: the JDK zeroes the bytes getEncoded gives it, and jruby-openssl's key gives its own.
        this.key = new SecretKeySpec(keyBytes, "AES");
        this.keyPrint = JdkCipher.print(keyBytes);
        this.spec = params;
        resetMessage();
        initialized = true;
    }

    /**
     * The IV, when the JDK path takes these parameters (AES key, a 12-byte
     * GCM nonce with a tag of 12 to 16 bytes, or a 16-byte IV), else null.
     */
    private byte[] jdkPathIv(int opmode, Key key, AlgorithmParameterSpec params) {
        if (opmode != Cipher.ENCRYPT_MODE && opmode != Cipher.DECRYPT_MODE) return null;
        if (!(key instanceof SecretKey) || !"RAW".equalsIgnoreCase(key.getFormat())) return null;
        byte[] encoded = key.getEncoded(); // jruby-openssl's key gives its own array: never zeroed here
        if (encoded == null) return null;
        int keyLength = encoded.length;
        if (keyLength != 16 && keyLength != 24 && keyLength != 32) return null;
        if (mode == Mode.GCM) {
            if (!(params instanceof GCMParameterSpec)) return null;
            GCMParameterSpec gcm = (GCMParameterSpec) params;
            int tagBits = gcm.getTLen();
            if (tagBits < 96 || tagBits > 128 || tagBits % 8 != 0) return null;
            byte[] iv = gcm.getIV();
            return iv.length == 12 ? iv : null;
        }
        if (!(params instanceof IvParameterSpec) || params instanceof GCMParameterSpec) return null;
        byte[] iv = ((IvParameterSpec) params).getIV();
        return iv.length == BLOCK ? iv : null;
    }

    /**
     * The message runs on this cipher's BouncyCastle cipher, which sees the
     * inits stock's would have: told first of the JDK's last init, if any
     * came since its own (it remembers a GCM key and nonce, and a failed
     * init can leave state behind, as stock's does).
     */
    private void startOnBouncyCastle(int opmode, Key key, AlgorithmParameterSpec spec, AlgorithmParameters params,
            SecureRandom random) throws InvalidKeyException, InvalidAlgorithmParameterException {
        resetMessage();
        initialized = false;
        Cipher cipher = bouncyCastle();
        if (!initWentToBouncyCastle && this.key != null) {
            try {
                cipher.init(Cipher.DECRYPT_MODE, this.key, this.spec); // decrypting: no nonce to refuse
            } catch (GeneralSecurityException | RuntimeException e) {
                // It took these parameters from jruby-openssl before; if not now, the init below says what is wrong.
            }
        }
        initWentToBouncyCastle = true;
        if (spec != null) cipher.init(opmode, key, spec, random);
        else if (params != null) cipher.init(opmode, key, params, random);
        else cipher.init(opmode, key, random);
        fallback = cipher;
        this.opmode = opmode;
        initialized = true;
    }

    /** This cipher's BouncyCastle cipher, for messages outside the JDK path. */
    private Cipher bouncyCastle() {
        if (ownBouncyCastle == null) ownBouncyCastle = newBouncyCastle();
        return ownBouncyCastle;
    }

    private void resetMessage() {
        fallback = null;
        jdkStarted = false;
        spent = false;
        refusal = null;
        gcmData = false;
        streaming = false;
        droppedCount = 0;
        lastReleasedFrom = lastReleasedTo = 0;
        aad.clear();
        data.clear();
        unverified.clear();
        dataLength = 0;
        Arrays.fill(pending, (byte) 0);
        pendingLength = 0;
        if (mode != Mode.GCM && spec instanceof IvParameterSpec) System.arraycopy(((IvParameterSpec) spec).getIV(), 0, chain, 0, BLOCK);
    }

    // --- update ---

    @Override
    protected void engineUpdateAAD(byte[] src, int offset, int len) {
        checkNotRefused();
        if (mode == Mode.GCM && gcmData && !spent && len > 0) {
            // OpenSSL's rule (MRI's): the AAD comes first. BouncyCastle would take it as if it had, restarting the
            // message's hash, and past the replay limit nothing could be replayed to it.
            throw refuse("couldn't set additional authenticated data: AES-GCM takes it before the message's data");
        }
        if (fallback == null) {
            checkInitialized();
            if (mode != Mode.GCM || spent) {
                moveToBouncyCastle(data.length, null); // not an AEAD mode, or after the final: BouncyCastle's error
            } else {
                if ((long) aad.length + len > REPLAY_LIMIT) {
                    moveToBouncyCastle(0, null); // more AAD than is kept: BouncyCastle takes the message
                } else {
                    aad.append(src, offset, len, 0); // for the JDK when the message's data starts
                    return;
                }
            }
        }
        fallback.updateAAD(src, offset, len);
    }

    @Override
    protected void engineUpdateAAD(ByteBuffer src) {
        byte[] bytes = new byte[src.remaining()];
        src.get(bytes);
        engineUpdateAAD(bytes, 0, bytes.length);
    }

    @Override
    protected byte[] engineUpdate(byte[] in, int offset, int len) {
        checkNotRefused();
        if (fallback == null) {
            checkInitialized();
            if (spent) moveToBouncyCastle(0, null);
        }
        if (len > 0 && mode == Mode.GCM) gcmData = true;
        if (fallback != null) return fallbackUpdate(in, offset, len);
        if (len == 0) return null;
        boolean gcmDecryption = gcmDecryption();
        if (mode == Mode.GCM && data.length + (long) len > REPLAY_LIMIT) return pastReplayLimit(in, offset, len);
        if (gcmDecryption) {
            data.append(in, offset, len, tagLength()); // room for the tag, given at the final
        } else if (mode == Mode.GCM) {
            data.append(in, offset, len, 0);
        }
        long before = dataLength;
        dataLength += len;
        if (gcmDecryption) {
            // Nothing released before the tag is verified; null where BouncyCastle gives nothing (jruby-openssl
            // takes its next IV from the input only when update gives something).
            long from = bouncyCastleDecryptOutput(before);
            long to = bouncyCastleDecryptOutput(dataLength);
            if (to == from) return null;
            returned(from, to);
            return new byte[0];
        }
        try {
            return jdkUpdate(in, offset, len, before);
        } catch (GeneralSecurityException | RuntimeException e) {
            dataLength = before; // where the JDK stopped
            moveToBouncyCastle(before, e); // all but this input, given next
            return fallback.update(in, offset, len);
        }
    }

    /** An update on BouncyCastle: GCM decryption's plaintext held until the tag is verified, up to the limit. */
    private byte[] fallbackUpdate(byte[] in, int offset, int len) {
        byte[] out = fallback.update(in, offset, len);
        if (!gcmDecryption() || streaming || out == null) return out;
        if ((long) unverified.length + out.length <= REPLAY_LIMIT) {
            returned(unverified.length, unverified.length + out.length);
            unverified.append(out, 0, out.length, 0);
            Arrays.fill(out, (byte) 0);
            return new byte[0];
        }
        streaming = true; // past the limit: stock's stream
        byte[] held = Arrays.copyOf(unverified.bytes, unverified.length);
        unverified.clear();
        return concat(held, out);
    }

    /**
     * A GCM message grows past {@link #REPLAY_LIMIT}: it goes on on
     * BouncyCastle, given its AAD and data so far (for an encryption, what
     * BouncyCastle gives for them was released already; a decryption
     * releases its plaintext so far now, and streams from here on).
     */
    private byte[] pastReplayLimit(byte[] in, int offset, int len) {
        if (gcmEncryption()) {
            moveToBouncyCastle(data.length, null);
            data.clear();
            return fallback.update(in, offset, len);
        }
        moveToBouncyCastle(0, null);
        streaming = true;
        byte[] first = data.length > 0 ? withoutDropped(fallback.update(data.bytes, 0, data.length)) : null;
        data.clear();
        return concat(first, fallback.update(in, offset, len));
    }

    @Override
    protected int engineUpdate(byte[] in, int offset, int len, byte[] out, int outOffset) throws ShortBufferException {
        if (refusal == null && fallback != null && !gcmDecryption()) return fallback.update(in, offset, len, out, outOffset);
        // Checked before the input is taken (as BouncyCastle does), so that a caller can retry.
        if (refusal == null && out.length - outOffset < updateOutputSize(len)) {
            throw new ShortBufferException("output buffer too short for input.");
        }
        return copyOut(engineUpdate(in, offset, len), out, outOffset);
    }

    /** BouncyCastle's GCM decryption output after {@code total} bytes: all but the tag's length, in whole blocks. */
    private long bouncyCastleDecryptOutput(long total) {
        long afterTag = total - tagLength();
        return afterTag <= 0 ? 0 : afterTag - afterTag % BLOCK;
    }

    /**
     * At most what an update of {@code len} bytes gives (GCM decryption:
     * nothing, unless it streams or starts to, past the limit).
     */
    private int updateOutputSize(int len) {
        if (!gcmDecryption()) return fallback != null ? 0 : releasedBy(dataLength, len);
        if (fallback != null) {
            boolean releases = streaming || (long) unverified.length + fallback.getOutputSize(len) > REPLAY_LIMIT;
            return releases ? fallback.getOutputSize(len) + unverified.length : 0;
        }
        return data.length + (long) len > REPLAY_LIMIT ? (int) Math.max(0, dataLength + len - tagLength()) : 0;
    }

    /** The bytes BouncyCastle releases when {@code len} more come after {@code before} (its update output). */
    private int releasedBy(long before, int len) {
        long after = before + len;
        return (int) ((after - heldBack(after)) - (before - heldBack(before)));
    }

    /** Bytes BouncyCastle holds back after {@code total} bytes of data. */
    private int heldBack(long total) {
        if (mode == Mode.CBC) return total == 0 ? 0 : (int) ((total - 1) % BLOCK) + 1; // a whole last block too
        return (int) (total % BLOCK);
    }

    private byte[] jdkUpdate(byte[] in, int offset, int len, long before) throws GeneralSecurityException {
        int outLength = releasedBy(before, len);
        if (outLength == 0) {
            System.arraycopy(in, offset, pending, pendingLength, len);
            pendingLength += len;
            return null;
        }
        startJdk();
        step("update");
        byte[] out = new byte[outLength];
        int fromInput = outLength - pendingLength;
        int written = jdk.cipher.update(pending, 0, pendingLength, out, 0);
        written += jdk.cipher.update(in, offset, fromInput, out, written);
        if (written != outLength) throw new ProviderException("the JDK gave " + written + " bytes for " + outLength);
        if (mode == Mode.CBC || mode == Mode.CBC_NO_PADDING) {
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
        return out;
    }

    /** GCM decryption's update released (on stock: returned) plaintext {@code from} to {@code to}. */
    private void returned(long from, long to) {
        lastReleasedFrom = from;
        lastReleasedTo = to;
        Object[] returned = RETURNED.get();
        if (returned[0] != null) returned[0] = this; // only within jruby-openssl's update (cleared when it ends)
    }

    /** jruby-openssl's {@code update} is about to call a cipher on this thread. */
    public static void callerStarts() {
        RETURNED.get()[0] = Boolean.TRUE;
    }

    /** jruby-openssl's {@code update} has returned, or raised. */
    public static void callerEnds() {
        RETURNED.get()[0] = null;
    }

    /**
     * jruby-openssl's {@code update} raised after a GCM decryption's update
     * returned (its own IV bookkeeping can, after {@code iv_len=}): stock's
     * plaintext from that update was lost with the exception, and its final
     * gives only the rest; so nothing of that update's input is released
     * later here either.
     */
    public static void callerRaised() {
        Object[] returned = RETURNED.get();
        Object cipher = returned[0];
        returned[0] = null;
        if (cipher instanceof AesCipher) ((AesCipher) cipher).dropLastUpdate();
    }

    private void dropLastUpdate() {
        if (!gcmDecryption() || streaming || lastReleasedTo == lastReleasedFrom) return;
        if (fallback != null) {
            if (lastReleasedTo == unverified.length) unverified.truncate((int) (lastReleasedTo - lastReleasedFrom));
        } else {
            if (droppedCount * 2 == dropped.length) dropped = Arrays.copyOf(dropped, Math.max(4, dropped.length * 2));
            dropped[droppedCount * 2] = lastReleasedFrom;
            dropped[droppedCount * 2 + 1] = lastReleasedTo;
            droppedCount++;
        }
        lastReleasedFrom = lastReleasedTo = 0;
    }

    /** {@code plaintext} (from the message's start) without the ranges never to be released. */
    private byte[] withoutDropped(byte[] plaintext) {
        if (droppedCount == 0 || plaintext == null) return plaintext;
        byte[] kept = new byte[plaintext.length];
        int length = 0;
        long at = 0;
        for (int i = 0; i < droppedCount; i++) {
            int from = (int) Math.min(dropped[2 * i], plaintext.length);
            int to = (int) Math.min(dropped[2 * i + 1], plaintext.length);
            if (from > at) {
                System.arraycopy(plaintext, (int) at, kept, length, (int) (from - at));
                length += (int) (from - at);
            }
            at = Math.max(at, to);
        }
        if (at < plaintext.length) {
            System.arraycopy(plaintext, (int) at, kept, length, (int) (plaintext.length - at));
            length += (int) (plaintext.length - at);
        }
        Arrays.fill(plaintext, (byte) 0);
        byte[] out = Arrays.copyOf(kept, length);
        Arrays.fill(kept, (byte) 0);
        return out;
    }

    // --- final ---

    @Override
    protected byte[] engineDoFinal(byte[] in, int offset, int len) throws IllegalBlockSizeException, BadPaddingException {
        checkNotRefused();
        if (fallback == null) {
            checkInitialized();
            if (spent) moveToBouncyCastle(0, null);
        }
        if (fallback != null) return fallbackFinal(in, offset, len);
        if (len > 0) {
            if (gcmDecryption() && data.length + (long) len <= REPLAY_LIMIT) {
                gcmData = true;
                data.append(in, offset, len, 0);
                dataLength += len;
            } else {
                return concat(engineUpdate(in, offset, len), engineDoFinal(null, 0, 0));
            }
        }
        byte[] out;
        Exception failure = null;
        try {
            out = jdkFinal();
        } catch (GeneralSecurityException | RuntimeException e) {
            out = null;
            failure = e;
            jdk = null; // not for the next message
        }
        if (out != null) {
            JDK_MESSAGES.increment();
            if (gcmDecryption()) out = withoutDropped(out);
            finished();
            return out;
        }
        // The JDK path refuses (or failed): BouncyCastle decides, from the whole message (kept: within the limit).
        Cipher cipher = null;
        try {
            cipher = bouncyCastleReplay(gcmDecryption() ? 0 : data.length);
            byte[] answer;
            if (gcmDecryption()) {
                byte[] plaintext = null; // kept until the tag is verified
                try {
                    plaintext = data.length > 0 ? cipher.update(data.bytes, 0, data.length) : null;
                    answer = withoutDropped(concat(plaintext, cipher.doFinal()));
                } catch (GeneralSecurityException | RuntimeException e) {
                    if (plaintext != null) Arrays.fill(plaintext, (byte) 0);
                    throw e;
                }
                if (plaintext != null && plaintext != answer) Arrays.fill(plaintext, (byte) 0);
            } else {
                answer = cipher.doFinal();
            }
            if (failure != null) fault(failure);
            finished();
            return answer;
        } catch (RuntimeException e) {
            finished();
            throw e;
        } catch (GeneralSecurityException e) {
            if (gcmDecryption() && cipher != null) {
                // BouncyCastle's GCM does not reset after a wrong tag, and stock's cipher stays so until its next
                // init: so does this one, on the cipher that refused.
                resetMessage();
                fallback = cipher;
            } else {
                finished();
            }
            throw asFinalException(e);
        } finally {
            BOUNCY_CASTLE_MESSAGES.increment();
        }
    }

    /** A final on BouncyCastle, which releases GCM decryption's held plaintext only with a verified tag. */
    private byte[] fallbackFinal(byte[] in, int offset, int len) throws IllegalBlockSizeException, BadPaddingException {
        try {
            byte[] out = in == null ? fallback.doFinal() : fallback.doFinal(in, offset, len);
            if (gcmDecryption() && unverified.length > 0) out = concat(Arrays.copyOf(unverified.bytes, unverified.length), out);
            finishedOnBouncyCastle();
            return out;
        } catch (IllegalBlockSizeException | BadPaddingException | RuntimeException e) {
            unverified.clear(); // a plaintext whose tag failed never comes out
            gcmData = false; // the message is over (its cipher's next AAD is BouncyCastle's to judge)
            if (fallback != ownBouncyCastle || !initWentToBouncyCastle) {
                // A replayed message: BouncyCastle's cipher would reset to the init's IV (CBC, CTR), so the next
                // message starts there, on the JDK; GCM's stays refused, as stock's does until its next init.
                if (!gcmDecryption()) finished();
            }
            throw e;
        } finally {
            BOUNCY_CASTLE_MESSAGES.increment();
        }
    }

    /**
     * After a final on BouncyCastle: this cipher's own BouncyCastle cipher,
     * reset by its final, takes the next message too (its init was one the
     * JDK path does not take); a cipher that finished a JDK message is done.
     */
    private void finishedOnBouncyCastle() {
        if (fallback == ownBouncyCastle && initWentToBouncyCastle) {
            unverified.clear();
            gcmData = false;
            streaming = false;
        } else {
            finished();
        }
    }

    @Override
    protected int engineDoFinal(byte[] in, int offset, int len, byte[] out, int outOffset)
            throws ShortBufferException, IllegalBlockSizeException, BadPaddingException {
        checkRoom(out, outOffset, len);
        return copyOut(engineDoFinal(in, offset, len), out, outOffset);
    }

    /** The message's output from the JDK, or null where BouncyCastle raises (it says what). */
    private byte[] jdkFinal() throws GeneralSecurityException {
        switch (mode) {
            case GCM:
                startJdk();
                step("final");
                if (opmode == Cipher.ENCRYPT_MODE) return jdk.cipher.doFinal(pending, 0, pendingLength);
                return jdk.cipher.doFinal(data.bytes, 0, data.length);
            case CBC:
                if (opmode == Cipher.ENCRYPT_MODE) {
                    int padding = BLOCK - pendingLength % BLOCK;
                    Arrays.fill(pending, pendingLength, pendingLength + padding, (byte) padding);
                    startJdk();
                    step("final");
                    return jdk.cipher.doFinal(pending, 0, pendingLength + padding);
                }
                if (pendingLength != BLOCK) return null; // "last block incomplete in decryption"
                startJdk();
                step("final");
                byte[] last = jdk.cipher.doFinal(pending, 0, BLOCK);
                int count = paddingLength(last);
                if (count == 0) return null; // "pad block corrupted"
                byte[] out = Arrays.copyOf(last, BLOCK - count);
                Arrays.fill(last, (byte) 0);
                return out;
            case CBC_NO_PADDING:
                if (pendingLength != 0) return null; // "data not block size aligned"
                startJdk();
                step("final");
                jdk.cipher.doFinal();
                return new byte[0];
            case CTR:
                startJdk();
                step("final");
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

    // --- the JDK and BouncyCastle ---

    private void startJdk() throws GeneralSecurityException {
        if (jdkStarted) return;
        if (jdk == null) jdk = JdkCipher.take(mode);
        step("init");
        jdk.init(opmode, key, keyPrint, spec);
        if (aad.length > 0) {
            step("aad");
            jdk.cipher.updateAAD(aad.bytes, 0, aad.length);
        }
        jdkStarted = true;
    }

    private Cipher newBouncyCastle() {
        try {
            return Cipher.getInstance(mode.transformation, bouncyCastle);
        } catch (NoSuchAlgorithmException | NoSuchPaddingException e) {
            throw new ProviderException("BouncyCastle's " + mode.transformation, e);
        }
    }

    /**
     * A new BouncyCastle cipher where the message is: for GCM, given its
     * AAD and its first {@code dataBytes} bytes of data (all kept, within
     * the limit); for CBC and CTR, started where the JDK is (the last
     * block, the counter) and given the bytes held back. What it gives for
     * them was released already.
     */
    private Cipher bouncyCastleReplay(long dataBytes) throws GeneralSecurityException {
        Cipher cipher = newBouncyCastle();
        if (mode != Mode.GCM) {
            cipher.init(opmode, key, new IvParameterSpec(mode == Mode.CTR ? counterAfter(dataLength - pendingLength) : chain));
            if (pendingLength > 0) cipher.update(pending, 0, pendingLength);
            return cipher;
        }
        cipher.init(opmode, key, spec);
        if (aad.length > 0) cipher.updateAAD(aad.bytes, 0, aad.length);
        if (dataBytes > 0) {
            byte[] released = cipher.update(data.bytes, 0, (int) dataBytes);
            if (released != null) Arrays.fill(released, (byte) 0);
        }
        if (spent) cipher.doFinal();
        return cipher;
    }

    /** CTR's counter block after {@code bytes} (whole blocks) of the message: the IV plus their number, big-endian. */
    private byte[] counterAfter(long bytes) {
        byte[] counter = ((IvParameterSpec) spec).getIV();
        long carry = bytes / BLOCK;
        for (int i = BLOCK - 1; i >= 0 && carry != 0; i--) {
            long sum = (counter[i] & 0xff) + (carry & 0xff);
            counter[i] = (byte) sum;
            carry = (carry >>> 8) + (sum >>> 8);
        }
        return counter;
    }

    /**
     * The rest of the message goes to BouncyCastle, given its AAD and first
     * {@code dataBytes} bytes of data; {@code fault}: the JDK call that
     * failed, if one did. If BouncyCastle cannot take it, the message is
     * refused until the next init.
     */
    private void moveToBouncyCastle(long dataBytes, Exception fault) {
        jdk = null; // its state is the message's, or broken: not for the next one
        try {
            fallback = bouncyCastleReplay(dataBytes);
        } catch (GeneralSecurityException | RuntimeException e) {
            throw refuse("jruby-openssl's BouncyCastle refused the message it was to go on with (" + e.getMessage() + ")");
        }
        if (fault != null) fault(fault);
    }

    /** A fault, counted; said at the 1st, 10th, 100th... */
    private static void fault(Exception e) {
        long count = FAULTS.incrementAndGet();
        long power = 1;
        while (power < count && power <= Long.MAX_VALUE / 10) power *= 10;
        if (power == count) {
            Diagnostics.warn("AES: " + (count == 1 ? "a call" : count + " calls") + " to the JDK's cipher failed (the last: "
                    + e + "); jruby-openssl's BouncyCastle finished each such message, and the next one was on the JDK"
                    + " again (said at the 1st, 10th, 100th... fault; FastRandom::AES.stats[:faults] counts them)");
        }
    }

    /** Tests: fails the JDK call at {@code name} if the test build's hook says so. */
    static void step(String name) {
        Predicate<String> failing = faults;
        if (failing != null && failing.test(name)) throw new ProviderException("injected failure of the JDK's AES at " + name);
    }

    /** Refuses this message and every call on it until the next init, with {@code why}. */
    private IllegalStateException refuse(String why) {
        fallback = null;
        jdk = null;
        jdkStarted = false;
        aad.clear();
        data.clear();
        unverified.clear();
        Arrays.fill(pending, (byte) 0);
        pendingLength = 0;
        refusal = why;
        return new IllegalStateException(why);
    }

    private void checkNotRefused() {
        if (refusal != null) throw new IllegalStateException(refusal + "; the message is refused until the cipher's next init");
    }

    private boolean gcmEncryption() {
        return mode == Mode.GCM && opmode == Cipher.ENCRYPT_MODE;
    }

    private boolean gcmDecryption() {
        return mode == Mode.GCM && opmode == Cipher.DECRYPT_MODE;
    }

    private int tagLength() {
        return ((GCMParameterSpec) spec).getTLen() / 8;
    }

    private void finished() {
        boolean gcmEncryption = gcmEncryption();
        if (jdk != null && jdk.putBack(mode, keyPrint)) jdk = null; // else kept, with this cipher's key, for its next message
        resetMessage();
        spent = gcmEncryption;
    }

    private void checkInitialized() {
        if (!initialized) throw new IllegalStateException("Cipher not initialized");
    }

    private static ProviderException asFinalException(GeneralSecurityException e)
            throws IllegalBlockSizeException, BadPaddingException {
        if (e instanceof BadPaddingException) throw (BadPaddingException) e;
        if (e instanceof IllegalBlockSizeException) throw (IllegalBlockSizeException) e;
        return new ProviderException(e.getMessage(), e);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        if (a == null || a.length == 0) return b;
        if (b == null || b.length == 0) return a;
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** BouncyCastle's check: room for what the output may be, before anything is done. */
    private void checkRoom(byte[] out, int outOffset, int inputLen) throws ShortBufferException {
        if (out == null || out.length - outOffset < engineGetOutputSize(inputLen)) {
            throw new ShortBufferException("output buffer too short for input.");
        }
    }

    private static int copyOut(byte[] result, byte[] out, int outOffset) throws ShortBufferException {
        if (result == null) return 0;
        if (out.length - outOffset < result.length) throw new ShortBufferException("output buffer too short for " + result.length + " bytes");
        System.arraycopy(result, 0, out, outOffset, result.length);
        return result.length;
    }

    // --- the rest of CipherSpi ---

    @Override
    protected void engineSetMode(String name) throws NoSuchAlgorithmException {
        throw new NoSuchAlgorithmException("the mode of " + mode.transformation + " is fixed");
    }

    @Override
    protected void engineSetPadding(String name) throws NoSuchPaddingException {
        throw new NoSuchPaddingException("the padding of " + mode.transformation + " is fixed");
    }

    @Override
    protected byte[] engineWrap(Key key) throws IllegalBlockSizeException, InvalidKeyException {
        checkInitialized();
        if (fallback == null) throw new IllegalStateException("Cipher not initialized for wrapping keys");
        return fallback.wrap(key);
    }

    @Override
    protected Key engineUnwrap(byte[] wrapped, String algorithm, int type) throws InvalidKeyException, NoSuchAlgorithmException {
        checkInitialized();
        if (fallback == null) throw new IllegalStateException("Cipher not initialized for unwrapping keys");
        return fallback.unwrap(wrapped, algorithm, type);
    }

    @Override
    protected int engineGetKeySize(Key key) throws InvalidKeyException {
        byte[] encoded = key.getEncoded();
        if (encoded == null) throw new InvalidKeyException("no encoded form of the key");
        return encoded.length * 8;
    }

    @Override
    protected int engineGetBlockSize() {
        return BLOCK;
    }

    @Override
    protected int engineGetOutputSize(int inputLen) {
        if (fallback != null) return fallback.getOutputSize(inputLen) + unverified.length;
        long total = dataLength + inputLen;
        if (mode == Mode.GCM) {
            int tag = spec instanceof GCMParameterSpec ? ((GCMParameterSpec) spec).getTLen() / 8 : BLOCK;
            return (int) (opmode == Cipher.ENCRYPT_MODE ? pendingLength + inputLen + tag : Math.max(0, total - tag));
        }
        int buffered = pendingLength + inputLen;
        if (mode == Mode.CBC && opmode == Cipher.ENCRYPT_MODE) return buffered - buffered % BLOCK + BLOCK;
        return buffered;
    }

    @Override
    protected byte[] engineGetIV() {
        if (fallback != null) return fallback.getIV();
        if (spec instanceof GCMParameterSpec) return ((GCMParameterSpec) spec).getIV();
        if (spec instanceof IvParameterSpec) return ((IvParameterSpec) spec).getIV();
        return null;
    }

    @Override
    protected AlgorithmParameters engineGetParameters() {
        if (fallback != null) return fallback.getParameters();
        if (!initialized) return null;
        try {
            // BouncyCastle's, for the same parameters (decrypting: no nonce to refuse).
            Cipher cipher = newBouncyCastle();
            cipher.init(Cipher.DECRYPT_MODE, key, spec);
            return cipher.getParameters();
        } catch (GeneralSecurityException e) {
            throw new ProviderException(e);
        }
    }
}
