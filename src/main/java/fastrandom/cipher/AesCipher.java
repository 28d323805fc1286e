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
import java.security.Security;
import java.security.spec.AlgorithmParameterSpec;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * IV) goes to a fresh BouncyCastle cipher, given the message so far; it
 * raises its own exception or gives its answer. That is also how a failing
 * JDK call is answered: BouncyCastle finishes the message (stock's result),
 * one warning is given, and the next message is on the JDK again. So the
 * message is kept (copied) until its final.
 *
 * <p>One deliberate difference: GCM decryption releases no plaintext before
 * the tag is verified. {@code update} returns nothing and {@code final}
 * everything, where BouncyCastle (and OpenSSL) return unverified plaintext
 * from {@code update}. Concatenated, the result is the same.
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
     * The most of a GCM encryption kept for BouncyCastle to take over from
     * (CBC and CTR keep one block; GCM decryption keeps all, as the JDK does).
     */
    private static final int RECORD_LIMIT = 16 << 20;
    private static final String JDK_PROVIDER = "SunJCE";

    private static final LongAdder JDK_MESSAGES = new LongAdder();
    private static final LongAdder BOUNCY_CASTLE_MESSAGES = new LongAdder();
    private static final LongAdder FAULTS = new LongAdder();
    private static final AtomicBoolean WARNED = new AtomicBoolean();
    private static volatile Provider jdkProvider;
    /**
     * A spare JDK cipher per mode, per thread (getting one from the JDK
     * costs about as much as a short message): per mode, the cipher and the
     * GCM key and nonce it last encrypted with. JDK classes only, no class
     * of ours, whose loader a container's long-lived thread would then keep
     * past an undeploy.
     */
    private static final ThreadLocal<Object[]> SPARES = ThreadLocal.withInitial(() -> new Object[3 * Mode.values().length]);
    /** Tests: a JDK call whose step ("cipher", "init", "aad", "update", "final") it accepts fails. */
    private static volatile Predicate<String> faults;

    private final Mode mode;
    private final Provider bouncyCastle;
    /** This cipher's JDK cipher, made at its first message. */
    private JdkCipher jdk;
    /** The BouncyCastle cipher the message runs on, if it does, else null. */
    private Cipher fallback;
    /** This cipher's own BouncyCastle cipher (for messages outside the JDK path), made when first needed. */
    private Cipher ownBouncyCastle;
    /** Whether the last init went to {@link #ownBouncyCastle} (which then knows every init since the JDK's last). */
    private boolean initWentToBouncyCastle;

    // The message: parameters as given to init, and its input so far.
    private int opmode;
    private Key key;
    private AlgorithmParameterSpec spec;
    private boolean initialized;
    private boolean jdkStarted;
    /** GCM encryption finished: BouncyCastle refuses more until the next init. */
    private boolean spent;
    /** The message's AAD and data so far (for BouncyCastle, should it finish the message; GCM decryption's until its final). */
    private final Buffer aad = new Buffer();
    private final Buffer data = new Buffer();
    /** GCM decryption on BouncyCastle: the plaintext its updates gave, released at a final that verifies the tag. */
    private final Buffer unverified = new Buffer();
    /** The message's data so far, in bytes. */
    private long dataLength;
    /**
     * CBC: the last ciphertext block the JDK gave (encrypting) or took
     * (decrypting), where BouncyCastle would go on from; the IV to start.
     */
    private final byte[] chain = new byte[BLOCK];
    /** A GCM encryption past {@link #RECORD_LIMIT}: no longer kept, so a failing JDK call can no longer be handed over. */
    private boolean unrecorded;
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

    /** Messages finished on BouncyCastle: a parameter, call or error the JDK path leaves to it. */
    public static long bouncyCastleMessages() {
        return BOUNCY_CASTLE_MESSAGES.sum();
    }

    /** JDK calls that failed, whose message BouncyCastle then took over (a message it refuses too is no fault). */
    public static long faults() {
        return FAULTS.sum();
    }

    /** Tests: JDK calls at the steps {@code failing} accepts throw; null: none. */
    public static void setFaults(Predicate<String> failing) {
        faults = failing;
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
        byte[] keyBytes = key.getEncoded();
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
        lastKey = keyBytes.clone();
        lastNonce = nonce;
        this.opmode = opmode;
        // A key of our own: the JDK zeroes the bytes getEncoded gives it, and jruby-openssl's key gives its own.
        this.key = new SecretKeySpec(keyBytes, "AES");
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
        byte[] encoded = key.getEncoded();
        if (encoded == null || (encoded.length != 16 && encoded.length != 24 && encoded.length != 32)) return null;
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
        aad.clear();
        data.clear();
        unverified.clear();
        dataLength = 0;
        pendingLength = 0;
        unrecorded = false;
        if (mode != Mode.GCM && spec instanceof IvParameterSpec) System.arraycopy(((IvParameterSpec) spec).getIV(), 0, chain, 0, BLOCK);
    }

    // --- update ---

    @Override
    protected void engineUpdateAAD(byte[] src, int offset, int len) {
        if (fallback == null) {
            checkInitialized();
            if (mode != Mode.GCM || spent || (dataLength > 0 && opmode == Cipher.ENCRYPT_MODE)) {
                // Not an AEAD mode, after the final, or AAD after data (the JDK hashes AAD first): BouncyCastle's
                // call (which takes late AAD as if it came first).
                moveToBouncyCastle(data.length, null);
            } else {
                aad.append(src, offset, len, 0); // for the JDK when the message's data starts
                return;
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
        if (fallback == null) {
            checkInitialized();
            if (spent) moveToBouncyCastle(0, null);
        }
        boolean gcmDecryption = gcmDecryption();
        if (fallback != null) {
            byte[] out = fallback.update(in, offset, len);
            if (!gcmDecryption || out == null) return out;
            unverified.append(out, 0, out.length, 0); // BouncyCastle's plaintext, held until its tag is verified
            return new byte[0];
        }
        if (len == 0) return null;
        if (gcmDecryption) {
            data.append(in, offset, len, tagLength()); // room for the tag, given at the final
        } else if (mode == Mode.GCM && !unrecorded) {
            if (data.length + (long) len <= RECORD_LIMIT) {
                data.append(in, offset, len, 0);
            } else {
                data.clear();
                unrecorded = true;
            }
        }
        long before = dataLength;
        dataLength += len;
        if (gcmDecryption) {
            // Nothing released before the tag is verified; null where BouncyCastle gives nothing (jruby-openssl
            // takes its next IV from the input only when update gives something).
            return bouncyCastleDecryptOutput(dataLength) > bouncyCastleDecryptOutput(before) ? new byte[0] : null;
        }
        try {
            return jdkUpdate(in, offset, len, before);
        } catch (GeneralSecurityException | RuntimeException e) {
            dataLength = before; // where the JDK stopped
            moveToBouncyCastle(before, e); // all but this input, given next
            return fallback.update(in, offset, len);
        }
    }

    @Override
    protected int engineUpdate(byte[] in, int offset, int len, byte[] out, int outOffset) throws ShortBufferException {
        if (fallback != null && !gcmDecryption()) return fallback.update(in, offset, len, out, outOffset);
        // Checked before the input is taken (as BouncyCastle does), so that a caller can retry.
        if (out.length - outOffset < updateOutputSize(len)) throw new ShortBufferException("output buffer too short for input.");
        return copyOut(engineUpdate(in, offset, len), out, outOffset);
    }

    /** BouncyCastle's GCM decryption output after {@code total} bytes: all but the tag's length, in whole blocks. */
    private long bouncyCastleDecryptOutput(long total) {
        long afterTag = total - tagLength();
        return afterTag <= 0 ? 0 : afterTag - afterTag % BLOCK;
    }

    /** What an update of {@code len} bytes gives on the JDK path (GCM decryption: nothing). */
    private int updateOutputSize(int len) {
        return gcmDecryption() || fallback != null ? 0 : releasedBy(dataLength, len);
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
        pendingLength = len - fromInput;
        System.arraycopy(in, offset + fromInput, pending, 0, pendingLength);
        return out;
    }

    // --- final ---

    @Override
    protected byte[] engineDoFinal(byte[] in, int offset, int len) throws IllegalBlockSizeException, BadPaddingException {
        if (fallback == null) {
            checkInitialized();
            if (spent) moveToBouncyCastle(0, null);
        }
        if (fallback != null) {
            try {
                byte[] out = in == null ? fallback.doFinal() : fallback.doFinal(in, offset, len);
                if (gcmDecryption() && unverified.length > 0) out = concat(Arrays.copyOf(unverified.bytes, unverified.length), out);
                finishedOnBouncyCastle();
                return out;
            } finally {
                BOUNCY_CASTLE_MESSAGES.increment();
            }
        }
        if (len > 0) {
            if (gcmDecryption()) {
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
            finished();
            return out;
        }
        // The JDK path refuses (or failed): BouncyCastle decides, from the whole message.
        Cipher cipher = null;
        try {
            cipher = bouncyCastleReplay(gcmDecryption() ? 0 : data.length);
            byte[] answer;
            if (gcmDecryption()) {
                byte[] plaintext = data.length > 0 ? cipher.update(data.bytes, 0, data.length) : null; // kept until the tag is verified
                answer = concat(plaintext, cipher.doFinal());
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

    /**
     * After a final on BouncyCastle: this cipher's own BouncyCastle cipher,
     * reset by its final, takes the next message too (its init was one the
     * JDK path does not take); a cipher that finished a JDK message is done.
     */
    private void finishedOnBouncyCastle() {
        if (fallback == ownBouncyCastle && initWentToBouncyCastle) {
            unverified.clear();
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
        boolean gcmEncryption = gcmEncryption();
        byte[] nonce = gcmEncryption ? ((GCMParameterSpec) spec).getIV() : null;
        if (jdk == null) {
            jdk = JdkCipher.takeSpare(mode);
        }
        if (jdk == null) {
            step("cipher");
            jdk = new JdkCipher(Cipher.getInstance(mode.jdkTransformation, jdkProvider()));
        }
        step("init");
        if (gcmEncryption && jdk.encrypted(key, nonce)) {
            // The JDK refuses to encrypt again with the key and nonce its GCM cipher last encrypted with. Its
            // cipher is the thread's, shared by every Cipher here, where stock refuses only a Cipher's own
            // repeat (BouncyCastle's rule, checked at init): an init with another nonce, which encrypts
            // nothing, makes it forget them.
            byte[] other = nonce.clone();
            other[0] ^= 1;
            jdk.cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(BLOCK * 8, other));
        }
        jdk.cipher.init(opmode, key, spec);
        if (gcmEncryption) jdk.encrypting(key, nonce);
        if (aad.length > 0) {
            step("aad");
            jdk.cipher.updateAAD(aad.bytes, 0, aad.length);
        }
        jdkStarted = true;
    }

    /** A JDK cipher, and for GCM the key and nonce it last encrypted with (which it would refuse next). */
    private static final class JdkCipher {
        final Cipher cipher;
        private byte[] key;
        private byte[] nonce;

        JdkCipher(Cipher cipher) {
            this.cipher = cipher;
        }

        boolean encrypted(Key key, byte[] nonce) {
            return Arrays.equals(nonce, this.nonce) && MessageDigest.isEqual(((SecretKeySpec) key).getEncoded(), this.key);
        }

        void encrypting(Key key, byte[] nonce) {
            this.key = ((SecretKeySpec) key).getEncoded();
            this.nonce = nonce;
        }

        /** The thread's spare cipher for {@code mode}, taken, or null. */
        static JdkCipher takeSpare(Mode mode) {
            Object[] spares = SPARES.get();
            int at = 3 * mode.ordinal();
            if (spares[at] == null) return null;
            JdkCipher spare = new JdkCipher((Cipher) spares[at]);
            spare.key = (byte[]) spares[at + 1];
            spare.nonce = (byte[]) spares[at + 2];
            Arrays.fill(spares, at, at + 3, null);
            return spare;
        }

        /** Keeps this cipher as the thread's spare for {@code mode}, unless it has one. */
        boolean keepAsSpare(Mode mode) {
            Object[] spares = SPARES.get();
            int at = 3 * mode.ordinal();
            if (spares[at] != null) return false;
            spares[at] = cipher;
            spares[at + 1] = key;
            spares[at + 2] = nonce;
            return true;
        }
    }

    private static Provider jdkProvider() throws NoSuchAlgorithmException {
        Provider provider = jdkProvider;
        if (provider == null) {
            provider = Security.getProvider(JDK_PROVIDER);
            if (provider == null) throw new NoSuchAlgorithmException("the JDK's " + JDK_PROVIDER + " provider is not installed");
            jdkProvider = provider;
        }
        return provider;
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
     * AAD and its first {@code dataBytes} bytes of data (its GCM takes AAD
     * given late as if it came first); for CBC and CTR, started where the
     * JDK is (the last block, the counter) and given the bytes held back.
     * What it gives for them was released already.
     */
    private Cipher bouncyCastleReplay(long dataBytes) throws GeneralSecurityException {
        Cipher cipher = newBouncyCastle();
        if (mode != Mode.GCM) {
            cipher.init(opmode, key, new IvParameterSpec(mode == Mode.CTR ? counterAfter(dataLength - pendingLength) : chain));
            if (pendingLength > 0) cipher.update(pending, 0, pendingLength);
            return cipher;
        }
        if (unrecorded && dataBytes > 0) {
            throw new ProviderException("more than " + (RECORD_LIMIT >> 20) + " MB of this AES-GCM message went to the JDK"
                    + " before its cipher failed, too much to keep for jruby-openssl's BouncyCastle to finish it");
        }
        cipher.init(opmode, key, spec);
        if (aad.length > 0) cipher.updateAAD(aad.bytes, 0, aad.length);
        if (dataBytes > 0) cipher.update(data.bytes, 0, (int) dataBytes);
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
     * {@code dataBytes} bytes of data; {@code fault}: the JDK call that failed, if one did.
     */
    private void moveToBouncyCastle(long dataBytes, Exception fault) {
        jdk = null; // its state is the message's, or broken: not for the next one
        try {
            fallback = bouncyCastleReplay(dataBytes);
        } catch (GeneralSecurityException e) {
            throw new ProviderException("BouncyCastle refused the message it is to finish: " + e.getMessage(), e);
        }
        if (fault != null) fault(fault);
    }

    private static void fault(Exception e) {
        FAULTS.increment();
        if (WARNED.compareAndSet(false, true)) {
            Diagnostics.warn("AES: a call to the JDK's cipher failed (" + e + "); jruby-openssl's BouncyCastle finished"
                    + " the message, and the next one is on the JDK again (said once)");
        }
    }

    private static void step(String name) {
        Predicate<String> failing = faults;
        if (failing != null && failing.test(name)) throw new ProviderException("injected failure of the JDK's AES at " + name);
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
        if (jdk != null) {
            // The JDK's cipher waits for this thread's next message, which will init it.
            if (jdk.keepAsSpare(mode)) jdk = null;
        }
        resetMessage();
        spent = gcmEncryption;
    }

    /**
     * Bytes kept for a message, in one array that grows as they come: the
     * thread's spare one when it is big enough (a message's copy then costs
     * no allocation), zeroed and given back when the message is done.
     */
    private static final class Buffer {
        private static final byte[] NONE = new byte[0];
        /** The largest array a thread keeps between messages. */
        private static final int KEPT = 1 << 17;
        private static final ThreadLocal<byte[][]> SPARE = ThreadLocal.withInitial(() -> new byte[1][]);
        byte[] bytes = NONE;
        int length;

        /** Appends, leaving {@code room} spare bytes if the array has to grow. */
        void append(byte[] src, int offset, int len, int room) {
            if (bytes.length - length < len) grow(length + len + room);
            System.arraycopy(src, offset, bytes, length, len);
            length += len;
        }

        private void grow(int size) {
            if (bytes == NONE) {
                byte[][] spare = SPARE.get();
                if (spare[0] != null && spare[0].length >= size) {
                    bytes = spare[0];
                    spare[0] = null;
                    return;
                }
            }
            bytes = Arrays.copyOf(bytes, Math.max(size, 2 * bytes.length));
        }

        /** Forgets the bytes: zeroed, the array goes back to the thread if it is worth keeping. */
        void clear() {
            if (bytes == NONE) return;
            Arrays.fill(bytes, 0, length, (byte) 0);
            if (bytes.length <= KEPT) {
                byte[][] spare = SPARE.get();
                if (spare[0] == null || spare[0].length < bytes.length) spare[0] = bytes;
            }
            bytes = NONE;
            length = 0;
        }
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
