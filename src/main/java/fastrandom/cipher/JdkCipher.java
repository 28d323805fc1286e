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

/**
 * The JDK's (SunJCE's) cipher a message runs on, and the thread's spare
 * one per mode between messages: getting one from the JDK costs about as
 * much as a short message.
 *
 * <p>A spare holds no key. When its message is done it is put back
 * re-keyed with a key of zeros ({@link #putBack}): SunJCE keeps the
 * expanded key, and for GCM encryption a copy of the key and nonce (to
 * refuse them next), so without that the last key would stay on the thread
 * for as long as the thread does. A cipher whose message ends otherwise (a
 * failure, an abandoned message) is dropped with its {@link AesCipher}.
 */
final class JdkCipher {
    private static final String PROVIDER = "SunJCE";
    /** The key spares hold: not a secret. */
    private static final SecretKeySpec NO_KEY = new SecretKeySpec(new byte[16], "AES");
    private static final byte[] NO_IV = new byte[16];
    /**
     * The thread's spares, by mode. JDK classes only, no class of ours, whose
     * loader a container's long-lived thread would then keep past an undeploy.
     */
    private static final ThreadLocal<Cipher[]> SPARES = ThreadLocal.withInitial(() -> new Cipher[AesCipher.Mode.values().length]);
    /** For each spare GCM cipher, which of {@link #WIPE_NONCES} its wipe used. */
    private static final ThreadLocal<byte[]> SPARE_WIPES = ThreadLocal.withInitial(() -> new byte[AesCipher.Mode.values().length]);
    /** The nonces GCM wipes take in turn: the JDK refuses to encrypt twice in a row under one key and nonce. */
    private static final byte[][] WIPE_NONCES = {new byte[12], {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};
    private static volatile Provider provider;

    final Cipher cipher;
    /** GCM: the key and nonce of the cipher's last encryption init, which the JDK would refuse next (null: none known). */
    private byte[] encryptedKey;
    private byte[] encryptedNonce;

    private JdkCipher(Cipher cipher) {
        this.cipher = cipher;
    }

    /** The thread's spare cipher for {@code mode}, or a new one from the JDK. */
    static JdkCipher take(AesCipher.Mode mode) throws GeneralSecurityException {
        Cipher[] spares = SPARES.get();
        Cipher spare = spares[mode.ordinal()];
        if (spare == null) {
            AesCipher.step("cipher");
            return new JdkCipher(Cipher.getInstance(mode.jdkTransformation, provider()));
        }
        spares[mode.ordinal()] = null;
        JdkCipher taken = new JdkCipher(spare);
        if (mode == AesCipher.Mode.GCM) {
            taken.encryptedKey = NO_KEY.getEncoded();
            taken.encryptedNonce = WIPE_NONCES[SPARE_WIPES.get()[mode.ordinal()]];
        }
        return taken;
    }

    /**
     * Starts a message. The JDK refuses a GCM encryption under the key and
     * nonce it last encrypted with, where stock refuses only a Cipher's own
     * repeat (checked at its init, {@link AesCipher}): an init with another
     * nonce first, which encrypts nothing, makes it forget them.
     */
    void init(int opmode, SecretKeySpec key, AlgorithmParameterSpec spec) throws GeneralSecurityException {
        if (opmode != Cipher.ENCRYPT_MODE || !(spec instanceof GCMParameterSpec)) {
            cipher.init(opmode, key, spec);
            return;
        }
        byte[] nonce = ((GCMParameterSpec) spec).getIV();
        byte[] keyBytes = key.getEncoded();
        if (Arrays.equals(nonce, encryptedNonce) && MessageDigest.isEqual(keyBytes, encryptedKey)) {
            byte[] other = nonce.clone();
            other[0] ^= 1;
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, other));
        }
        forgetEncryption();
        cipher.init(opmode, key, spec);
        encryptedKey = keyBytes;
        encryptedNonce = nonce;
    }

    private void forgetEncryption() {
        if (encryptedKey != null) Arrays.fill(encryptedKey, (byte) 0);
        encryptedKey = null;
        encryptedNonce = null;
    }

    /**
     * Its message is done: re-keyed with zeros, it becomes the thread's spare
     * for {@code mode}. False if the thread has one, or the re-key failed:
     * then it stays its {@link AesCipher}'s, with that cipher's key.
     */
    boolean putBack(AesCipher.Mode mode) {
        Cipher[] spares = SPARES.get();
        if (spares[mode.ordinal()] != null) return false;
        try {
            if (mode == AesCipher.Mode.GCM) {
                // An encryption init: its key and nonce replace the copy the JDK keeps of the last ones.
                int wipe = Arrays.equals(encryptedNonce, WIPE_NONCES[0]) ? 1 : 0;
                init(Cipher.ENCRYPT_MODE, NO_KEY, new GCMParameterSpec(128, WIPE_NONCES[wipe]));
                SPARE_WIPES.get()[mode.ordinal()] = (byte) wipe;
            } else {
                cipher.init(Cipher.ENCRYPT_MODE, NO_KEY, new IvParameterSpec(NO_IV));
            }
        } catch (GeneralSecurityException | RuntimeException e) {
            return false;
        }
        forgetEncryption();
        spares[mode.ordinal()] = cipher;
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
