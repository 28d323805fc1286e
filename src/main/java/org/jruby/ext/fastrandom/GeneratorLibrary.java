package org.jruby.ext.fastrandom;

import org.jruby.Ruby;
import org.jruby.runtime.load.Library;

/**
 * {@code FastRandom::Generator} (the controls, stats and test hooks behind
 * the {@code FastRandom} API, and the Java halves of uuid_v7 and
 * alphanumeric), autoloaded by lib/fast_random.rb on first use.
 */
public final class GeneratorLibrary implements Library {
    @Override
    public void load(Ruby runtime, boolean wrap) {
        GeneratorModule.define(runtime, runtime.getOrCreateModule("FastRandom"));
    }
}
