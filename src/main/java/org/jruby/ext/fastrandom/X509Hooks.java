package org.jruby.ext.fastrandom;

import java.util.Collections;

import org.jruby.Ruby;
import org.jruby.RubyModule;

import fastrandom.support.Diagnostics;

/**
 * Puts fast_random's {@code X509::Certificate#sign}/{@code #verify}
 * ({@link CertificateMethods}) and {@code X509::CRL#verify}
 * ({@link CrlMethods}) in place, for RSA's and EC's installs, and never
 * lets them fail those installs: their classes name BouncyCastle's PKIX
 * classes, which a JVM can lack where fast_random's classes sit (its jar on
 * a container's class path beside BouncyCastle's provider alone); there,
 * and wherever else they cannot be installed, jruby-openssl's methods stay
 * (said under {@code -w}, or, for a class that refuses them, once).
 */
final class X509Hooks {
    private X509Hooks() {}

    static void install(Ruby runtime) {
        ClassLoader loader = runtime.getJRubyClassLoader();
        try {
            put(runtime, "OpenSSL::X509::Certificate", CertificateMethods.class, CertificateMethods.NAMES, "Certificate#sign and #verify stay",
                    CertificateAccess.missing(loader));
            // After the certificate's: CrlMethods calls CertificateMethods, which has loaded by now.
            put(runtime, "OpenSSL::X509::CRL", CrlMethods.class, CrlMethods.NAMES, "CRL#verify stays", CrlMethods.missing(loader));
        } catch (LinkageError | RuntimeException e) {
            Diagnostics.warnOnceIfVerbose("X509::Certificate#sign, #verify and CRL#verify stay jruby-openssl's: " + e);
        }
    }

    /**
     * Replaces {@code names} on the class at {@code path} with those of
     * {@code methods}, once ({@code what}: "... stay(s)", for the
     * warnings); where jruby-openssl lacks what they read
     * ({@code missing}, null when nothing) or the class refuses them (a
     * frozen class, say), jruby-openssl's stay.
     */
    private static void put(Ruby runtime, String path, Class<?> methods, String[] names, String what, String missing) {
        if (!OpenSSLHook.defined(runtime, path)) return;
        if (missing != null) {
            Diagnostics.warnOnceIfVerbose(what + " jruby-openssl's: it has no " + missing);
            return;
        }
        RubyModule target = runtime.getClassFromPath(path);
        try {
            StockMethods.install(target, methods, names, Collections.<String>emptySet());
        } catch (RuntimeException | LinkageError e) {
            StockMethods.uninstall(target);
            Diagnostics.warnOnce(what + " jruby-openssl's: " + e);
        }
    }
}
