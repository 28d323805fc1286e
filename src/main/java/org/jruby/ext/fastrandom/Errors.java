package org.jruby.ext.fastrandom;

import org.jruby.Ruby;
import org.jruby.RubyClass;
import org.jruby.RubyModule;
import org.jruby.RubyException;
import org.jruby.exceptions.RaiseException;
import org.jruby.runtime.Block;
import org.jruby.runtime.ThreadContext;

import fastrandom.jni.CpuRandomFailure;

/**
 * The Ruby exceptions our Java methods raise: fast_random's own and core
 * ones whose message must be MRI's.
 */
final class Errors {
    private Errors() {}

    /**
     * fast_random's own errors, as lib/fast_random/errors.rb defines them for
     * MRI: FastRandom::Error (a StandardError), the base of
     * BackendUnavailableError (a backend that cannot run here was asked for;
     * the message says why), EngineUnavailableError (the same for an RSA or
     * EC engine; FastRandom::RSA and FastRandom::EC name it too, as their
     * EngineUnavailableError) and HardwareRandomError (the CPU's random
     * number instruction failed while in use, on the :rdrand backend).
     */
    static void define(Ruby runtime, RubyModule fastRandom) {
        RubyClass error = fastRandom.defineClassUnder("Error", runtime.getStandardError(),
                runtime.getStandardError().getAllocator());
        fastRandom.defineClassUnder("BackendUnavailableError", error, error.getAllocator());
        fastRandom.defineClassUnder("EngineUnavailableError", error, error.getAllocator());
        fastRandom.defineClassUnder("HardwareRandomError", error, error.getAllocator());
    }

    /** FastRandom::HardwareRandomError: the CPU's generator failed while in use. */
    static RaiseException hardware(ThreadContext context, CpuRandomFailure failure) {
        return raise(context.runtime, "HardwareRandomError", failure.getMessage());
    }

    /** FastRandom::BackendUnavailableError: a backend that cannot run here was asked for. */
    static RaiseException backendUnavailable(ThreadContext context, String message) {
        return raise(context.runtime, "BackendUnavailableError", message);
    }

    /** FastRandom::EngineUnavailableError: an RSA or EC engine that cannot run here was asked for. */
    static RaiseException engineUnavailable(ThreadContext context, String message) {
        return raise(context.runtime, "EngineUnavailableError", message);
    }

    /** OpenSSL::PKey::PKeyError, as jruby-openssl raises it when signing fails. */
    static RaiseException pkeyError(ThreadContext context, String message) {
        return openSsl(context, "OpenSSL::PKey::PKeyError", message);
    }

    /** OpenSSL::Cipher::CipherError, as jruby-openssl raises it for a call its cipher refuses. */
    static RaiseException cipherError(ThreadContext context, String message) {
        return openSsl(context, "OpenSSL::Cipher::CipherError", message);
    }

    /** OpenSSL::PKey::ECError, as jruby-openssl raises it for a signature it cannot read. */
    static RaiseException ecError(ThreadContext context, String message) {
        return openSsl(context, "OpenSSL::PKey::ECError", message);
    }

    /** jruby-openssl's error class at {@code path}, with {@code message}. */
    private static RaiseException openSsl(ThreadContext context, String path, String message) {
        return RaiseException.from(context.runtime, (RubyClass) context.runtime.getClassFromPath(path), message);
    }

    /**
     * Errno::EDOM as MRI raises it ("Numerical argument out of domain");
     * JRuby's newErrnoEDOMError repeats that text as its detail.
     */
    static RaiseException domain(ThreadContext context) {
        RubyClass edom = context.runtime.getErrno().getClass("EDOM");
        return ((RubyException) edom.newInstance(context, Block.NULL_BLOCK)).toThrowable();
    }

    /**
     * ArgumentError for a call with the wrong number of arguments, worded as
     * MRI (and JRuby 10) word it: JRuby 9.4 puts the method's name in front
     * when a Java method's own arity check fails.
     */
    static RaiseException arity(ThreadContext context, int given, int min, int max) {
        return context.runtime.newArgumentError(given, min, max);
    }

    /** TypeError as Integer conversion in C (NUM2LONG) words it for nil. */
    static RaiseException nilToInteger(ThreadContext context) {
        return context.runtime.newTypeError("no implicit conversion from nil to integer");
    }

    private static RaiseException raise(Ruby runtime, String name, String message) {
        RubyModule fastRandom = runtime.getModule("FastRandom");
        RubyClass error = (RubyClass) fastRandom.getConstantAt(name);
        return RaiseException.from(runtime, error, message);
    }
}
