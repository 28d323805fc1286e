package org.jruby.ext.fastrandom;

import java.math.BigInteger;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECPoint;
import java.util.Collections;
import java.util.Map;
import java.util.Set;

import org.bouncycastle.asn1.ASN1InputStream;
import org.bouncycastle.asn1.ASN1Integer;
import org.bouncycastle.asn1.ASN1Primitive;
import org.bouncycastle.asn1.ASN1Sequence;
import org.jruby.RubyModule;
import org.jruby.RubyString;
import org.jruby.anno.JRubyMethod;
import org.jruby.exceptions.JumpException;
import org.jruby.exceptions.Unrescuable;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;
import org.jruby.util.ByteList;

import fastrandom.ec.EcCurve;
import fastrandom.ec.EcEngineException;
import fastrandom.ec.EcEngines;
import fastrandom.ec.EcStats;
import fastrandom.ec.OpenSslEcEngine;
import fastrandom.jca.PKeyAccess;
import fastrandom.jca.ProviderHook;
import fastrandom.support.EngineRegistry;

/**
 * Methods of {@code OpenSSL::PKey::EC}, put in place of jruby-openssl's own
 * when openssl is loaded ({@link #install}): the ECDSA and ECDH methods that
 * jruby-openssl computes with BouncyCastle objects of its own, which no
 * provider reaches ({@code dsa_sign_asn1}, {@code dsa_verify_asn1},
 * {@code sign_raw}, {@code verify_raw}), or reaches only after converting
 * the peer's point through the JDK ({@code derive}, {@code dh_compute_key}).
 * ({@code sign} and {@code verify} reach the provider: see
 * {@code fastrandom.ec.jca.EcServices}.)
 *
 * <p>A call is taken when the EC engine is {@code :openssl}, the key is on
 * one of {@link EcCurve}'s curves and the arguments are Strings (a peer key
 * or point for ECDH); a signature to verify is read exactly as jruby-openssl
 * reads it. Every other call, and any failure (a malformed signature, a
 * point not on the curve, an engine failure), goes to jruby-openssl's own
 * method, so results, conversions and errors stay stock's. They replace
 * jruby-openssl's methods in place, as {@link RsaPssMethods} do (the same
 * reasons: later redefinitions, aliases and prepended modules behave as on
 * stock). Each takes any number of arguments and hands a number it does
 * not take to jruby-openssl's, whose arity then holds.
 */
public final class EcMethods {
    private static final String[] NAMES = {"dsa_sign_asn1", "dsa_verify_asn1", "sign_raw", "verify_raw", "derive", "dh_compute_key"};

    private EcMethods() {}

    /** Inherited from OpenSSL::PKey::PKey in jruby-openssl 0.16.1, for the same calls: replaced on EC there too. */
    private static final Set<String> INHERITABLE = Collections.singleton("derive");

    /**
     * Puts these methods on {@code ecClass} in place of jruby-openssl's, each
     * where the loaded release has it (0.15.0 to 0.15.5 have no sign_raw,
     * verify_raw or derive: fast_random adds none of them); once; openssl must
     * be loaded. Returns the names replaced.
     */
    static Set<String> install(RubyModule ecClass) {
        return StockMethods.install(ecClass, EcMethods.class, NAMES, INHERITABLE);
    }

    /**
     * Calls jruby-openssl's own {@code name}, the method ours replaced. A
     * Java exception it lets out becomes what Ruby code can rescue, of the
     * class MRI raises: jruby-openssl reads a DER SEQUENCE of fewer than two
     * INTEGERs by index (ArrayIndexOutOfBoundsException), and hands an ECDH
     * peer off its curve to BouncyCastle or the JDK, which refuse it with
     * IllegalArgumentException. So verify_raw answers false, as stock does for
     * every other signature it cannot read; the other ECDSA methods raise
     * ECError, as stock does for those; ECDH raises PKeyError, as MRI does.
     */
    private static IRubyObject stock(ThreadContext context, IRubyObject self, String name, IRubyObject... args) {
        RubyModule ecClass = context.runtime.getClassFromPath("OpenSSL::PKey::EC");
        try {
            return StockMethods.kept(context, ecClass, name).call(context, self, ecClass, name, args);
        } catch (JumpException e) {
            throw e; // Ruby exceptions and Ruby control flow (throw, break, Thread#kill)
        } catch (RuntimeException e) {
            if (e instanceof Unrescuable) throw e;
            switch (name) {
                case "verify_raw": return context.fals;
                case "dsa_verify_asn1": throw Errors.ecError(context, "invalid signature: " + e);
                case "derive": case "dh_compute_key": throw Errors.pkeyError(context, "invalid peer key: " + e.getMessage());
                default: throw Errors.ecError(context, e.toString());
            }
        }
    }

    /** Stock's ECDSA on BouncyCastle (jruby-openssl's own signer, which counts as java). */
    private static IRubyObject stockSignature(ThreadContext context, IRubyObject self, String name, EcStats.Operation operation,
                                              IRubyObject... args) {
        if (active(context)) EcStats.count(EcEngines.JAVA, operation);
        return stock(context, self, name, args);
    }

    @JRubyMethod(name = "dsa_sign_asn1", rest = true)
    public static IRubyObject dsa_sign_asn1(ThreadContext context, IRubyObject self, IRubyObject[] args) {
        if (args.length != 1) return stock(context, self, "dsa_sign_asn1", args);
        IRubyObject data = args[0];
        IRubyObject signed = sign(context, self, data);
        return signed != null ? signed : stockSignature(context, self, "dsa_sign_asn1", EcStats.Operation.SIGN, data);
    }

    /** {@code sign_raw(digest, data)}: as stock, dsa_sign_asn1 of data (the digest name is not used). */
    @JRubyMethod(name = "sign_raw", rest = true)
    public static IRubyObject sign_raw(ThreadContext context, IRubyObject self, IRubyObject[] args) {
        if (args.length != 2) return stock(context, self, "sign_raw", args);
        IRubyObject digest = args[0];
        IRubyObject data = args[1];
        IRubyObject signed = sign(context, self, data);
        return signed != null ? signed : stockSignature(context, self, "sign_raw", EcStats.Operation.SIGN, digest, data);
    }

    @JRubyMethod(name = "dsa_verify_asn1", rest = true)
    public static IRubyObject dsa_verify_asn1(ThreadContext context, IRubyObject self, IRubyObject[] args) {
        if (args.length != 2) return stock(context, self, "dsa_verify_asn1", args);
        IRubyObject data = args[0];
        IRubyObject signature = args[1];
        Boolean valid = verify(context, self, data, signature);
        return valid != null ? context.runtime.newBoolean(valid)
                : stockSignature(context, self, "dsa_verify_asn1", EcStats.Operation.VERIFY, data, signature);
    }

    /** {@code verify_raw(digest, signature, data)}: as stock, a malformed signature is false. */
    @JRubyMethod(name = "verify_raw", rest = true)
    public static IRubyObject verify_raw(ThreadContext context, IRubyObject self, IRubyObject[] args) {
        if (args.length != 3) return stock(context, self, "verify_raw", args);
        IRubyObject digest = args[0];
        IRubyObject signature = args[1];
        IRubyObject data = args[2];
        Boolean valid = verify(context, self, data, signature);
        return valid != null ? context.runtime.newBoolean(valid)
                : stockSignature(context, self, "verify_raw", EcStats.Operation.VERIFY, digest, signature, data);
    }

    /** {@code derive(peer)}: the ECDH secret with a peer {@code OpenSSL::PKey::EC}. */
    @JRubyMethod(name = "derive", rest = true)
    public static IRubyObject derive(ThreadContext context, IRubyObject self, IRubyObject[] args) {
        if (args.length != 1) return stock(context, self, "derive", args);
        IRubyObject peer = args[0];
        PublicKey peerKey = peer instanceof org.jruby.RubyObject && isEcKey(context, peer) ? PKeyAccess.publicKey(peer) : null;
        ECPoint w = peerKey instanceof ECPublicKey ? ((ECPublicKey) peerKey).getW() : null;
        IRubyObject secret = w == null || w == ECPoint.POINT_INFINITY ? null
                : derive(context, self, EcCurve.ofBouncyCastleKey(((ECPublicKey) peerKey).getParams()), w.getAffineX(), w.getAffineY());
        return secret != null ? secret : stock(context, self, "derive", peer);
    }

    /** {@code dh_compute_key(point)}: the ECDH secret with a peer's {@code OpenSSL::PKey::EC::Point}. */
    @JRubyMethod(name = "dh_compute_key", rest = true)
    public static IRubyObject dh_compute_key(ThreadContext context, IRubyObject self, IRubyObject[] args) {
        if (args.length != 1) return stock(context, self, "dh_compute_key", args);
        IRubyObject point = args[0];
        IRubyObject secret = null;
        Target target = point.isNil() ? null : target(self, true);
        if (target != null && point.getMetaClass().getRealClass() == context.runtime.getClassFromPath("OpenSSL::PKey::EC::Point")) {
            BigInteger[] xy = uncompressed(point.callMethod(context, "to_octet_string", context.runtime.newSymbol("uncompressed")),
                    target.curve.fieldBytes());
            if (xy != null) secret = derive(context, self, target.curve, xy[0], xy[1]);
        }
        return secret != null ? secret : stock(context, self, "dh_compute_key", point);
    }

    /** Our signature of {@code data} (taken as the digest), or null for stock to answer. */
    private static IRubyObject sign(ThreadContext context, IRubyObject self, IRubyObject data) {
        Target target = data instanceof RubyString ? target(self, true) : null;
        if (target == null) return null;
        ByteList bytes = ((RubyString) data).getByteList();
        try {
            byte[] signature = target.engine.sign((ECPrivateKey) target.key, target.curve, null,
                    bytes.unsafeBytes(), bytes.begin(), bytes.realSize(), true);
            EcStats.count(OpenSslEcEngine.NAME, EcStats.Operation.SIGN);
            return Strings.binary(context.runtime, signature);
        } catch (EcEngineException e) {
            warnFallback(e);
            return null;
        } catch (IllegalArgumentException e) {
            return null; // a key no engine takes: stock signs it (or fails) as it does
        }
    }

    /**
     * Our verdict on {@code signature} over {@code data} (the digest), read as
     * jruby-openssl reads it (BouncyCastle's ASN1InputStream, the first two
     * INTEGERs of a SEQUENCE, their magnitudes); null for stock to answer
     * (a signature it reads otherwise, whose error or verdict is stock's).
     */
    private static Boolean verify(ThreadContext context, IRubyObject self, IRubyObject data, IRubyObject signature) {
        Target target = data instanceof RubyString && signature instanceof RubyString ? target(self, false) : null;
        if (target == null) return null;
        BigInteger r;
        BigInteger s;
        try (ASN1InputStream in = new ASN1InputStream(((RubyString) signature).getBytes())) {
            ASN1Primitive read = in.readObject();
            if (!(read instanceof ASN1Sequence)) return null;
            ASN1Sequence sequence = (ASN1Sequence) read;
            r = ASN1Integer.getInstance(sequence.getObjectAt(0)).getPositiveValue();
            s = ASN1Integer.getInstance(sequence.getObjectAt(1)).getPositiveValue();
        } catch (Exception e) {
            return null;
        }
        ByteList bytes = ((RubyString) data).getByteList();
        try {
            boolean valid = target.engine.verify((ECPublicKey) target.key, target.curve, null,
                    bytes.unsafeBytes(), bytes.begin(), bytes.realSize(), true, r, s);
            EcStats.count(OpenSslEcEngine.NAME, EcStats.Operation.VERIFY);
            return valid;
        } catch (EcEngineException e) {
            warnFallback(e);
            return null;
        } catch (IllegalArgumentException e) {
            return null; // a public point not on the curve: stock says what it says
        }
    }

    /** The ECDH secret with (x, y) on {@code peerCurve}, or null for stock to answer (another curve, a bad point). */
    private static IRubyObject derive(ThreadContext context, IRubyObject self, EcCurve peerCurve, BigInteger x, BigInteger y) {
        Target target = target(self, true);
        if (target == null || peerCurve != target.curve) return null;
        try {
            byte[] secret = target.engine.derive((ECPrivateKey) target.key, target.curve, x, y);
            EcStats.count(OpenSslEcEngine.NAME, EcStats.Operation.DERIVE);
            return Strings.binary(context.runtime, secret);
        } catch (EcEngineException e) {
            warnFallback(e);
            return null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** (x, y) of an uncompressed point encoding (04 || X || Y), or null. */
    private static BigInteger[] uncompressed(IRubyObject octets, int fieldBytes) {
        if (!(octets instanceof RubyString)) return null;
        byte[] bytes = ((RubyString) octets).getBytes();
        if (bytes.length != 1 + 2 * fieldBytes || bytes[0] != 0x04) return null;
        return new BigInteger[] {
            new BigInteger(1, java.util.Arrays.copyOfRange(bytes, 1, 1 + fieldBytes)),
            new BigInteger(1, java.util.Arrays.copyOfRange(bytes, 1 + fieldBytes, bytes.length)),
        };
    }

    private static boolean isEcKey(ThreadContext context, IRubyObject object) {
        return context.runtime.getClassFromPath("OpenSSL::PKey::EC").isInstance(object);
    }

    private static boolean active(ThreadContext context) {
        return OpenSSLHook.serving(context.runtime, ProviderHook.Capability.EC) && EcEngines.current() != null;
    }

    private static void warnFallback(EcEngineException e) {
        EcStats.fellBack(e, EngineRegistry.JRUBY_OPENSSL_CODE);
    }

    /** The key, its curve and the engine, when our engine takes the key (and serves its curve); else null. */
    private static Target target(IRubyObject self, boolean needPrivate) {
        if (!OpenSSLHook.serving(self.getRuntime(), ProviderHook.Capability.EC)) return null; // uninstalled: stock throughout
        OpenSslEcEngine engine = EcEngines.current();
        if (engine == null) return null;
        if (needPrivate) {
            PrivateKey key = PKeyAccess.privateKey(self);
            EcCurve curve = key instanceof ECPrivateKey ? EcCurve.ofBouncyCastleKey(((ECPrivateKey) key).getParams()) : null;
            return engine.serves(curve) ? new Target(engine, key, curve) : null;
        }
        PublicKey key = PKeyAccess.publicKey(self);
        EcCurve curve = key instanceof ECPublicKey ? EcCurve.ofBouncyCastleKey(((ECPublicKey) key).getParams()) : null;
        return engine.serves(curve) ? new Target(engine, key, curve) : null;
    }

    private static final class Target {
        final OpenSslEcEngine engine;
        final Object key;
        final EcCurve curve;

        Target(OpenSslEcEngine engine, Object key, EcCurve curve) {
            this.engine = engine;
            this.key = key;
            this.curve = curve;
        }
    }
}
