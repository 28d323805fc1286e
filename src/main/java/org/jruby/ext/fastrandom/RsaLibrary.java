package org.jruby.ext.fastrandom;

import org.jruby.Ruby;
import org.jruby.RubyModule;
import org.jruby.runtime.load.Library;

/**
 * Loaded by lib/fast_random/rsa.rb (autoloaded with {@code FastRandom::RSA},
 * or when openssl is loaded), never by a plain {@code require "fast_random"},
 * so apps that do not use RSA pay nothing for it. Nothing here needs
 * jruby-openssl's BouncyCastle: the PSS methods, which do, are defined when
 * openssl is loaded ({@link RsaModule#install}).
 */
public final class RsaLibrary implements Library {
    @Override
    public void load(Ruby runtime, boolean wrap) {
        RubyModule rsa = runtime.getOrCreateModule("FastRandom").defineOrGetModuleUnder("RSA");
        RsaModule.define(runtime, rsa);
    }
}
