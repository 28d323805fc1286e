package fastrandom.random;

import java.security.GeneralSecurityException;
import java.util.Arrays;

import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.IvParameterSpec;

/**
 * {@link AesCtr} over the JCE's {@code AES/CTR/NoPadding} (AES-NI where the
 * CPU has it).
 *
 * <p>A keyed JCE cipher keeps the raw key it was last given and its counter
 * block inside the live object (SunJCE's {@code AESCrypt.lastKey}, the key
 * schedule, the counter mode's IV). {@link CtrDrbg} therefore re-keys this
 * with its new state at the end of every Update step, so what the cipher
 * holds is never older than the DRBG's current key and counter; and
 * {@link #wipe()} re-keys it with a throwaway all-zero key. The key is handed
 * to the JCE through a {@link SecretKey} of ours whose bytes are zeroed as
 * soon as the cipher has taken its copy, so no superseded key is left
 * reachable in objects we own.
 */
public final class JceAesCtr implements AesCtr {
    private static final byte[] ZERO_KEY = new byte[CtrDrbg.KEY_LENGTH];
    private static final byte[] ZERO_BLOCK = new byte[CtrDrbg.BLOCK_LENGTH];

    private final Cipher cipher;
    private final OwnedKey ownedKey = new OwnedKey();

    public JceAesCtr() {
        try {
            cipher = Cipher.getInstance("AES/CTR/NoPadding");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JCE has no AES/CTR/NoPadding cipher", e);
        }
    }

    @Override
    public void key(byte[] key, byte[] counter) {
        ownedKey.set(key);
        try {
            cipher.init(Cipher.ENCRYPT_MODE, ownedKey, new IvParameterSpec(counter));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-256 is not available", e);
        } finally {
            ownedKey.clear();
        }
    }

    @Override
    public void apply(byte[] in, int inOffset, int length, byte[] out, int outOffset) {
        try {
            cipher.doFinal(in, inOffset, length, out, outOffset);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-CTR failed", e);
        }
    }

    @Override
    public void wipe() {
        key(ZERO_KEY, ZERO_BLOCK);
    }

    /**
     * A raw AES key whose bytes we own: filled just before the cipher is
     * keyed and zeroed right after ({@code getEncoded} hands the JCE a copy,
     * as every {@link SecretKey} must).
     */
    private static final class OwnedKey implements SecretKey {
        private static final long serialVersionUID = 1L;

        private final byte[] bytes = new byte[CtrDrbg.KEY_LENGTH];

        void set(byte[] key) {
            System.arraycopy(key, 0, bytes, 0, bytes.length);
        }

        void clear() {
            Arrays.fill(bytes, (byte) 0);
        }

        @Override
        public String getAlgorithm() {
            return "AES";
        }

        @Override
        public String getFormat() {
            return "RAW";
        }

        @Override
        public byte[] getEncoded() {
            return bytes.clone();
        }
    }
}
