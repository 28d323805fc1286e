package org.jruby.ext.fastrandom;

import java.util.ArrayList;
import java.util.List;

import org.jruby.Ruby;
import org.jruby.RubyArray;
import org.jruby.RubyBignum;
import org.jruby.RubyFixnum;
import org.jruby.RubyHash;
import org.jruby.RubyModule;
import org.jruby.RubyString;
import org.jruby.anno.JRubyMethod;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

import fastrandom.jni.CpuRandom;
import fastrandom.jni.CpuRandomFailure;
import fastrandom.jni.NativeLibrary;
import fastrandom.random.BufferedRandom;
import fastrandom.random.Call;
import fastrandom.random.SeedLog;
import fastrandom.random.ThreadGenerators;
import fastrandom.text.Alphabet;

/**
 * {@code FastRandom::Generator}, defined on first use: the Java half of
 * alphanumeric, whose Ruby signature takes keywords (lib/fast_random.rb
 * defines it, so keyword errors are Ruby's own), what the CPU's
 * generator can do here, and the test hooks. The public controls are
 * {@code FastRandom}'s own ({@link FastRandomModule}).
 */
public final class GeneratorModule {
    private static volatile Alphabet alphanumeric;
    private static volatile IRubyObject alphanumericChars;

    private GeneratorModule() {}

    static RubyModule define(Ruby runtime, RubyModule fastRandom) {
        // Named only once complete: another thread that sees the constant sees every method.
        RubyModule generator = RubyModule.newModule(runtime);
        Bindings.define(generator, GeneratorModule.class);
        generator.setConstant("MAX_LENGTH", runtime.newFixnum(ByteCount.MAX));
        generator.setConstant("NATIVE_LIBRARY", runtime.newString(NativeLibrary.platformFile()).freeze(runtime.getCurrentContext()));
        // alphanumeric's default characters (lib/fast_random/secure_random.rb), whose Alphabet is built once.
        IRubyObject methods = fastRandom.getConstantAt("SecureRandomMethods");
        if (methods instanceof RubyModule) {
            IRubyObject chars = ((RubyModule) methods).getConstantAt("DEFAULT_ALPHANUMERIC");
            if (chars instanceof RubyArray) useDefaultAlphanumeric((RubyArray<?>) chars);
        }
        fastRandom.setConstant("Generator", generator);
        return generator;
    }

    /**
     * {@code length} characters, each an element of {@code chars} chosen
     * uniformly. Single-byte ASCII alphabets (the default one among them) are
     * built in Java; other elements are joined as MRI's choose does.
     * {@code length} is an Integer, or (from lib/fast_random) a Float or
     * Rational above {@link ByteCount#MAX}: more than a String can hold, so
     * NoMemoryError, which is where MRI's loop ends up once memory runs out.
     */
    @JRubyMethod(name = "choose", meta = true)
    public static IRubyObject choose(ThreadContext context, IRubyObject self, IRubyObject chars, IRubyObject length) {
        Ruby runtime = context.runtime;
        RubyArray<?> source = (RubyArray<?>) chars;
        if (source.getLength() == 0) throw runtime.newArgumentError("character source must not be empty"); // MRI 3.5's words
        long n = length instanceof RubyFixnum ? ((RubyFixnum) length).getLongValue() : beyondFixnum(length);
        if (n <= 0) return Strings.ascii(runtime, new byte[0]);
        if (n > ByteCount.MAX) throw ByteCount.tooLarge(context);
        try {
            return choose(context, source, (int) n);
        } catch (CpuRandomFailure e) {
            throw Errors.hardware(context, e);
        } catch (OutOfMemoryError e) {
            throw ByteCount.tooLarge(context);
        }
    }

    /** A negative Bignum asks for nothing; anything else past a Fixnum, for too much. */
    private static long beyondFixnum(IRubyObject length) {
        return length instanceof RubyBignum && ((RubyBignum) length).getValue().signum() < 0 ? -1 : Long.MAX_VALUE;
    }

    private static IRubyObject choose(ThreadContext context, RubyArray<?> source, int n) {
        Ruby runtime = context.runtime;
        BufferedRandom random = Call.ALPHANUMERIC.generator();
        Alphabet alphabet = alphabetFor(source);
        if (alphabet != null) return Strings.ascii(runtime, alphabet.randomString(random, n));

        IRubyObject[] picked = new IRubyObject[n];
        int size = source.getLength();
        for (int i = 0; i < picked.length; i++) picked[i] = (IRubyObject) source.eltInternal((int) random.nextLong(size));
        IRubyObject joined = RubyArray.newArrayNoCopy(runtime, picked).callMethod(context, "join", Strings.ascii(runtime, new byte[0]));
        return Strings.ascii(runtime, new byte[0]).callMethod(context, "<<", joined);
    }

    /** Marks the Array that alphanumeric uses by default, so its Alphabet is built once. */
    private static void useDefaultAlphanumeric(RubyArray<?> chars) {
        alphanumeric = asciiAlphabet(chars);
        alphanumericChars = chars;
    }

    @JRubyMethod(name = "rdseed_available?", meta = true)
    public static IRubyObject rdseed_available_p(ThreadContext context, IRubyObject self) {
        return context.runtime.newBoolean(CpuRandom.rdseed());
    }

    /** Why RDRAND (or, given true, RDSEED; RNDR and RNDRRS on aarch64) is not used, or nil. */
    @JRubyMethod(name = "cpu_random_problem", meta = true, optional = 1)
    public static IRubyObject cpu_random_problem(ThreadContext context, IRubyObject self, IRubyObject[] args) {
        boolean seed = args.length > 0 && args[0].isTrue();
        String reason = CpuRandom.unavailableReason(seed);
        return reason == null ? context.nil : context.runtime.newString(reason);
    }

    @JRubyMethod(name = "entropy_source", meta = true)
    public static IRubyObject entropy_source(ThreadContext context, IRubyObject self) {
        return context.runtime.newString(ThreadGenerators.entropySource().name());
    }

    /**
     * The calling thread's own generator (tests; given it now if it has
     * none, see ThreadGenerators#own): its number in the process, how
     * often it was seeded, 64 bits of a one-way digest of its state, its
     * output since the last seed and the bytes generated but not handed out yet.
     */
    @JRubyMethod(name = "thread_state", meta = true)
    public static IRubyObject thread_state(ThreadContext context, IRubyObject self) {
        Ruby runtime = context.runtime;
        BufferedRandom current = ThreadGenerators.own();
        RubyHash state = RubyHash.newHash(runtime);
        state.fastASet(runtime.newSymbol("generator"), runtime.newFixnum(current.serial()));
        state.fastASet(runtime.newSymbol("seeds"), runtime.newFixnum(current.seeds()));
        state.fastASet(runtime.newSymbol("fingerprint"), runtime.newFixnum(current.stateFingerprint()));
        state.fastASet(runtime.newSymbol("bytes_since_seed"), runtime.newFixnum(current.bytesSinceSeed()));
        state.fastASet(runtime.newSymbol("buffered"), runtime.newFixnum(current.buffered()));
        return state;
    }

    /** Starts the {@link SeedLog} (tests): every DRBG seeding from now on is recorded. */
    @JRubyMethod(name = "seed_log_start", meta = true)
    public static IRubyObject seed_log_start(ThreadContext context, IRubyObject self) {
        SeedLog.start();
        return context.nil;
    }

    /**
     * Stops the {@link SeedLog} and returns its entries, in order, as Hashes:
     * {event: :instantiate or :reseed, generator: serial number, thread:,
     * seed: and state: hex digests}.
     */
    @JRubyMethod(name = "seed_log_stop", meta = true)
    public static IRubyObject seed_log_stop(ThreadContext context, IRubyObject self) {
        Ruby runtime = context.runtime;
        List<IRubyObject> entries = new ArrayList<>();
        for (SeedLog.Entry entry : SeedLog.stop()) {
            RubyHash hash = RubyHash.newHash(runtime);
            hash.fastASet(runtime.newSymbol("event"), runtime.newSymbol(entry.event.name().toLowerCase(java.util.Locale.ROOT)));
            hash.fastASet(runtime.newSymbol("generator"), runtime.newFixnum(entry.generator));
            hash.fastASet(runtime.newSymbol("thread"), runtime.newString(entry.thread));
            hash.fastASet(runtime.newSymbol("seed"), runtime.newString(entry.seedDigest));
            hash.fastASet(runtime.newSymbol("state"), runtime.newString(entry.stateDigest));
            entries.add(hash);
        }
        return runtime.newArray(entries);
    }

    private static Alphabet alphabetFor(RubyArray<?> chars) {
        if (chars == alphanumericChars) return alphanumeric;
        return asciiAlphabet(chars);
    }

    /** An Alphabet when every element is a one-byte ASCII String, else null. */
    private static Alphabet asciiAlphabet(RubyArray<?> chars) {
        int size = chars.getLength();
        if (size == 0 || size > 128) return null;
        byte[] symbols = new byte[size];
        for (int i = 0; i < size; i++) {
            Object element = chars.eltInternal(i);
            if (!(element instanceof RubyString)) return null;
            org.jruby.util.ByteList bytes = ((RubyString) element).getByteList();
            if (bytes.getRealSize() != 1 || (bytes.get(0) & 0x80) != 0) return null;
            symbols[i] = (byte) bytes.get(0);
        }
        return new Alphabet(symbols);
    }
}
