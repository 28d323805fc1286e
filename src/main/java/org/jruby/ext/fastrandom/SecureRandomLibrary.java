package org.jruby.ext.fastrandom;

import org.jruby.Ruby;
import org.jruby.RubyModule;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;
import org.jruby.runtime.load.Library;

import fastrandom.jni.NativeLibrary;
import fastrandom.random.Diagnostics;

/**
 * Loaded by {@code require "fast_random"} (lib/fast_random.rb, through
 * {@code JRuby::Util.load_ext}): binds
 * {@code FastRandom::SecureRandomMethods} and prepends it to SecureRandom's
 * singleton class. Only what every program needs: {@code FastRandom::Generator}
 * ({@link GeneratorLibrary}), the OpenSSL hooks ({@link OpenSSLLibrary}) and
 * RSA ({@link RsaLibrary}) load when first used.
 */
public final class SecureRandomLibrary implements Library {
    @Override
    public void load(Ruby runtime, boolean wrap) {
        ThreadContext context = runtime.getCurrentContext();
        Diagnostics.setSink(message -> warn(runtime, message));
        Messages.useRubyVersion(runtime.getObject().getConstant("RUBY_VERSION").asJavaString());
        RubyModule fastRandom = runtime.getOrCreateModule("FastRandom");
        NativeLibrary.setPath(nativeLibraryPath(context, fastRandom));
        RubyModule methods = SecureRandomMethods.define(runtime, fastRandom);
        runtime.getModule("SecureRandom").getSingletonClass().prependModule(methods);
    }

    /**
     * Where the JNI library is (loaded only when first needed):
     * {@code $FAST_RANDOM_NATIVE_LIBRARY}, read from Ruby's ENV, else the
     * platform's directory beside the jar, {@code FastRandom::LIBRARY_DIR}.
     */
    private static String nativeLibraryPath(ThreadContext context, RubyModule fastRandom) {
        IRubyObject override = context.runtime.getENV().op_aref(context, context.runtime.newString("FAST_RANDOM_NATIVE_LIBRARY"));
        if (!override.isNil()) return override.asJavaString();
        return fastRandom.getConstant("LIBRARY_DIR").asJavaString() + "/" + NativeLibrary.platformFile();
    }

    /** Writes a line to Ruby's $stderr (whatever it is at the time), as Kernel#warn does. */
    private static void warn(Ruby runtime, String message) {
        IRubyObject stderr = runtime.getGlobalVariables().get("$stderr");
        stderr.callMethod(runtime.getCurrentContext(), "write", runtime.newString(message + "\n"));
    }
}
