package org.jruby.ext.fastrandom;

import java.util.Collections;

import org.jruby.Ruby;
import org.jruby.RubyModule;

import fastrandom.support.Diagnostics;

/**
 * Puts fast_random's {@code X509::Certificate#sign}/{@code #verify}
 * ({@link CertificateMethods}) and {@code X509::CRL#verify}
 * ({@link CrlMethods}) in place, once RSA's and EC's installs are done
 * ({@link OpenSSLHook}, which then runs their check at load and takes them
 * out again where it fails), and never lets them fail anything else: their
 * classes name BouncyCastle's PKIX classes, which a JVM can lack where
 * fast_random's classes sit (its jar on a container's class path beside
 * BouncyCastle's provider alone); there, and wherever else they cannot be
 * installed, jruby-openssl's methods stay (said under {@code -w}, or, for a
 * class that refuses them, once). Installed, they follow RSA's and EC's
 * switches call by call, so those modules' {@code uninstall} and
 * {@code install} need not touch them.
 */
final class X509Hooks {
    /** The start of every warning that leaves them jruby-openssl's. */
    static final String STAY = "X509::Certificate#sign, #verify and CRL#verify stay jruby-openssl's";
    private static final String CERTIFICATE = "OpenSSL::X509::Certificate";
    private static final String CRL = "OpenSSL::X509::CRL";

    private X509Hooks() {}

    static void install(Ruby runtime) {
        ClassLoader loader = runtime.getJRubyClassLoader();
        try {
            put(runtime, CERTIFICATE, CertificateMethods.class, CertificateMethods.NAMES, "Certificate#sign and #verify stay",
                    CertificateAccess.missing(loader));
            // After the certificate's: CrlMethods calls CertificateMethods, which has loaded by now.
            put(runtime, CRL, CrlMethods.class, CrlMethods.NAMES, "CRL#verify stays", CrlMethods.missing(loader));
        } catch (LinkageError | RuntimeException e) {
            Diagnostics.warnOnceIfVerbose(STAY + ": " + e);
        }
    }

    /** Gives both classes jruby-openssl's methods back (after a failed check at load); nothing to do where they are not in. */
    static void uninstall(Ruby runtime) {
        for (String path : new String[] {CERTIFICATE, CRL}) {
            if (OpenSSLHook.defined(runtime, path)) StockMethods.uninstall(runtime.getClassFromPath(path));
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
