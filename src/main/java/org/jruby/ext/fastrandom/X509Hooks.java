package org.jruby.ext.fastrandom;

import org.jruby.Ruby;

import fastrandom.support.Diagnostics;

/**
 * Puts fast_random's {@code X509::Certificate#sign}/{@code #verify}
 * ({@link CertificateMethods}) and {@code X509::CRL#verify}
 * ({@link CrlMethods}) in place, for RSA's and EC's installs, and never
 * lets them fail those installs: their classes name BouncyCastle's PKIX
 * classes, which a JVM can lack where fast_random's classes sit (its jar on
 * a container's class path beside BouncyCastle's provider alone); there,
 * and wherever else they cannot be installed, jruby-openssl's methods stay
 * (said under {@code -w}). This class names none of them itself.
 */
final class X509Hooks {
    private X509Hooks() {}

    static void install(Ruby runtime) {
        try {
            CertificateMethods.install(runtime);
            CrlMethods.install(runtime); // uses CertificateMethods: only once it loaded
        } catch (LinkageError | RuntimeException e) {
            Diagnostics.warnOnceIfVerbose("X509::Certificate#sign, #verify and CRL#verify stay jruby-openssl's: " + e);
        }
    }
}
