package fastrandom.ext;

import org.jruby.Ruby;
import org.jruby.RubyModule;
import org.jruby.runtime.load.Library;

import fastrandom.random.WarmUp;

/**
 * Loaded by lib/fast_random.rb through {@code JRuby::Util.load_ext}. Defines
 * the Java-backed modules under {@code FastRandom}; the Ruby side decides
 * where they are prepended (SecureRandom now, OpenSSL::Random when it loads).
 */
public final class SecureRandomLibrary implements Library {
    @Override
    public void load(Ruby runtime, boolean wrap) {
        WarmUp.startInBackground();
        Messages.useRubyVersion(runtime.getObject().getConstant("RUBY_VERSION").asJavaString());
        RubyModule fastRandom = runtime.getOrCreateModule("FastRandom");
        SecureRandomMethods.define(runtime, fastRandom);
        OpenSSLRandomMethods.define(runtime, fastRandom);
        GeneratorModule.define(runtime, fastRandom);
    }
}
