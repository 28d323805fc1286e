package fastrandom.random;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * NIST SP 800-90A Rev. 1 CTR_DRBG with AES-256, no derivation function and
 * no prediction resistance, built on the JCE's {@code AES/CTR/NoPadding}.
 *
 * <p>The DRBG's counter V is incremented over the whole 128-bit block
 * (ctr_len = blocklen), which is exactly what CTR mode does, so both the
 * Generate keystream and the Update step are one CTR pass starting at V+1:
 * <ul>
 *   <li>Generate: the keystream E(K, V+1) || E(K, V+2) || ... is the output;</li>
 *   <li>Update: (K', V') = (E(K, V+1) || E(K, V+2) || E(K, V+3)) XOR provided_data,
 *       which is CTR encryption of the 48 bytes of provided_data.</li>
 * </ul>
 * The JCE uses AES-NI for this where the CPU has it ({@link JceAesCtr}).
 *
 * <p>Faults: a Generate reserves its counter blocks (advances V past them)
 * before it produces any output, so an exception anywhere in it (the JCE,
 * a StackOverflowError, ...) can never make a later request repeat output.
 * After each Update the cipher is re-keyed with the new (K, V), so nothing
 * in the live objects is older than the current state: output already
 * handed out cannot be recomputed from a heap dump.
 *
 * <p>Not thread-safe: each instance belongs to one thread at a time.
 */
public final class CtrDrbg {
    public static final int KEY_LENGTH = 32;
    public static final int BLOCK_LENGTH = 16;
    /** seedlen: the length of entropy input, personalization and additional input. */
    public static final int SEED_LENGTH = KEY_LENGTH + BLOCK_LENGTH;
    /** max_number_of_bits_per_request = 2^19 bits. */
    public static final int MAX_BYTES_PER_REQUEST = 1 << 16;
    /** reseed_interval = 2^48 requests (the owner reseeds long before). */
    public static final long RESEED_INTERVAL = 1L << 48;

    /** Plaintext for keystream generation: CTR of zeros is the keystream. Never written. */
    private static final byte[] ZEROS = new byte[MAX_BYTES_PER_REQUEST];

    private final AesCtr aes;
    private final byte[] key = new byte[KEY_LENGTH];
    private final byte[] v = new byte[BLOCK_LENGTH];
    private final byte[] counter = new byte[BLOCK_LENGTH];
    private final byte[] seedMaterial = new byte[SEED_LENGTH];
    private final byte[] updateOutput = new byte[SEED_LENGTH];
    private long reseedCounter;
    private boolean instantiated;
    /** Whether {@link #aes} is keyed with (K, V+1) of the current state. */
    private boolean keyedForNext;

    public CtrDrbg() {
        this(new JceAesCtr());
    }

    /** A DRBG over another AES-256-CTR implementation (tests inject faults through it). */
    public CtrDrbg(AesCtr aes) {
        this.aes = aes;
    }

    /** CTR_DRBG_Instantiate_algorithm: seed_material = entropy_input XOR personalization_string. */
    public void instantiate(byte[] entropyInput, byte[] personalization) {
        keyedForNext = false;
        Arrays.fill(key, (byte) 0);
        Arrays.fill(v, (byte) 0);
        seedFrom(entropyInput, personalization);
        instantiated = true;
    }

    /** CTR_DRBG_Reseed_algorithm: seed_material = entropy_input XOR additional_input. */
    public void reseed(byte[] entropyInput, byte[] additionalInput) {
        requireInstantiated();
        seedFrom(entropyInput, additionalInput);
    }

    /**
     * CTR_DRBG_Generate_algorithm: writes {@code length} pseudorandom bytes
     * (at most {@link #MAX_BYTES_PER_REQUEST}) to {@code out}, then updates the
     * state so the output cannot be recomputed from it.
     */
    public void generate(byte[] out, int offset, int length, byte[] additionalInput) {
        requireInstantiated();
        if (length < 0 || length > MAX_BYTES_PER_REQUEST) {
            throw new IllegalArgumentException("a CTR_DRBG request is 0.." + MAX_BYTES_PER_REQUEST + " bytes, not " + length);
        }
        if (reseedCounter > RESEED_INTERVAL) {
            throw new IllegalStateException("CTR_DRBG reseed required");
        }
        boolean hasAdditional = additionalInput != null && additionalInput.length > 0;
        if (hasAdditional) {
            padInto(seedMaterial, additionalInput);
            update(seedMaterial);
        } else {
            Arrays.fill(seedMaterial, (byte) 0);
        }
        keystream(out, offset, length);
        update(seedMaterial); // the padded additional input again, or zeros
        Arrays.fill(seedMaterial, (byte) 0);
        reseedCounter++;
    }

    public long reseedCounter() {
        return reseedCounter;
    }

    /**
     * SHA-256 of (K, V), for tests that must see the state change, or two
     * states differ, without seeing the state itself (a one-way digest: it
     * tells nothing about K or V).
     */
    public byte[] stateDigest() {
        MessageDigest sha256 = sha256();
        sha256.update(key);
        sha256.update(v);
        return sha256.digest();
    }

    /** The first 64 bits of {@link #stateDigest()}. */
    public long stateFingerprint() {
        byte[] digest = stateDigest();
        long fingerprint = 0;
        for (int i = 0; i < 8; i++) fingerprint = (fingerprint << 8) | (digest[i] & 0xffL);
        return fingerprint;
    }

    /**
     * An independent DRBG in the same state (K, V, reseed counter), for tests
     * that compare what this one generates next with what a copy made
     * earlier generates (after a reseed they must differ). Generating from
     * the copy does not touch this instance.
     */
    public CtrDrbg copy() {
        CtrDrbg copy = new CtrDrbg();
        System.arraycopy(key, 0, copy.key, 0, KEY_LENGTH);
        System.arraycopy(v, 0, copy.v, 0, BLOCK_LENGTH);
        copy.reseedCounter = reseedCounter;
        copy.instantiated = instantiated;
        return copy;
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    /** Overwrites the state (the cipher's too); the instance must be instantiated again before use. */
    public void wipe() {
        instantiated = false;
        keyedForNext = false;
        Arrays.fill(key, (byte) 0);
        Arrays.fill(v, (byte) 0);
        Arrays.fill(counter, (byte) 0);
        aes.wipe();
    }

    private void seedFrom(byte[] entropyInput, byte[] xorInput) {
        if (entropyInput == null || entropyInput.length != SEED_LENGTH) {
            throw new IllegalArgumentException("CTR_DRBG entropy input must be " + SEED_LENGTH + " bytes");
        }
        padInto(seedMaterial, xorInput);
        for (int i = 0; i < SEED_LENGTH; i++) seedMaterial[i] ^= entropyInput[i];
        update(seedMaterial);
        Arrays.fill(seedMaterial, (byte) 0);
        reseedCounter = 1;
    }

    /**
     * CTR_DRBG_Update: (K, V) = (keystream(48) XOR providedData), then keys
     * the cipher with the new state, which also leaves it holding nothing
     * older.
     */
    private void update(byte[] providedData) {
        keyed();
        keyedForNext = false;
        aes.apply(providedData, 0, SEED_LENGTH, updateOutput, 0);
        System.arraycopy(updateOutput, 0, key, 0, KEY_LENGTH);
        System.arraycopy(updateOutput, KEY_LENGTH, v, 0, BLOCK_LENGTH);
        Arrays.fill(updateOutput, (byte) 0);
        keyed();
    }

    /**
     * Writes E(K, V+1) || E(K, V+2) || ..., having first advanced V past
     * every block it uses, so that a failure part-way leaves those blocks
     * behind for good.
     */
    private void keystream(byte[] out, int offset, int length) {
        if (length == 0) return;
        keyed();
        keyedForNext = false;
        addToV((length + BLOCK_LENGTH - 1) / BLOCK_LENGTH);
        aes.apply(ZEROS, 0, length, out, offset);
    }

    /** Makes sure the cipher is keyed with K and the counter block V+1. */
    private void keyed() {
        if (keyedForNext) return;
        System.arraycopy(v, 0, counter, 0, BLOCK_LENGTH);
        increment(counter, 1);
        aes.key(key, counter);
        keyedForNext = true;
    }

    private void addToV(long blocks) {
        increment(v, blocks);
    }

    /** block = (block + n) mod 2^128, big-endian. */
    static void increment(byte[] block, long n) {
        long carry = n;
        for (int i = block.length - 1; i >= 0 && carry != 0; i--) {
            long sum = (block[i] & 0xffL) + (carry & 0xffL);
            block[i] = (byte) sum;
            carry = (carry >>> 8) + (sum >>> 8);
        }
    }

    private static void padInto(byte[] target, byte[] input) {
        Arrays.fill(target, (byte) 0);
        if (input == null) return;
        if (input.length > SEED_LENGTH) {
            throw new IllegalArgumentException("CTR_DRBG input longer than " + SEED_LENGTH + " bytes");
        }
        System.arraycopy(input, 0, target, 0, input.length);
    }

    private void requireInstantiated() {
        if (!instantiated) throw new IllegalStateException("CTR_DRBG is not instantiated");
    }
}
