package fastrandom.ec;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECPoint;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

import fastrandom.support.KeyCache;
import fastrandom.jni.EcKey;
import fastrandom.jni.XdhKey;
import fastrandom.jni.LibCrypto;
import fastrandom.jni.LibCryptoException;

/**
 * The {@code :openssl} EC engine: ECDSA and ECDH in OpenSSL's libcrypto (3.x or 1.1.1)
 * (through fast_random's JNI library, see {@link EcKey}), for the curves of
 * {@link EcCurve}.
 *
 * <p>Each Java key becomes one OpenSSL EC_KEY on its first use, cached
 * against the Java key object (see {@link KeyCache}) and matched on its
 * values, so nothing is set up per call. Signatures are OpenSSL's
 * constant-time ECDSA with its hedged nonces; ECDH takes the peer's point
 * only once it is known to lie on the curve.
 *
 * <p>Thread-safe: one native key serves any number of threads at once.
 */
public final class OpenSslEcEngine {
    public static final String NAME = "openssl";

    /** Lookups of a cached key before using a key for one call (see {@link #withKey}). */
    private static final int LOOKUP_ATTEMPTS = 3;

    private final Set<EcCurve> served; // the curves that passed the known-answer test
    private final Set<XdhKey.Type> servedXdh; // the XDH curves that passed theirs
    private final KeyCache<EcKey> privateKeys = new KeyCache<>(KeyCache.DEFAULT_CAPACITY, EcKey::close, k -> !k.isClosed());
    private final KeyCache<EcKey> publicKeys = new KeyCache<>(KeyCache.DEFAULT_CAPACITY, EcKey::close, k -> !k.isClosed());
    private final KeyCache<XdhKey> xdhKeys = new KeyCache<>(KeyCache.DEFAULT_CAPACITY, XdhKey::close, k -> !k.isClosed());
    /** XDH keys are matched on identity alone: their Java objects (the JDK's) never change. */
    private static final BigInteger[] NO_VALUES = {};

    /** The engine for the curves that passed the known-answer test ({@link #selfTest()}). */
    OpenSslEcEngine(Set<EcCurve> served, Set<XdhKey.Type> servedXdh) {
        this.served = Collections.unmodifiableSet(served.isEmpty() ? EnumSet.noneOf(EcCurve.class) : EnumSet.copyOf(served));
        this.servedXdh = Collections.unmodifiableSet(servedXdh.isEmpty() ? EnumSet.noneOf(XdhKey.Type.class) : EnumSet.copyOf(servedXdh));
    }

    /** Whether XDH keys of {@code type} run here: RFC 7748's vector passed at the self-test. */
    public boolean serves(XdhKey.Type type) {
        return type != null && servedXdh.contains(type);
    }

    /** Builds the Java keys of an XDH key from its raw scalar and public u-coordinate. */
    public interface XdhKeyPairMaker {
        KeyPair make(byte[] scalar, byte[] publicKey);
    }

    /**
     * The key pair of the XDH private scalar {@code scalar} (drawn by the
     * caller), its public u-coordinate computed by OpenSSL, its Java keys
     * built by {@code maker}; the native key stays cached against the
     * private key for one agreement (an ephemeral key's one use, which
     * would otherwise compute the public point again), and goes then.
     * Throws {@link EcEngineException} when the engine fails.
     */
    public KeyPair generateXdh(XdhKey.Type type, byte[] scalar, XdhKeyPairMaker maker) {
        XdhKey key;
        try {
            key = XdhKey.newPrivateKey(type, scalar);
        } catch (LibCryptoException e) {
            throw new EcEngineException(e.getMessage(), e);
        }
        boolean cached = false;
        try {
            KeyPair pair = maker.make(scalar, key.publicKey());
            cached = xdhKeys.get(pair.getPrivate(), NO_VALUES, () -> key) == key;
            return pair;
        } finally {
            if (!cached) key.close();
        }
    }

    /**
     * The XDH shared secret of the private key {@code key} with the peer's
     * public u-coordinate: on the native key its generation left (taken
     * from the cache, so its scalar leaves native memory with this
     * agreement), else on one built from the raw scalar {@code scalar}
     * gives and freed after it. Throws {@link EcEngineException} when
     * OpenSSL refuses the peer (all zeros: a point of small order) or fails.
     */
    public byte[] deriveXdh(Object key, XdhKey.Type type, Supplier<byte[]> scalar, byte[] peer) {
        try {
            XdhKey native_ = xdhKeys.take(key, NO_VALUES);
            if (native_ == null) {
                byte[] secret = scalar.get();
                try {
                    native_ = XdhKey.newPrivateKey(type, secret);
                } finally {
                    java.util.Arrays.fill(secret, (byte) 0);
                }
            }
            try {
                return native_.derive(peer); // never null: nobody else holds this key
            } finally {
                native_.close();
            }
        } catch (LibCryptoException e) {
            throw new EcEngineException(e.getMessage(), e);
        }
    }

    /**
     * Whether keys on {@code curve} run here: the curve passed the
     * known-answer test. Callers send keys on any other curve to the
     * fallback (jruby-openssl's code, or the next JCA provider).
     */
    public boolean serves(EcCurve curve) {
        return curve != null && served.contains(curve);
    }

    /** Why this engine cannot run here (libcrypto missing or hidden, or the JNI library), or null. */
    public static String unavailableReason() {
        return LibCrypto.failure();
    }

    /**
     * A DER-encoded ECDSA signature of {@code data[offset, offset + length)}
     * hashed with {@code hash} in the same native call, or of those bytes as
     * given when {@code prehashed}. Throws IllegalArgumentException for a key
     * no engine takes (a private value out of range) and
     * {@link EcEngineException} when the engine fails.
     */
    public byte[] sign(ECPrivateKey key, EcCurve curve, LibCrypto.Hash hash, byte[] data, int offset, int length,
                       boolean prehashed) {
        BigInteger d = key.getS();
        if (d == null || d.signum() <= 0 || d.compareTo(curve.order()) >= 0) {
            throw new IllegalArgumentException("EC private value out of range");
        }
        BigInteger[] values = {d, curve.order()};
        return withKey(privateKeys, key, values, () -> EcKey.newPrivateKey(curve.nid(), d, null, null),
                native_ -> native_.sign(hash, data, offset, length, prehashed));
    }

    /**
     * Whether (r, s) is an ECDSA signature of the data (hashed with
     * {@code hash}, or as given when {@code prehashed}): false for r or s
     * out of range too. Throws IllegalArgumentException for a public point
     * not on the curve.
     */
    public boolean verify(ECPublicKey key, EcCurve curve, LibCrypto.Hash hash, byte[] data, int offset, int length,
                          boolean prehashed, BigInteger r, BigInteger s) {
        ECPoint w = key.getW();
        if (w == null || w == ECPoint.POINT_INFINITY || !curve.contains(w.getAffineX(), w.getAffineY())) {
            throw new IllegalArgumentException("EC public point not on the curve");
        }
        BigInteger[] values = {w.getAffineX(), w.getAffineY(), curve.order()};
        Boolean valid = withKey(publicKeys, key, values, () -> EcKey.newPublicKey(curve.nid(), w.getAffineX(), w.getAffineY()),
                native_ -> native_.verify(hash, data, offset, length, prehashed, r, s));
        return valid;
    }

    /**
     * The ECDH secret of {@code key} with the peer's point (x, y): the x
     * coordinate of d Q, as long as a field element. Throws
     * IllegalArgumentException for a point not on the curve (or a private
     * value out of range), {@link EcEngineException} when the engine fails.
     */
    public byte[] derive(ECPrivateKey key, EcCurve curve, BigInteger x, BigInteger y) {
        BigInteger d = key.getS();
        if (d == null || d.signum() <= 0 || d.compareTo(curve.order()) >= 0) {
            throw new IllegalArgumentException("EC private value out of range");
        }
        if (x == null || y == null || !curve.contains(x, y)) throw new IllegalArgumentException("EC point not on the curve");
        BigInteger[] values = {d, curve.order()};
        return withKey(privateKeys, key, values, () -> EcKey.newPrivateKey(curve.nid(), d, null, null),
                native_ -> native_.derive(x, y));
    }

    /** Builds the Java keys of a generated key from its private value d and public point (x, y). */
    public interface KeyPairMaker {
        KeyPair make(BigInteger d, BigInteger x, BigInteger y);
    }

    /**
     * A new key pair on {@code curve} from OpenSSL's own generator (as MRI's
     * {@code EC.generate}), its Java keys built by {@code maker}. Throws
     * {@link EcEngineException} when the engine fails (libcrypto's
     * generator, say). The native key is not kept: caching every generated
     * key cost more (3 us a key on P-256, measured) than its first
     * signature or ECDH saves, and most generated keys are used once if at all.
     */
    public KeyPair generate(EcCurve curve, KeyPairMaker maker) {
        BigInteger[] values;
        try {
            values = EcKey.generate(curve.nid(), curve.fieldBytes());
        } catch (LibCryptoException e) {
            throw new EcEngineException(e.getMessage(), e);
        }
        BigInteger d = values[0];
        if (d.signum() <= 0 || d.compareTo(curve.order()) >= 0) {
            throw new EcEngineException("OpenSSL generated a private value out of range", null);
        }
        try {
            return maker.make(d, values[1], values[2]); // checks that the point is on the curve
        } catch (IllegalArgumentException e) {
            throw new EcEngineException("OpenSSL generated a public point off the curve: " + e.getMessage(), e);
        }
    }

    /** Whether a native private key for these exact values is cached. */
    public boolean hasCached(ECPrivateKey key, EcCurve curve) {
        return privateKeys.peek(key, new BigInteger[] {key.getS(), curve.order()}) != null;
    }

    /** The native key caches (for diagnostics and tests): [private, public, XDH]. */
    public KeyCache<?>[] caches() {
        return new KeyCache<?>[] {privateKeys, publicKeys, xdhKeys};
    }

    /** Frees every cached native key now. */
    public void clearCaches() {
        privateKeys.clear();
        publicKeys.clear();
        xdhKeys.clear();
    }

    /**
     * Runs {@code operation} on the cached native key for {@code identity}
     * (built on first use), looking again if another thread closed it
     * meanwhile; a key that keeps being closed gets a native key for this
     * call only.
     */
    private static <T> T withKey(KeyCache<EcKey> cache, Object identity, BigInteger[] values, Supplier<EcKey> create,
                                 Function<EcKey, T> operation) {
        try {
            for (int attempt = 0; attempt < LOOKUP_ATTEMPTS; attempt++) {
                T result = operation.apply(cache.get(identity, values, create));
                if (result != null) return result;
            }
            EcKey once = create.get();
            try {
                return operation.apply(once);
            } finally {
                once.close();
            }
        } catch (LibCryptoException e) {
            throw new EcEngineException(e.getMessage(), e);
        }
    }

    /**
     * The known-answer test ({@link EcKnownAnswerTest}) on every curve:
     * each curve mapped to null when it passes, else to why not; throws
     * IllegalStateException, saying why, when libcrypto cannot be used at all.
     */
    static Map<EcCurve, String> selfTest() {
        String why = LibCrypto.failure();
        if (why != null) throw new IllegalStateException(why);
        return EcKnownAnswerTest.run();
    }
}
