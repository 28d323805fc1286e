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
 * <p>A message is in one {@link State} at a time, and each call moves it:
 * an init puts it on the JDK path ({@link JdkMessage}), or on this
 * cipher's own BouncyCastle cipher for parameters outside that path
 * (other IV or tag lengths, wrap modes, no IV). Whatever the JDK path
 * would refuse (bad padding, a misaligned block, a wrong tag, data after a
 * GCM final) and any JDK call that fails hands the message to a fresh
 * BouncyCastle cipher, given the message so far ({@link Replay}), which
 * raises its own exception or gives its answer; a JDK failure is counted
 * and warned of, and the next message is on the JDK again. The replay is
 * exact or it does not happen: what cannot be replayed is refused before
 * any output, and so is every later call until the next init (AAD after a
 * GCM message's data, as on MRI).
 *
 * <p>One deliberate difference: GCM decryption releases no plaintext
 * before the tag is verified, up to {@link Replay#LIMIT} of ciphertext
 * (the tag not counted) and within the {@link MemoryBudget} of all open
 * messages ({@link HeldPlaintext}). {@code update} returns nothing and
 * {@code final} everything, where BouncyCastle (and OpenSSL) return
 * unverified plaintext from {@code update}. Past the limit or the budget
 * the message streams as stock's and MRI's do (the plaintext so far comes
 * out then, and the tag is checked at the final). Concatenated, the result
 * is the same.
 *
 * <p>Secrets: the JDK cipher a message ran on goes back to the thread,
 * re-keyed with zeros after a message under a new key ({@link JdkCipher}
 * says how long a key the thread keeps using stays); what a message held
 * is zeroed when it is done ({@link Buffer}).
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

    /** Where the message is. */
    enum State {
        /** No init yet, or the last one failed: every call but an init is "Cipher not initialized". */
        NOT_INITIALIZED,
        /** On the JDK path, from an init until its final (then a new message there), a hand-over or a refusal. */
        ON_JDK,
        /**
         * On a BouncyCastle cipher: this cipher's own (an init outside the
         * JDK path; it stays there, message after message, until an init
         * the JDK path takes) or a fresh one, handed the message (until its
         * final: the next message is on the JDK). GCM decryption holds its
         * plaintext until the tag is verified.
         */
        ON_BOUNCY_CASTLE,
        /** GCM decryption on BouncyCastle past the limit or the budget: its plaintext comes out from update, as stock's. */
        STREAMING,
        /** A GCM encryption finished on the JDK: BouncyCastle refuses more until the next init, and gives that refusal. */
        SPENT,
        /** A call could not be served exactly: it and every later call are refused until the next init. */
        REFUSED
    }

    private static final int BLOCK = 16;
    private static final String REFUSED_AAD = "couldn't set additional authenticated data: AES-GCM takes it before the message's data";

    private static final LongAdder JDK_MESSAGES = new LongAdder();
    private static final LongAdder BOUNCY_CASTLE_MESSAGES = new LongAdder();
    private static final AtomicLong FAULTS = new AtomicLong();

    private final Mode mode;
    private final Provider bouncyCastle;
    /** The bindings' view of jruby-openssl's update (null: no bindings, as for a plain JCA caller). */
    private final UpdateCalls calls;
    /** This cipher's own BouncyCastle cipher (for messages outside the JDK path), made when first needed. */
    private Cipher ownBouncyCastle;
    /** Whether the last init went to {@link #ownBouncyCastle} (which then knows every init since the JDK's last). */
    private boolean initWentToBouncyCastle;
    // BouncyCastle's GCM refuses an encryption with the key and nonce of the init before.
    private byte[] lastKey;
    private byte[] lastNonce;

    // The message.
    private State state = State.NOT_INITIALIZED;
    private int opmode;
    /** The JDK path, and the parameters of the last init that took it. */
    private final JdkMessage jdk;
    /** GCM's AAD and data, kept for a replay (and a decryption's for the JDK's final). */
    private final Replay replay = new Replay();
    /** GCM decryption's plaintext until the tag is verified. */
    private final HeldPlaintext held = new HeldPlaintext();
    /** {@link State#ON_BOUNCY_CASTLE}, {@link State#STREAMING}: the cipher the message runs on. */
    private Cipher onBouncyCastle;
    /** {@link State#REFUSED}: why. */
    private String refusal;
    /** GCM: the message has data (AAD after it is refused). */
    private boolean gcmData;

    private AesCipher(Mode mode, Provider bouncyCastle, UpdateCalls calls) {
        this.mode = mode;
        this.bouncyCastle = bouncyCastle;
        this.calls = calls;
        this.jdk = new JdkMessage(mode);
    }

    /**
     * A new cipher for {@code mode}, falling back to jruby-openssl's {@code
     * bouncyCastle}; {@code calls}: the bindings' view of jruby-openssl's
     * update (null for a caller without one).
     */
    public static CipherSpi newInstance(Mode mode, Provider bouncyCastle, UpdateCalls calls) {
        return new AesCipher(mode, bouncyCastle, calls);
    }

    /** Messages finished on the JDK (in this class loader). */
    public static long jdkMessages() {
        return JDK_MESSAGES.sum();
    }

    /** Messages finished on BouncyCastle: a parameter, call or error the JDK path leaves to it, a GCM message past the limit or budget. */
    public static long bouncyCastleMessages() {
        return BOUNCY_CASTLE_MESSAGES.sum();
    }

    /** JDK calls that failed, whose message BouncyCastle then took over (a message it refuses too is no fault). */
    public static long faults() {
        return FAULTS.get();
    }

    /** Bytes all open GCM messages hold now (counted ones: see {@link MemoryBudget}). */
    public static long heldBytes() {
        return MemoryBudget.held();
    }

    /** The {@link MemoryBudget}, in bytes. */
    public static long budgetBytes() {
        return MemoryBudget.BYTES;
    }

    /** GCM messages that went on as stock's because the budget was used. */
    public static long overBudget() {
        return MemoryBudget.refused();
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
        endMessage(State.NOT_INITIALIZED);
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
        jdk.start(opmode, new SecretKeySpec(keyBytes, "AES"), JdkCipher.print(keyBytes), params);
        state = State.ON_JDK;
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
        endMessage(State.NOT_INITIALIZED);
        Cipher cipher = bouncyCastle();
        if (!initWentToBouncyCastle && jdk.key != null) {
            try {
                cipher.init(Cipher.DECRYPT_MODE, jdk.key, jdk.spec); // decrypting: no nonce to refuse
            } catch (GeneralSecurityException | RuntimeException e) {
                // It took these parameters from jruby-openssl before; if not now, the init below says what is wrong.
            }
        }
        initWentToBouncyCastle = true;
        if (spec != null) cipher.init(opmode, key, spec, random);
        else if (params != null) cipher.init(opmode, key, params, random);
        else cipher.init(opmode, key, random);
        this.opmode = opmode;
        onBouncyCastle = cipher;
        state = State.ON_BOUNCY_CASTLE;
    }

    /** This cipher's BouncyCastle cipher, for messages outside the JDK path. */
    private Cipher bouncyCastle() {
        if (ownBouncyCastle == null) ownBouncyCastle = newBouncyCastle();
        return ownBouncyCastle;
    }

    // --- AAD ---

    @Override
    protected void engineUpdateAAD(byte[] src, int offset, int len) {
        checkNotRefused();
        if (mode == Mode.GCM && gcmData && len > 0) {
            // OpenSSL's rule (MRI's): the AAD comes first. BouncyCastle would take it as if it had, restarting the
            // message's hash, and past the replay limit nothing could be replayed to it.
            throw refuse(REFUSED_AAD);
        }
        switch (state) {
            case NOT_INITIALIZED:
                throw notInitialized();
            case SPENT:
                handOver(0, null); // BouncyCastle's error
                break;
            case ON_JDK:
                if (mode == Mode.GCM && replay.keepAad(src, offset, len)) return; // for the JDK when the data starts
                handOver(0, null); // not an AEAD mode (BouncyCastle's error), or more AAD than is kept
                break;
            default:
                break;
        }
        onBouncyCastle.updateAAD(src, offset, len);
    }

    @Override
    protected void engineUpdateAAD(ByteBuffer src) {
        byte[] bytes = new byte[src.remaining()];
        src.get(bytes);
        engineUpdateAAD(bytes, 0, bytes.length);
    }

    // --- update ---

    @Override
    protected byte[] engineUpdate(byte[] in, int offset, int len) {
        checkNotRefused();
        if (state == State.NOT_INITIALIZED) throw notInitialized();
        if (state == State.SPENT) handOver(0, null);
        if (len > 0 && mode == Mode.GCM) gcmData = true;
        if (state != State.ON_JDK) return bouncyCastleUpdate(in, offset, len);
        if (len == 0) return null;
        if (gcmDecryption()) return holdCiphertext(in, offset, len);
        if (mode == Mode.GCM && !replay.keepData(in, offset, len, 0, 0)) {
            handOver(replay.data.length, null); // past the limit or the budget: BouncyCastle goes on, as stock's
            replay.clear();
            return onBouncyCastle.update(in, offset, len);
        }
        try {
            return jdk.update(in, offset, len, replay.aad);
        } catch (GeneralSecurityException | RuntimeException e) {
            handOver(jdk.dataLength, e); // the message as it was before this input, which it is given next
            return onBouncyCastle.update(in, offset, len);
        }
    }

    @Override
    protected int engineUpdate(byte[] in, int offset, int len, byte[] out, int outOffset) throws ShortBufferException {
        boolean onBouncyCastleAlone = state == State.ON_BOUNCY_CASTLE && !gcmDecryption();
        if (onBouncyCastleAlone) return onBouncyCastle.update(in, offset, len, out, outOffset);
        // Checked before the input is taken (as BouncyCastle does), so that a caller can retry.
        boolean served = state != State.REFUSED && state != State.NOT_INITIALIZED;
        if (served && out.length - outOffset < updateOutputSize(len)) {
            throw new ShortBufferException("output buffer too short for input.");
        }
        return copyOut(engineUpdate(in, offset, len), out, outOffset);
    }

    /**
     * GCM decryption on the JDK path: the ciphertext is kept for the final,
     * and nothing is released; null where BouncyCastle gives nothing
     * (jruby-openssl takes its next IV from the input only when update
     * gives something). Past the limit or the budget, it streams.
     */
    private byte[] holdCiphertext(byte[] in, int offset, int len) {
        if (!replay.keepData(in, offset, len, tagRoom(len), tagLength())) return stream(in, offset, len);
        long before = jdk.dataLength;
        jdk.dataLength += len;
        long from = bouncyCastleDecryptOutput(before);
        long to = bouncyCastleDecryptOutput(jdk.dataLength);
        if (to == from) return null;
        returned(from, to);
        return new byte[0];
    }

    /**
     * GCM decryption goes on as stock's: on BouncyCastle, given the AAD and
     * the ciphertext kept, it releases the plaintext so far (but the ranges
     * never to be released) and streams from here on.
     */
    private byte[] stream(byte[] in, int offset, int len) {
        handOver(0, null);
        state = State.STREAMING;
        Buffer kept = replay.data;
        byte[] first = kept.length > 0 ? held.withoutDropped(onBouncyCastle.update(kept.contiguous(), 0, kept.length)) : null;
        replay.clear();
        return concat(first, onBouncyCastle.update(in, offset, len));
    }

    /** An update on BouncyCastle: GCM decryption's plaintext held until the tag is verified, within the limit and budget. */
    private byte[] bouncyCastleUpdate(byte[] in, int offset, int len) {
        byte[] out = onBouncyCastle.update(in, offset, len);
        if (state == State.STREAMING || !gcmDecryption() || out == null) return out;
        if (held.hold(out)) {
            noteReturned();
            return new byte[0];
        }
        state = State.STREAMING; // past the limit or the budget: stock's stream
        return concat(held.takeAll(), out);
    }

    /** BouncyCastle's GCM decryption output after {@code total} bytes: all but the tag's length, in whole blocks. */
    private long bouncyCastleDecryptOutput(long total) {
        long afterTag = total - tagLength();
        return afterTag <= 0 ? 0 : afterTag - afterTag % BLOCK;
    }

    /**
     * At most what an update of {@code len} bytes gives (GCM decryption:
     * nothing, unless it streams or may start to: past the limit, or where
     * holding it needs bytes the budget has not now; another thread may
     * take them in between, and then the update's output may not fit).
     */
    private int updateOutputSize(int len) {
        if (!gcmDecryption()) return state != State.ON_JDK ? 0 : jdk.releasedBy(jdk.dataLength, len);
        if (state == State.ON_JDK) {
            boolean mayStream = replay.mayNotKeep(len, tagRoom(len));
            return mayStream ? (int) Math.max(0, jdk.dataLength + len - tagLength()) : 0;
        }
        int output = onBouncyCastle.getOutputSize(len);
        boolean mayStream = state == State.STREAMING || held.mayNotHold(output);
        return mayStream ? output + held.length() : 0;
    }

    // --- final ---

    @Override
    protected byte[] engineDoFinal(byte[] in, int offset, int len) throws IllegalBlockSizeException, BadPaddingException {
        checkNotRefused();
        if (state == State.NOT_INITIALIZED) throw notInitialized();
        if (state == State.SPENT) handOver(0, null);
        if (state != State.ON_JDK) return bouncyCastleFinal(in, offset, len);
        if (len > 0) {
            if (!gcmDecryption()) return concat(engineUpdate(in, offset, len), engineDoFinal(null, 0, 0));
            gcmData = true;
            if (!replay.keepData(in, offset, len, tagLength(), 0)) {
                byte[] first = stream(in, offset, len); // released only if the final below verifies the tag
                try {
                    return concat(first, bouncyCastleFinal(null, 0, 0));
                } catch (IllegalBlockSizeException | BadPaddingException | RuntimeException e) {
                    if (first != null) Arrays.fill(first, (byte) 0);
                    throw e;
                }
            }
            jdk.dataLength += len;
        }
        byte[] out;
        Exception failure = null;
        try {
            out = jdk.finish(replay.aad, replay.data);
        } catch (GeneralSecurityException | RuntimeException e) {
            out = null;
            failure = e;
            jdk.dropCipher(); // not for the next message
        }
        if (out != null) {
            JDK_MESSAGES.increment();
            if (gcmDecryption()) out = held.withoutDropped(out);
            finished();
            return out;
        }
        return finalReplayed(failure);
    }

    /**
     * The JDK path refuses the final (or failed, {@code failure}):
     * BouncyCastle decides, from the whole message (kept: within the limit
     * and budget).
     */
    private byte[] finalReplayed(Exception failure) throws IllegalBlockSizeException, BadPaddingException {
        Cipher cipher = null;
        try {
            cipher = replayed(gcmDecryption() ? 0 : replay.data.length); // a decryption's is given below
            byte[] answer;
            if (gcmDecryption()) {
                byte[] plaintext = null; // kept until the tag is verified
                try {
                    Buffer kept = replay.data;
                    plaintext = kept.length > 0 ? cipher.update(kept.contiguous(), 0, kept.length) : null;
                    answer = held.withoutDropped(concat(plaintext, cipher.doFinal()));
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
                endMessage(State.ON_BOUNCY_CASTLE);
                onBouncyCastle = cipher;
            } else {
                finished();
            }
            throw asFinalException(e);
        } finally {
            BOUNCY_CASTLE_MESSAGES.increment();
        }
    }

    /** A final on BouncyCastle, which releases GCM decryption's held plaintext only with a verified tag. */
    private byte[] bouncyCastleFinal(byte[] in, int offset, int len) throws IllegalBlockSizeException, BadPaddingException {
        try {
            byte[] out = in == null ? onBouncyCastle.doFinal() : onBouncyCastle.doFinal(in, offset, len);
            if (gcmDecryption() && held.length() > 0) out = concat(held.takeAll(), out);
            if (onOwnBouncyCastle()) {
                endMessage(State.ON_BOUNCY_CASTLE); // reset by its final, it takes the next message too
                onBouncyCastle = ownBouncyCastle;
            } else {
                finished();
            }
            return out;
        } catch (IllegalBlockSizeException | BadPaddingException | RuntimeException e) {
            held.clear(); // a plaintext whose tag failed never comes out
            gcmData = false; // the message is over (its cipher's next AAD is BouncyCastle's to judge)
            // A replayed message: BouncyCastle's cipher would reset to the init's IV (CBC, CTR), so the next
            // message starts there, on the JDK; GCM's stays refused, as stock's does until its next init.
            if (!onOwnBouncyCastle() && !gcmDecryption()) finished();
            throw e;
        } finally {
            BOUNCY_CASTLE_MESSAGES.increment();
        }
    }

    @Override
    protected int engineDoFinal(byte[] in, int offset, int len, byte[] out, int outOffset)
            throws ShortBufferException, IllegalBlockSizeException, BadPaddingException {
        checkRoom(out, outOffset, len);
        return copyOut(engineDoFinal(in, offset, len), out, outOffset);
    }

    // --- moves between states ---

    private boolean onOwnBouncyCastle() {
        return onBouncyCastle == ownBouncyCastle && initWentToBouncyCastle;
    }

    /**
     * The rest of the message goes to a fresh BouncyCastle cipher, given
     * the message so far (GCM: its AAD and first {@code dataBytes} bytes of
     * data); {@code fault}: the JDK call that failed, if one did. If
     * BouncyCastle cannot take it, the message is refused.
     */
    private void handOver(long dataBytes, Exception fault) {
        jdk.dropCipher(); // its state is the message's, or broken: not for the next one
        try {
            onBouncyCastle = replayed(dataBytes);
        } catch (GeneralSecurityException | RuntimeException e) {
            throw refuse("jruby-openssl's BouncyCastle refused the message it was to go on with (" + e.getMessage() + ")");
        }
        state = State.ON_BOUNCY_CASTLE;
        if (fault != null) fault(fault);
    }

    /** A fresh BouncyCastle cipher where the message is (GCM: given its AAD and first {@code dataBytes} bytes of data). */
    private Cipher replayed(long dataBytes) throws GeneralSecurityException {
        Cipher fresh = newBouncyCastle();
        if (mode != Mode.GCM) return jdk.resumeOnBouncyCastle(fresh);
        return Replay.replay(fresh, opmode, jdk.key, jdk.spec, replay.aad, replay.data, (int) dataBytes, state == State.SPENT);
    }

    /** The message is done: the JDK cipher back to the thread, everything held forgotten. */
    private void finished() {
        boolean gcmEncryption = gcmEncryption();
        jdk.finished();
        endMessage(gcmEncryption ? State.SPENT : State.ON_JDK);
    }

    /** Refuses this message and every call on it until the next init, with {@code why}. */
    private RefusedMessage refuse(String why) {
        jdk.dropCipher();
        endMessage(State.REFUSED);
        refusal = why;
        return new RefusedMessage(why);
    }

    /** Forgets the message (what it held, zeroed, the budget's bytes back), which is now in {@code next}. */
    private void endMessage(State next) {
        onBouncyCastle = null;
        refusal = null;
        gcmData = false;
        replay.clear();
        held.clear();
        jdk.forget();
        state = next;
    }

    // --- jruby-openssl's update ---

    /** GCM decryption's update released (on stock: returned) plaintext {@code from} to {@code to}. */
    private void returned(long from, long to) {
        held.released(from, to);
        noteReturned();
    }

    private void noteReturned() {
        if (calls != null) calls.returned(this);
    }

    /** jruby-openssl's update raised after this cipher's returned ({@link UpdateCalls#raised}). */
    void dropLastUpdate() {
        if (!gcmDecryption()) return;
        if (state == State.ON_JDK || state == State.ON_BOUNCY_CASTLE) held.dropLast(state == State.ON_BOUNCY_CASTLE);
    }

    // --- the rest ---

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

    private Cipher newBouncyCastle() {
        try {
            return Cipher.getInstance(mode.transformation, bouncyCastle);
        } catch (NoSuchAlgorithmException | NoSuchPaddingException e) {
            throw new ProviderException("BouncyCastle's " + mode.transformation, e);
        }
    }

    private void checkNotRefused() {
        if (state == State.REFUSED) throw new RefusedMessage(refusal + "; the message is refused until the cipher's next init");
    }

    private static IllegalStateException notInitialized() {
        return new IllegalStateException("Cipher not initialized");
    }

    private boolean gcmEncryption() {
        return mode == Mode.GCM && opmode == Cipher.ENCRYPT_MODE;
    }

    private boolean gcmDecryption() {
        return mode == Mode.GCM && opmode == Cipher.DECRYPT_MODE;
    }

    private int tagLength() {
        return ((GCMParameterSpec) jdk.spec).getTLen() / 8;
    }

    /**
     * How much of a decryption's data may be its tag, which neither the
     * limit nor the budget counts: none within a jruby-openssl update whose
     * Cipher has its tag by {@code auth_tag=}, else the tag's length (the
     * data may end with it, and a final's input is the tag).
     */
    private int tagRoom(int len) {
        if ((long) replay.data.length + len <= Buffer.UNCOUNTED) return 0; // neither counts these: no need to ask
        return calls != null && calls.tagAtFinal() ? 0 : tagLength();
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
        if (state == State.NOT_INITIALIZED) throw notInitialized();
        if (!runsOnBouncyCastle()) throw new IllegalStateException("Cipher not initialized for wrapping keys");
        return onBouncyCastle.wrap(key);
    }

    @Override
    protected Key engineUnwrap(byte[] wrapped, String algorithm, int type) throws InvalidKeyException, NoSuchAlgorithmException {
        if (state == State.NOT_INITIALIZED) throw notInitialized();
        if (!runsOnBouncyCastle()) throw new IllegalStateException("Cipher not initialized for unwrapping keys");
        return onBouncyCastle.unwrap(wrapped, algorithm, type);
    }

    private boolean runsOnBouncyCastle() {
        return state == State.ON_BOUNCY_CASTLE || state == State.STREAMING;
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
        if (runsOnBouncyCastle()) return onBouncyCastle.getOutputSize(inputLen) + held.length();
        long total = jdk.dataLength + inputLen;
        if (mode == Mode.GCM) {
            int tag = jdk.spec instanceof GCMParameterSpec ? ((GCMParameterSpec) jdk.spec).getTLen() / 8 : BLOCK;
            return (int) (opmode == Cipher.ENCRYPT_MODE ? jdk.pendingLength + inputLen + tag : Math.max(0, total - tag));
        }
        int buffered = jdk.pendingLength + inputLen;
        if (mode == Mode.CBC && opmode == Cipher.ENCRYPT_MODE) return buffered - buffered % BLOCK + BLOCK;
        return buffered;
    }

    @Override
    protected byte[] engineGetIV() {
        if (calls != null && (state == State.REFUSED || (mode == Mode.GCM && gcmData)) && calls.askingForAad()) {
            calls.aadLate(); // AAD now would come after the message's data (UpdateCalls#aadIsLate)
        }
        if (runsOnBouncyCastle()) return onBouncyCastle.getIV();
        if (jdk.spec instanceof GCMParameterSpec) return ((GCMParameterSpec) jdk.spec).getIV();
        if (jdk.spec instanceof IvParameterSpec) return ((IvParameterSpec) jdk.spec).getIV();
        return null;
    }

    @Override
    protected AlgorithmParameters engineGetParameters() {
        if (runsOnBouncyCastle()) return onBouncyCastle.getParameters();
        if (state == State.NOT_INITIALIZED) return null;
        try {
            // BouncyCastle's, for the same parameters (decrypting: no nonce to refuse).
            Cipher cipher = newBouncyCastle();
            cipher.init(Cipher.DECRYPT_MODE, jdk.key, jdk.spec);
            return cipher.getParameters();
        } catch (GeneralSecurityException e) {
            throw new ProviderException(e);
        }
    }
}
