package fastrandom.ec.jca;

import java.security.Key;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.util.Arrays;

import fastrandom.jni.XdhKey;

/**
 * X25519 and X448 keys' standard encodings (RFC 8410: PKCS#8 for a private
 * key, SubjectPublicKeyInfo for a public one), which every provider's XDH
 * keys give from {@code getEncoded()} and take through its
 * {@code KeyFactory}: a fixed prefix per curve, then the raw bytes.
 */
final class XdhEncoding {
    private static final byte[][] PRIVATE = {
        hex("302e020100300506032b656e04220420"), // X25519: version 0, id-X25519, OCTET STRING { OCTET STRING (32) }
        hex("3046020100300506032b656f043a0438"), // X448: version 0, id-X448, OCTET STRING { OCTET STRING (56) }
    };
    private static final byte[][] PUBLIC = {
        hex("302a300506032b656e032100"), // X25519: id-X25519, BIT STRING (32 bytes)
        hex("3042300506032b656f033900"), // X448: id-X448, BIT STRING (56 bytes)
    };

    private XdhEncoding() {}

    /** The curve of a key whose encoding is one of these, or null. */
    static XdhKey.Type typeOf(Key key) {
        byte[][] prefixes = key instanceof PrivateKey ? PRIVATE : key instanceof PublicKey ? PUBLIC : null;
        byte[] encoded = prefixes == null ? null : key.getEncoded();
        if (encoded == null) return null;
        try {
            for (XdhKey.Type type : XdhKey.Type.values()) {
                byte[] prefix = prefixes[type.ordinal()];
                if (encoded.length == prefix.length + type.keyBytes() && startsWith(encoded, prefix)) return type;
            }
            return null;
        } finally {
            Arrays.fill(encoded, (byte) 0);
        }
    }

    /** The raw bytes of a key of {@code type} (a private scalar or a public u-coordinate). */
    static byte[] raw(Key key, XdhKey.Type type) {
        byte[] encoded = key.getEncoded();
        try {
            return Arrays.copyOfRange(encoded, encoded.length - type.keyBytes(), encoded.length);
        } finally {
            Arrays.fill(encoded, (byte) 0);
        }
    }

    /** The PKCS#8 encoding of a private scalar. */
    static byte[] privateKey(XdhKey.Type type, byte[] scalar) {
        return concat(PRIVATE[type.ordinal()], scalar);
    }

    /** The SubjectPublicKeyInfo encoding of a public u-coordinate. */
    static byte[] publicKey(XdhKey.Type type, byte[] point) {
        return concat(PUBLIC[type.ordinal()], point);
    }

    private static boolean startsWith(byte[] bytes, byte[] prefix) {
        for (int i = 0; i < prefix.length; i++) {
            if (bytes[i] != prefix[i]) return false;
        }
        return true;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static byte[] hex(String digits) {
        byte[] out = new byte[digits.length() / 2];
        for (int i = 0; i < out.length; i++) out[i] = (byte) Integer.parseInt(digits.substring(2 * i, 2 * i + 2), 16);
        return out;
    }
}
