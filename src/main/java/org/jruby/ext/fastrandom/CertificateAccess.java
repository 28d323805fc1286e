package org.jruby.ext.fastrandom;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.security.cert.X509Certificate;
import java.util.Collection;

import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.jruby.runtime.builtin.IRubyObject;

/**
 * What {@link CertificateMethods} reads and writes of jruby-openssl's
 * {@code OpenSSL::X509::Certificate} (its Java class
 * {@code org.jruby.ext.openssl.X509Cert}) and the classes its {@code sign}
 * uses, so that fast_random's {@code verify} and {@code sign} do exactly
 * what jruby-openssl's do but for the JCA provider: the certificate and
 * whether it changed since it was signed, the builder of its
 * TBSCertificate and its extensions (each OID, encoding and criticality),
 * the signature algorithm's name, a digest's names, and the
 * CertificateFactory it parses a signed certificate with. The same members
 * in every release from 0.14.0 to 0.16.2; without them, both methods stay
 * jruby-openssl's ({@link #missing}).
 */
final class CertificateAccess {
    private static final String PACKAGE = "org.jruby.ext.openssl.";

    final Class<?> certificateType;
    private final Field cert;
    private final Field changed;
    private final Field sigAlg;
    private final Method newCertificateBuilder;
    private final Method uniqueExtensions;
    private final Method extensionOid;
    private final Method extensionValue;
    private final Method extensionCritical;
    private final Method digestShortName;
    private final Method digestName;
    final Class<?> digestType;
    private final Method oidName;
    private final Method certificateFactory;

    private CertificateAccess(ClassLoader loader) throws ReflectiveOperationException {
        certificateType = Class.forName(PACKAGE + "X509Cert", false, loader);
        cert = field(certificateType, "cert", X509Certificate.class);
        changed = field(certificateType, "changed", boolean.class);
        sigAlg = field(certificateType, "sig_alg", IRubyObject.class);
        newCertificateBuilder = method(certificateType, "newCertificateBuilder", X509v3CertificateBuilder.class);
        uniqueExtensions = method(certificateType, "uniqueExtensions", Collection.class);
        Class<?> extension = Class.forName(PACKAGE + "X509Extension", false, loader);
        extensionOid = method(extension, "getRealObjectID", ASN1ObjectIdentifier.class);
        extensionValue = method(extension, "getRealValueEncoded", byte[].class);
        extensionCritical = method(extension, "isRealCritical", boolean.class);
        digestType = Class.forName(PACKAGE + "Digest", false, loader);
        digestShortName = method(digestType, "getShortAlgorithm", String.class);
        digestName = method(digestType, "getName", String.class);
        oidName = Class.forName(PACKAGE + "impl.ASN1Registry", false, loader).getMethod("o2a", ASN1ObjectIdentifier.class);
        certificateFactory = Class.forName(PACKAGE + "SecurityHelper", false, loader).getMethod("getCertificateFactory", String.class);
        if (certificateFactory.getReturnType() != java.security.cert.CertificateFactory.class) {
            throw new NoSuchMethodException("SecurityHelper.getCertificateFactory returns a " + certificateFactory.getReturnType().getName());
        }
    }

    /** The last class loader asked about, and its answer: a CertificateAccess, or why not (a String). */
    private static volatile Object[] loaded = {null, null};

    /** jruby-openssl's, from {@code loader}, or null when it lacks something ({@link #missing} says what). */
    static CertificateAccess of(ClassLoader loader) {
        Object access = load(loader);
        return access instanceof CertificateAccess ? (CertificateAccess) access : null;
    }

    /** What jruby-openssl lacks that this class needs, or null. */
    static String missing(ClassLoader loader) {
        Object access = load(loader);
        return access instanceof String ? (String) access : null;
    }

    private static Object load(ClassLoader loader) {
        Object[] last = loaded;
        if (last[0] == loader) return last[1];
        Object access;
        try {
            access = new CertificateAccess(loader);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            access = "org.jruby.ext.openssl.X509Cert's members that verify and sign use (" + e + ")";
        }
        loaded = new Object[] {loader, access};
        return access;
    }

    private static Field field(Class<?> type, String name, Class<?> expected) throws NoSuchFieldException {
        Field field = type.getDeclaredField(name);
        if (field.getType() != expected) throw new NoSuchFieldException(name + " is a " + field.getType().getName());
        field.setAccessible(true);
        return field;
    }

    private static Method method(Class<?> type, String name, Class<?> returns) throws NoSuchMethodException {
        Method method = type.getDeclaredMethod(name);
        if (method.getReturnType() != returns) throw new NoSuchMethodException(name + " returns a " + method.getReturnType().getName());
        method.setAccessible(true);
        return method;
    }

    X509Certificate certificate(IRubyObject self) {
        return (X509Certificate) get(cert, self);
    }

    boolean changed(IRubyObject self) {
        return (Boolean) get(changed, self);
    }

    /** Records a signed certificate as jruby-openssl's sign does: the certificate, its algorithm's name, unchanged. */
    void signed(IRubyObject self, X509Certificate certificate, IRubyObject algorithmName) {
        try {
            cert.set(self, certificate);
            sigAlg.set(self, algorithmName);
            changed.setBoolean(self, false);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e); // made accessible
        }
    }

    X509v3CertificateBuilder newCertificateBuilder(IRubyObject self) {
        return (X509v3CertificateBuilder) call(newCertificateBuilder, self);
    }

    Collection<?> uniqueExtensions(IRubyObject self) {
        return (Collection<?>) call(uniqueExtensions, self);
    }

    ASN1ObjectIdentifier extensionOid(Object extension) {
        return (ASN1ObjectIdentifier) call(extensionOid, extension);
    }

    byte[] extensionValue(Object extension) {
        return (byte[]) call(extensionValue, extension);
    }

    boolean extensionCritical(Object extension) {
        return (Boolean) call(extensionCritical, extension);
    }

    String digestShortName(Object digest) {
        return (String) call(digestShortName, digest);
    }

    String digestName(Object digest) {
        return (String) call(digestName, digest);
    }

    /** The X.509 CertificateFactory jruby-openssl parses a signed certificate with (its SecurityHelper's). */
    java.security.cert.CertificateFactory certificateFactory() {
        return (java.security.cert.CertificateFactory) call(certificateFactory, null, "X.509");
    }

    /** OpenSSL's short name of an OID as jruby-openssl knows it, or null. */
    String oidName(ASN1ObjectIdentifier oid) {
        return (String) call(oidName, null, oid);
    }

    private static Object get(Field field, Object self) {
        try {
            return field.get(self);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e); // made accessible
        }
    }

    /** Calls a jruby-openssl method; its own exceptions (a Ruby error it raises, say) come out as they are. */
    private static Object call(Method method, Object self, Object... args) {
        try {
            return method.invoke(self, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) throw (RuntimeException) cause;
            if (cause instanceof Error) throw (Error) cause;
            throw new IllegalStateException(cause);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e); // made accessible
        }
    }
}
