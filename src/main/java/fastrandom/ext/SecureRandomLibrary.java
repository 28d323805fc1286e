package fastrandom.ext;

import org.jruby.Ruby;
import org.jruby.RubyModule;
import org.jruby.runtime.builtin.IRubyObject;
import org.jruby.runtime.load.Library;

import fastrandom.random.Diagnostics;
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
        Diagnostics.setSink(message -> warn(runtime, message));
        Messages.useRubyVersion(runtime.getObject().getConstant("RUBY_VERSION").asJavaString());
        RubyModule fastRandom = runtime.getOrCreateModule("FastRandom");
        SecureRandomMethods.define(runtime, fastRandom);
        OpenSSLRandomMethods.define(runtime, fastRandom);
        GeneratorModule.define(runtime, fastRandom);
    }

    /** Writes a line to Ruby's $stderr (whatever it is at the time), as Kernel#warn does. */
    private static void warn(Ruby runtime, String message) {
        IRubyObject stderr = runtime.getGlobalVariables().get("$stderr");
        stderr.callMethod(runtime.getCurrentContext(), "write", runtime.newString(message + "\n"));
    }
}
