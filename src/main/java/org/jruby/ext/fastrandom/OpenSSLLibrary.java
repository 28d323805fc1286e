package org.jruby.ext.fastrandom;

import org.jruby.Ruby;
import org.jruby.RubyModule;
import org.jruby.runtime.load.Library;

/**
 * Loaded once openssl is (lib/fast_random/openssl_hook.rb): defines
 * {@code FastRandom::OpenSSLRandomMethods} and prepends it to
 * {@code OpenSSL::Random}'s singleton class.
 */
public final class OpenSSLLibrary implements Library {
    @Override
    public void load(Ruby runtime, boolean wrap) {
        RubyModule methods = OpenSSLRandomMethods.define(runtime, runtime.getOrCreateModule("FastRandom"));
        runtime.getClassFromPath("OpenSSL::Random").getSingletonClass().prependModule(methods);
    }
}
