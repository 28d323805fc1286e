package org.jruby.ext.fastrandom;

import org.jruby.Ruby;
import org.jruby.RubyHash;
import org.jruby.RubyModule;
import org.jruby.anno.JRubyMethod;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

import fastrandom.cipher.AesCipher;
import fastrandom.jca.ProviderHook;

/**
 * {@code FastRandom::AES}: jruby-openssl's AES in GCM, CBC and CTR modes
 * ({@code OpenSSL::Cipher.new("aes-256-gcm")} and the like) on the JDK's
 * AES ({@link AesCipher}), with stock's results and errors:
 * <pre>
 *   FastRandom::AES.installed?   # =&gt; true once openssl is loaded
 *   FastRandom::AES.stats        # =&gt; {jdk: 12, bouncy_castle: 1, faults: 0, held_bytes: 0,
 *                                #     budget_bytes: 67108864, over_budget: 0}
 *   FastRandom::AES.uninstall    # jruby-openssl's own ciphers again (for comparisons)
 * </pre>
 * Defined in Java when first named ({@link FastRandomModule#const_missing})
 * and installed by the openssl hook ({@link OpenSSLHook}).
 */
public final class AesModule {
    private AesModule() {}

    static RubyModule define(Ruby runtime, RubyModule fastRandom) {
        RubyModule aes = RubyModule.newModule(runtime);
        Bindings.define(aes, AesModule.class);
        fastRandom.setConstant("AES", aes);
        return aes;
    }

    /**
     * Messages finished on the JDK, on BouncyCastle (parameters, calls and
     * errors left to it, GCM messages past 16 MiB or the memory budget),
     * and JDK failures BouncyCastle answered; the bytes open GCM messages
     * hold now, the budget they share, and the messages that went on as
     * stock's because it was used. Over the JVM (or the class loader
     * fast_random's jar is in).
     */
    @JRubyMethod(name = "stats", meta = true)
    public static IRubyObject stats(ThreadContext context, IRubyObject self) {
        Ruby runtime = context.runtime;
        RubyHash stats = RubyHash.newHash(runtime);
        stats.fastASet(runtime.newSymbol("jdk"), runtime.newFixnum(AesCipher.jdkMessages()));
        stats.fastASet(runtime.newSymbol("bouncy_castle"), runtime.newFixnum(AesCipher.bouncyCastleMessages()));
        stats.fastASet(runtime.newSymbol("faults"), runtime.newFixnum(AesCipher.faults()));
        stats.fastASet(runtime.newSymbol("held_bytes"), runtime.newFixnum(AesCipher.heldBytes()));
        stats.fastASet(runtime.newSymbol("budget_bytes"), runtime.newFixnum(AesCipher.budgetBytes()));
        stats.fastASet(runtime.newSymbol("over_budget"), runtime.newFixnum(AesCipher.overBudget()));
        return stats;
    }

    /** Whether jruby-openssl's AES goes through fast_random now (false before openssl is loaded). */
    @JRubyMethod(name = "installed?", meta = true)
    public static IRubyObject installed_p(ThreadContext context, IRubyObject self) {
        if (context.runtime.getObject().getConstantAt("OpenSSL") == null) return context.fals;
        return context.runtime.newBoolean(ProviderHook.installed(context.runtime.getJRubyClassLoader(), ProviderHook.Capability.AES));
    }

    /**
     * Puts the AES ciphers into jruby-openssl, with fast_random's
     * {@code Cipher#update} around jruby-openssl's ({@link CipherMethods}),
     * whole or not at all, as {@link RsaModule#install}; openssl must be
     * loaded. The openssl hook calls it.
     */
    @JRubyMethod(name = "install", meta = true)
    public static IRubyObject install(ThreadContext context, IRubyObject self) {
        return OpenSSLHook.installCapability(context, self, JRubyOpenSsl.Capability.AES, ProviderHook.Capability.AES,
                "OpenSSL::Cipher", CipherMethods::install);
    }

    /** Gives jruby-openssl its own AES back (ciphers made before keep theirs). */
    @JRubyMethod(name = "uninstall", meta = true)
    public static IRubyObject uninstall(ThreadContext context, IRubyObject self) {
        return OpenSSLHook.uninstallCapability(context, self, ProviderHook.Capability.AES);
    }
}
