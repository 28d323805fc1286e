package org.jruby.ext.fastrandom;

import java.util.Collections;

import org.jruby.Ruby;
import org.jruby.RubyClass;
import org.jruby.RubyModule;
import org.jruby.anno.JRubyMethod;
import org.jruby.runtime.Block;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

import fastrandom.cipher.AesCipher;

/**
 * {@code OpenSSL::Cipher#update} around jruby-openssl's own, so that an
 * update that raises in jruby-openssl after the cipher's update returned
 * (its IV bookkeeping can, after {@code iv_len=}) releases nothing of its
 * input later: see {@link AesCipher#callerRaised}. Everything else is
 * jruby-openssl's method, called as it is.
 */
public final class CipherMethods {
    private CipherMethods() {}

    /** Puts {@link #update} on OpenSSL::Cipher in place of jruby-openssl's, once; openssl must be loaded. */
    static void install(RubyModule cipher) {
        if (!cipher.getMethodLocation().getMethods().containsKey("update")) throw new IllegalStateException("jruby-openssl's OpenSSL::Cipher has no update");
        StockMethods.install(cipher, CipherMethods.class, new String[] {"update"}, Collections.emptySet());
    }

    /** {@code update(data)} and {@code update(data, buffer)}: jruby-openssl's. */
    @JRubyMethod(name = "update", rest = true) // any arity: jruby-openssl's method checks it
    public static IRubyObject update(ThreadContext context, IRubyObject self, IRubyObject[] args, Block block) {
        for (RubyClass type = self.getMetaClass().getRealClass(); type != null; type = type.getSuperClass()) {
            StockMethods stock = StockMethods.of(type);
            if (stock == null) continue;
            AesCipher.callerStarts();
            try {
                return stock.call(context, self, type, "update", args);
            } catch (Throwable e) { // a Ruby exception, a Java one, or a kill: the caller never sees this update's output
                AesCipher.callerRaised();
                throw e;
            } finally {
                AesCipher.callerEnds();
            }
        }
        throw context.runtime.newNotImplementedError("OpenSSL::Cipher#update: jruby-openssl's method is not there");
    }
}
