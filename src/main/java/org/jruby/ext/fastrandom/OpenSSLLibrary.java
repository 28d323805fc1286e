package org.jruby.ext.fastrandom;

import org.jruby.Ruby;
import org.jruby.RubyModule;
import org.jruby.runtime.load.Library;

import fastrandom.support.Diagnostics;

/**
 * Loaded once openssl is ({@link OpenSSLHook}): defines
 * {@code FastRandom::OpenSSLRandomMethods} and prepends it to
 * {@code OpenSSL::Random}'s singleton class, and points what jruby-openssl
 * draws itself at the same generators ({@link OpenSSLRandomHolder}; if this
 * jruby-openssl's holder is not the kind expected, that stays stock's, with
 * one warning).
 */
public final class OpenSSLLibrary implements Library {
    @Override
    public void load(Ruby runtime, boolean wrap) {
        RubyModule methods = OpenSSLRandomMethods.define(runtime, runtime.getOrCreateModule("FastRandom"));
        runtime.getClassFromPath("OpenSSL::Random").getSingletonClass().prependModule(methods);
        try {
            OpenSSLRandomHolder.install(runtime);
        } catch (ReflectiveOperationException | RuntimeException e) {
            Diagnostics.warn("Cipher#random_iv and random_key stay on jruby-openssl's SecureRandom (" + e + ")");
        }
    }
}
