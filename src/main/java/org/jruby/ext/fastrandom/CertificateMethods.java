package org.jruby.ext.fastrandom;

import java.io.ByteArrayInputStream;
import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.SignatureException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPrivateKey;
import java.security.interfaces.RSAPublicKey;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.jruby.Ruby;
import org.jruby.RubyModule;
import org.jruby.RubyString;
import org.jruby.anno.JRubyMethod;
import org.jruby.exceptions.RaiseException;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

import fastrandom.ec.EcEngines;
import fastrandom.jca.JRubyOpenSslProvider;
import fastrandom.jca.PKeyAccess;
import fastrandom.jca.ProviderHook;
import fastrandom.rsa.RsaEngines;

/**
 * {@code OpenSSL::X509::Certificate#sign} and {@code #verify}, put in place
 * of jruby-openssl's when RSA or EC is installed ({@link X509Hooks}). jruby-openssl asks the
 * certificate object BouncyCastle parsed to verify itself, and BouncyCastle
 * does so with a provider of its own, which no hook reaches. This method
 * verifies the same bytes (the TBSCertificate as BouncyCastle encodes it,
 * the signature) with the same algorithm through jruby-openssl's provider,
 * so RSA PKCS#1 v1.5 and ECDSA signatures run on fast_random's engines.
 *
 * <p>It takes a call only when the certificate is signed and unchanged
 * since, with SHA-1 or SHA-2 RSA PKCS#1 v1.5 or ECDSA (parameters absent or
 * NULL, the same in the TBSCertificate as outside it: BouncyCastle's
 * check), the key is an RSA or EC key of that algorithm, and its
 * capability (FastRandom::RSA or EC) serves jruby-openssl. Everything else
 * (RSA-PSS, EdDSA, DSA, a key of another type, a mismatch BouncyCastle
 * raises for) is jruby-openssl's own method, so its verdicts and errors are
 * stock's; a signature the provider refuses to read is false, as stock.
 */
public final class CertificateMethods {
    static final String[] NAMES = {"sign", "verify"};
    /** The digests sign takes, as jruby-openssl names them (SHA-3 and the rest stay stock's). */
    private static final Set<String> DIGESTS = new HashSet<>(Arrays.asList("SHA1", "SHA224", "SHA256", "SHA384", "SHA512"));
    /** Signature algorithm OIDs taken -> the JCA name and the key capability. */
    private static final Map<String, Algorithm> ALGORITHMS = new HashMap<>();

    static {
        String rsa = "1.2.840.113549.1.1.";
        put(rsa + "5", "SHA1WITHRSA", ProviderHook.Capability.RSA);
        put(rsa + "14", "SHA224WITHRSA", ProviderHook.Capability.RSA);
        put(rsa + "11", "SHA256WITHRSA", ProviderHook.Capability.RSA);
        put(rsa + "12", "SHA384WITHRSA", ProviderHook.Capability.RSA);
        put(rsa + "13", "SHA512WITHRSA", ProviderHook.Capability.RSA);
        put("1.2.840.10045.4.1", "SHA1WITHECDSA", ProviderHook.Capability.EC);
        put("1.2.840.10045.4.3.1", "SHA224WITHECDSA", ProviderHook.Capability.EC);
        put("1.2.840.10045.4.3.2", "SHA256WITHECDSA", ProviderHook.Capability.EC);
        put("1.2.840.10045.4.3.3", "SHA384WITHECDSA", ProviderHook.Capability.EC);
        put("1.2.840.10045.4.3.4", "SHA512WITHECDSA", ProviderHook.Capability.EC);
    }

    /** DER NULL: the parameters RSA's PKCS#1 v1.5 algorithms carry. */
    private static final byte[] DER_NULL = {0x05, 0x00};

    private CertificateMethods() {}

    private static final class Algorithm {
        final String name;
        final ProviderHook.Capability capability;
        final byte[] oid; // its DER encoding

        Algorithm(String name, ProviderHook.Capability capability, byte[] oid) {
            this.name = name;
            this.capability = capability;
            this.oid = oid;
        }

        /** Whether the key is of this algorithm's type. */
        boolean takes(PublicKey key) {
            return capability == ProviderHook.Capability.RSA ? key instanceof RSAPublicKey : key instanceof ECPublicKey;
        }
    }

    private static void put(String oid, String name, ProviderHook.Capability capability) {
        try {
            ALGORITHMS.put(oid, new Algorithm(name, capability, new ASN1ObjectIdentifier(oid).getEncoded()));
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static IRubyObject stock(ThreadContext context, IRubyObject self, String name, IRubyObject[] args) {
        RubyModule type = context.runtime.getClassFromPath("OpenSSL::X509::Certificate");
        return StockMethods.kept(context, type, name).call(context, self, type, name, args);
    }

    @JRubyMethod(name = "verify", rest = true)
    public static IRubyObject verify(ThreadContext context, IRubyObject self, IRubyObject[] args) {
        Boolean verdict = args.length == 1 ? verify(context.runtime, self, args[0]) : null;
        return verdict != null ? context.runtime.newBoolean(verdict) : stock(context, self, "verify", args);
    }

    /** Our verdict, or null for jruby-openssl's method to give its own. */
    private static Boolean verify(Ruby runtime, IRubyObject self, IRubyObject key) {
        CertificateAccess access = CertificateAccess.of(runtime.getJRubyClassLoader());
        if (access == null || !access.certificateType.isInstance(self) || access.changed(self)) return null; // changed: stock's false
        X509Certificate cert = access.certificate(self);
        if (cert == null) return null;
        try {
            return verifySigned(runtime, PKeyAccess.publicKey(key), cert.getSigAlgOID(), cert.getSigAlgParams(), cert.getTBSCertificate(),
                    true, cert::getSignature);
        } catch (CertificateEncodingException | RuntimeException e) {
            return null;
        }
    }

    /**
     * The verdict on a signed X.509 structure (a certificate, or a CRL when
     * not {@code certificate}) through jruby-openssl's provider: its TBS
     * bytes, the outer signature algorithm (OID, parameters) and the
     * signature. False where the provider refuses the signature or key, as
     * BouncyCastle's answer is; null for jruby-openssl's own method to
     * answer (no key, an algorithm or key taken elsewhere, the capability
     * off, algorithms inside and outside the TBS not the same).
     */
    static Boolean verifySigned(Ruby runtime, PublicKey publicKey, String oid, byte[] outerParameters, byte[] tbs,
                                boolean certificate, java.util.function.Supplier<byte[]> signatureBytes) {
        Algorithm algorithm = publicKey == null ? null : ALGORITHMS.get(oid);
        if (algorithm == null || !algorithm.takes(publicKey)) return null;
        JRubyOpenSslProvider provider = OpenSSLHook.provider(runtime, algorithm.capability);
        if (provider == null || !provider.isActive(algorithm.capability)) return null;
        if (!sameAlgorithm(outerParameters, tbs, certificate, algorithm)) return null; // BouncyCastle refuses: stock says how
        try {
            Signature signature = Signature.getInstance(algorithm.name, provider);
            signature.initVerify(publicKey);
            signature.update(tbs);
            return signature.verify(signatureBytes.get());
        } catch (SignatureException | InvalidKeyException e) {
            return false; // as stock
        } catch (NoSuchAlgorithmException | RuntimeException e) {
            return null;
        }
    }

    /**
     * {@code sign(key, digest)}: jruby-openssl's steps (its TBSCertificate
     * builder, its extensions made unique, BouncyCastle's
     * {@code JcaContentSignerBuilder} with jruby-openssl's algorithm name),
     * but signed by jruby-openssl's provider instead of the JVM's, for an
     * RSA or EC private key and SHA-1 or SHA-2. Anything else, and any
     * failure before the certificate is recorded, is jruby-openssl's own
     * method (which raises what it raises).
     */
    @JRubyMethod(name = "sign", rest = true)
    public static IRubyObject sign(ThreadContext context, IRubyObject self, IRubyObject[] args) {
        if (args.length == 2 && signHere(context, self, args[0], args[1])) return self;
        return stock(context, self, "sign", args);
    }

    /** Signs as jruby-openssl's sign does, through its provider; false (nothing changed) for stock to sign. */
    private static boolean signHere(ThreadContext context, IRubyObject self, IRubyObject key, IRubyObject digest) {
        Ruby runtime = context.runtime;
        CertificateAccess access = CertificateAccess.of(runtime.getJRubyClassLoader());
        if (access == null || !access.certificateType.isInstance(self)) return false;
        PrivateKey privateKey = PKeyAccess.privateKey(key);
        ProviderHook.Capability capability = privateKey instanceof RSAPrivateKey ? ProviderHook.Capability.RSA
                : privateKey instanceof ECPrivateKey ? ProviderHook.Capability.EC : null;
        if (capability == null) return false;
        JRubyOpenSslProvider provider = OpenSSLHook.provider(runtime, capability);
        if (provider == null || !provider.isActive(capability) || !engineRuns(capability)) return false;
        String digestName;
        if (access.digestType.isInstance(digest)) {
            if ("DSS1".equals(access.digestName(digest))) return false;
            digestName = access.digestShortName(digest);
        } else if (digest instanceof RubyString) {
            digestName = digest.asJavaString();
        } else {
            return false;
        }
        if (!DIGESTS.contains(digestName.toUpperCase(Locale.ROOT))) return false;
        // jruby-openssl's name: the digest's, WITH, the key's algorithm ("RSA"; "ECDSA" for EC).
        String keyAlgorithm = capability == ProviderHook.Capability.RSA ? "RSA" : "ECDSA";
        try {
            X509v3CertificateBuilder builder = access.newCertificateBuilder(self);
            for (Object extension : access.uniqueExtensions(self)) {
                builder.addExtension(access.extensionOid(extension), access.extensionCritical(extension), access.extensionValue(extension));
            }
            ContentSigner signer = new JcaContentSignerBuilder(digestName + "WITH" + keyAlgorithm).setProvider(provider).build(privateKey);
            X509CertificateHolder holder = builder.build(signer);
            X509Certificate signed = (X509Certificate) access.certificateFactory()
                    .generateCertificate(new ByteArrayInputStream(holder.getEncoded()));
            String name = access.oidName(holder.getSignatureAlgorithm().getAlgorithm());
            access.signed(self, signed, runtime.newString(name != null ? name : signed.getSigAlgOID()));
            return true;
        } catch (RaiseException e) {
            throw e; // jruby-openssl's own error (an invalid public key, say), raised as its sign raises it
        } catch (OperatorCreationException | java.io.IOException | GeneralSecurityException | RuntimeException e) {
            return false; // stock signs, or raises its own error
        }
    }

    /** Whether an engine (not jruby-openssl's own code) runs the capability's signatures now. */
    private static boolean engineRuns(ProviderHook.Capability capability) {
        return capability == ProviderHook.Capability.RSA ? RsaEngines.current() != null : EcEngines.current() != null;
    }

    /**
     * Whether the signature algorithm, outside and in the TBS, is the
     * algorithm's OID with the same parameters, both absent or (RSA only)
     * both NULL: BouncyCastle requires them to be the same (absent and NULL
     * differ unless a system property says otherwise), and refuses where
     * they are not, which stock's method says how.
     */
    private static boolean sameAlgorithm(byte[] outer, byte[] tbs, boolean certificate, Algorithm algorithm) {
        byte[] inner = tbsAlgorithmParameters(tbs, certificate, algorithm.oid);
        if (inner == null) return false;
        if (inner.length == 0) inner = null;
        return allowedParameters(outer, algorithm) && (outer == null ? inner == null : Arrays.equals(outer, inner));
    }

    private static boolean allowedParameters(byte[] parameters, Algorithm algorithm) {
        return parameters == null || algorithm.capability == ProviderHook.Capability.RSA && Arrays.equals(parameters, DER_NULL);
    }

    /**
     * The parameters (their DER, empty when absent) of the TBS's signature
     * AlgorithmIdentifier, or null when it is not one with the OID
     * {@code oid} or the DER is not as expected. TBSCertificate ::= SEQUENCE
     * { [0] version OPTIONAL, serialNumber INTEGER, signature
     * AlgorithmIdentifier, ... }; TBSCertList ::= SEQUENCE { version INTEGER
     * OPTIONAL, signature AlgorithmIdentifier, ... }; AlgorithmIdentifier
     * ::= SEQUENCE { OID, parameters OPTIONAL }.
     */
    private static byte[] tbsAlgorithmParameters(byte[] tbs, boolean certificate, byte[] oid) {
        int[] at = {0};
        if (header(tbs, at, 0x30) < 0) return null; // into the TBS
        if (certificate) {
            if (at[0] < tbs.length && (tbs[at[0]] & 0xff) == 0xa0 && skip(tbs, at, 0xa0) < 0) return null;
            if (skip(tbs, at, 0x02) < 0) return null;
        } else if (at[0] < tbs.length && (tbs[at[0]] & 0xff) == 0x02 && skip(tbs, at, 0x02) < 0) {
            return null;
        }
        int length = header(tbs, at, 0x30);
        if (length < 0) return null;
        int end = at[0] + length;
        if (end - at[0] < oid.length || !Arrays.equals(Arrays.copyOfRange(tbs, at[0], at[0] + oid.length), oid)) return null;
        return Arrays.copyOfRange(tbs, at[0] + oid.length, end);
    }

    /** Past the element of tag {@code tag} at {@code at}: its length, or -1. */
    private static int skip(byte[] der, int[] at, int tag) {
        int length = header(der, at, tag);
        if (length < 0) return -1;
        at[0] += length;
        return length;
    }

    /** Into the element of tag {@code tag} at {@code at} (past its header): its length, or -1 if it is not there whole. */
    private static int header(byte[] der, int[] at, int tag) {
        int i = at[0];
        if (i + 2 > der.length || (der[i] & 0xff) != tag) return -1;
        int length = der[i + 1] & 0xff;
        i += 2;
        if (length >= 0x80) {
            int bytes = length - 0x80;
            if (bytes < 1 || bytes > 3 || i + bytes > der.length) return -1;
            length = 0;
            for (int k = 0; k < bytes; k++) length = (length << 8) | (der[i++] & 0xff);
        }
        if (length > der.length - i) return -1;
        at[0] = i;
        return length;
    }
}
