package fastrandom.ext;

import org.jruby.Ruby;
import org.jruby.RubyClass;
import org.jruby.RubyModule;
import org.jruby.exceptions.RaiseException;
import org.jruby.runtime.ThreadContext;

import fastrandom.jni.CpuRandomFailure;

/** fast_random's own Ruby exceptions (defined in lib/fast_random/errors.rb). */
final class Errors {
    private Errors() {}

    /** FastRandom::HardwareRandomError: the CPU's generator failed while in use. */
    static RaiseException hardware(ThreadContext context, CpuRandomFailure failure) {
        return raise(context.runtime, "HardwareRandomError", failure.getMessage());
    }

    /** FastRandom::BackendUnavailableError: a backend that cannot run here was asked for. */
    static RaiseException backendUnavailable(ThreadContext context, String message) {
        return raise(context.runtime, "BackendUnavailableError", message);
    }

    private static RaiseException raise(Ruby runtime, String name, String message) {
        RubyModule fastRandom = runtime.getModule("FastRandom");
        RubyClass error = (RubyClass) fastRandom.getConstantAt(name);
        return RaiseException.from(runtime, error, message);
    }
}
