package org.jruby.ext.fastrandom;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.security.cert.CRLException;
import java.security.cert.X509CRL;

import org.jruby.Ruby;
import org.jruby.RubyModule;
import org.jruby.anno.JRubyMethod;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

import fastrandom.jca.PKeyAccess;

/**
 * {@code OpenSSL::X509::CRL#verify}, put in place of jruby-openssl's when
 * RSA or EC is installed ({@link X509Hooks}). jruby-openssl verifies a CRL
 * with BouncyCastle's lightweight verifiers, which no hook reaches; this
 * method verifies the same bytes through jruby-openssl's provider, as
 * {@link CertificateMethods#verifySigned} does for certificates (RSA
 * PKCS#1 v1.5 and ECDSA with SHA-1 or SHA-2, the algorithms inside and
 * outside the TBSCertList the same). Everything else, and a CRL changed
 * since it was signed, is jruby-openssl's method, so its verdicts are
 * stock's. ({@code sign} stays jruby-openssl's: it rebuilds the signed
 * list afterwards in ways of its own.)
 */
public final class CrlMethods {
    static final String[] NAMES = {"verify"};
    private static final String CRL_CLASS = "org.jruby.ext.openssl.X509CRL";

    /** The last class loader asked about, and its answer: a Members, or why not (a String). */
    private static volatile Object[] loaded = {null, null};

    private CrlMethods() {}

    /** jruby-openssl's X509CRL: whether it changed since signed, and its Java CRL (built on demand). */
    private static final class Members {
        final Class<?> type;
        final Field changed;
        final Method crl;

        Members(ClassLoader loader) throws ReflectiveOperationException {
            type = Class.forName(CRL_CLASS, false, loader);
            changed = type.getDeclaredField("changed");
            crl = type.getDeclaredMethod("getCRL");
            if (changed.getType() != boolean.class || crl.getReturnType() != X509CRL.class) {
                throw new NoSuchFieldException("changed (boolean) and getCRL() (X509CRL)");
            }
            changed.setAccessible(true);
            crl.setAccessible(true);
        }
    }

    private static Object members(ClassLoader loader) {
        Object[] last = loaded;
        if (last[0] == loader) return last[1];
        Object answer;
        try {
            answer = new Members(loader);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            answer = CRL_CLASS + "'s changed and getCRL() (" + e + ")";
        }
        loaded = new Object[] {loader, answer};
        return answer;
    }

    /** What jruby-openssl lacks that this class reads, or null. */
    static String missing(ClassLoader loader) {
        Object members = members(loader);
        return members instanceof String ? (String) members : null;
    }

    @JRubyMethod(name = "verify", rest = true)
    public static IRubyObject verify(ThreadContext context, IRubyObject self, IRubyObject[] args) {
        Boolean verdict = args.length == 1 ? verify(context.runtime, self, args[0]) : null;
        if (verdict != null) return context.runtime.newBoolean(verdict);
        RubyModule type = context.runtime.getClassFromPath("OpenSSL::X509::CRL");
        return StockMethods.kept(context, type, "verify").call(context, self, type, "verify", args);
    }

    /** Our verdict, or null for jruby-openssl's method to give its own. */
    private static Boolean verify(Ruby runtime, IRubyObject self, IRubyObject key) {
        Object found = members(runtime.getJRubyClassLoader());
        if (!(found instanceof Members)) return null;
        Members members = (Members) found;
        if (!members.type.isInstance(self)) return null;
        X509CRL crl;
        try {
            if (members.changed.getBoolean(self)) return null; // stock's false
            crl = (X509CRL) members.crl.invoke(self);
        } catch (IllegalAccessException | InvocationTargetException | RuntimeException e) {
            return null; // jruby-openssl's own method says what is wrong
        }
        if (crl == null) return null;
        try {
            return CertificateMethods.verifySigned(runtime, PKeyAccess.publicKey(key), crl.getSigAlgOID(), crl.getSigAlgParams(),
                    crl.getTBSCertList(), false, crl::getSignature);
        } catch (CRLException | RuntimeException e) {
            return null;
        }
    }
}
