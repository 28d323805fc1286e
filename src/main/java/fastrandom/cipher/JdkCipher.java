package fastrandom.cipher;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.Provider;
import java.security.Security;
import java.security.spec.AlgorithmParameterSpec;
import java.util.Arrays;

import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

import fastrandom.Faults;

/**
 * The JDK's (SunJCE's) cipher a message runs on, and the thread's spare
 * one per mode between messages: getting one from the JDK costs about as
 * much as a short message.
 *
 * <p>How long a key stays in a spare (SunJCE keeps the expanded key, and
 * for GCM encryption a copy of the last key and nonce): a message under
 * another key than the message before it on the spare is followed by a
 * wipe, a re-key with zeros ({@link #putBack}), so a key used for one
 * message (a per-user or per-file key) is gone when its message is done.
 * A key the thread uses for message after message (an application's
 * secret, which the application holds itself) stays in the spare until
 * the thread's next message in that mode under another key: wiping after
 * each of those would cost a quarter of a short message's time, twice a
 * key expansion. Keys are compared by a 32-bit fingerprint (a collision
 * only skips one wipe). A cipher whose message ends otherwise (a failure,
 * an abandoned message) is dropped with its {@link AesCipher}.
 */
final class JdkCipher {
    private static final String PROVIDER = "SunJCE";
    /** The key wipes put in: not a secret. */
    private static final SecretKeySpec NO_KEY = new SecretKeySpec(new byte[16], "AES");
    private static final int NO_KEY_PRINT = print(new byte[16]);
    private static final byte[] NO_IV = new byte[16];
    /** The nonces GCM wipes take in turn: the JDK refuses to encrypt twice in a row under one key and nonce. */
    private static final byte[][] WIPE_NONCES = {new byte[12], {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};
    /**
     * The thread's spares, by mode; for each, the nonce and key print of its
     * last GCM encryption init, and the key print of its last message. JDK
     * classes only, no class of ours, whose loader a container's long-lived
     * thread would then keep past an undeploy.
     */
    private static final ThreadLocal<Cipher[]> SPARES = ThreadLocal.withInitial(() -> new Cipher[AesCipher.Mode.values().length]);
    private static final ThreadLocal<byte[][]> SPARE_NONCES = ThreadLocal.withInitial(() -> new byte[AesCipher.Mode.values().length][]);
    private static final ThreadLocal<int[]> SPARE_PRINTS = ThreadLocal.withInitial(() -> new int[2 * AesCipher.Mode.values().length]);
    private static volatile Provider provider;

    final Cipher cipher;
    /** GCM: the nonce and key print of the cipher's last encryption init, which the JDK would refuse next (null: none). */
    private byte[] encryptedNonce;
    private int encryptedKeyPrint;
    /** The key print of the cipher's last message (0: none, or wiped). */
    private int messageKeyPrint;

    private JdkCipher(Cipher cipher) {
        this.cipher = cipher;
    }

    /** A fingerprint of a key, never 0. */
    static int print(byte[] key) {
        return Arrays.hashCode(key) | 1;
    }

    /** The thread's spare cipher for {@code mode}, or a new one from the JDK. */
    static JdkCipher take(AesCipher.Mode mode) throws GeneralSecurityException {
        Cipher[] spares = SPARES.get();
        int at = mode.ordinal();
        Cipher spare = spares[at];
        if (spare == null) {
            Faults.at("aes:cipher");
            return new JdkCipher(Cipher.getInstance(mode.jdkTransformation, provider()));
        }
        spares[at] = null;
        JdkCipher taken = new JdkCipher(spare);
        byte[][] nonces = SPARE_NONCES.get();
        int[] prints = SPARE_PRINTS.get();
        taken.encryptedNonce = nonces[at];
        taken.encryptedKeyPrint = prints[2 * at];
        taken.messageKeyPrint = prints[2 * at + 1];
        nonces[at] = null;
        return taken;
    }

    /**
     * Starts a message under {@code key} (whose print is {@code keyPrint}).
     * The JDK refuses a GCM encryption under the key and nonce it last
     * encrypted with, where stock refuses only a Cipher's own repeat
     * (checked at its init, {@link AesCipher}): an init with another
     * nonce first, which encrypts nothing, makes it forget them.
     */
    void init(int opmode, SecretKeySpec key, int keyPrint, AlgorithmParameterSpec spec) throws GeneralSecurityException {
        if (opmode != Cipher.ENCRYPT_MODE || !(spec instanceof GCMParameterSpec)) {
            cipher.init(opmode, key, spec);
            return;
        }
        byte[] nonce = ((GCMParameterSpec) spec).getIV();
        if (keyPrint == encryptedKeyPrint && Arrays.equals(nonce, encryptedNonce)) {
            byte[] other = nonce.clone();
            other[0] ^= 1;
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, other));
        }
        encryptedNonce = null;
        cipher.init(opmode, key, spec);
        encryptedKeyPrint = keyPrint;
        encryptedNonce = nonce;
    }

    /**
     * Its message, under the key whose print is {@code keyPrint}, is done:
     * it becomes the thread's spare for {@code mode}, wiped first if the
     * message before it on this cipher had another key. False if the thread
     * has a spare, or the wipe failed: then it stays its {@link AesCipher}'s,
     * with that cipher's key.
     */
    boolean putBack(AesCipher.Mode mode, int keyPrint) {
        Cipher[] spares = SPARES.get();
        int at = mode.ordinal();
        if (spares[at] != null) return false;
        boolean sameKey = keyPrint == messageKeyPrint;
        messageKeyPrint = keyPrint;
        if (!sameKey) {
            try {
                if (mode == AesCipher.Mode.GCM) {
                    // An encryption init: its key and nonce replace the copy the JDK keeps of the last ones.
                    byte[] wipe = Arrays.equals(encryptedNonce, WIPE_NONCES[0]) ? WIPE_NONCES[1] : WIPE_NONCES[0];
                    init(Cipher.ENCRYPT_MODE, NO_KEY, NO_KEY_PRINT, new GCMParameterSpec(128, wipe));
                } else {
                    cipher.init(Cipher.ENCRYPT_MODE, NO_KEY, new IvParameterSpec(NO_IV));
                }
            } catch (GeneralSecurityException | RuntimeException e) {
                return false;
            }
        }
        spares[at] = cipher;
        SPARE_NONCES.get()[at] = encryptedNonce;
        int[] prints = SPARE_PRINTS.get();
        prints[2 * at] = encryptedKeyPrint;
        prints[2 * at + 1] = messageKeyPrint;
        return true;
    }

    private static Provider provider() throws NoSuchAlgorithmException {
        Provider found = provider;
        if (found == null) {
            found = Security.getProvider(PROVIDER);
            if (found == null) throw new NoSuchAlgorithmException("the JDK's " + PROVIDER + " provider is not installed");
            provider = found;
        }
        return found;
    }
}
