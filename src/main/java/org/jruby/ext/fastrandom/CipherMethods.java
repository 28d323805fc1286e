package org.jruby.ext.fastrandom;

import java.util.Collections;
import java.util.function.Predicate;

import org.jruby.Ruby;
import org.jruby.RubyClass;
import org.jruby.RubyModule;
import org.jruby.anno.JRubyMethod;
import org.jruby.runtime.Block;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;
import org.jruby.util.ByteList;

import fastrandom.cipher.AesCipher;
import fastrandom.cipher.RefusedMessage;
import fastrandom.cipher.UpdateCalls;
import fastrandom.jca.JRubyOpenSslProvider;
import fastrandom.jca.ProviderHook;

/**
 * {@code OpenSSL::Cipher#update} and {@code #auth_data=} around
 * jruby-openssl's own:
 * <ul>
 * <li>{@code update}: one that raises in jruby-openssl after the cipher's
 * update returned (its IV bookkeeping can, after {@code iv_len=})
 * releases nothing of its input later, and a decryption whose tag came by
 * {@code auth_tag=} holds its data as all ciphertext: the provider's
 * {@link UpdateCalls} is told.
 * <li>{@code auth_data=}: jruby-openssl keeps the AAD until its next
 * update or final, so AAD after a message's data was refused there, and
 * stayed, to be given to the next message after {@code iv=}. OpenSSL
 * (MRI) refuses it at {@code auth_data=}; so does fast_random, asking its
 * GCM cipher whether the message has data: CipherError from {@code
 * auth_data=} itself, and nothing left pending. AAD in time stays with
 * jruby-openssl until its next update, as on stock.
 * </ul>
 * Everything else is jruby-openssl's method, called as it is.
 */
public final class CipherMethods {
    /** Where a class's {@link Hooks} are kept, on it. */
    private static final String HOOKS = "fast_random_cipher_hooks";

    private CipherMethods() {}

    /** What the replacements need, kept on the class they replace jruby-openssl's methods of: one lookup a call. */
    private static final class Hooks {
        final RubyModule type;
        final StockMethods stock;
        final CipherFields fields;
        final UpdateCalls calls;
        /** Whether a Ruby Cipher has its tag by {@code auth_tag=}: asked only by a GCM decryption. */
        final Predicate<Object> tagAtFinal;

        Hooks(RubyModule type, StockMethods stock, CipherFields fields, UpdateCalls calls) {
            this.type = type;
            this.stock = stock;
            this.fields = fields;
            this.calls = calls;
            this.tagAtFinal = self -> fields.holds((IRubyObject) self) && fields.hasAuthTag((IRubyObject) self);
        }

        /** jruby-openssl's {@code name}. */
        IRubyObject call(ThreadContext context, IRubyObject self, String name, IRubyObject[] args) {
            return stock.call(context, self, type, name, args);
        }
    }

    /**
     * Puts these methods on OpenSSL::Cipher in place of jruby-openssl's,
     * once; openssl must be loaded, FastRandom::AES's provider in.
     */
    static void install(RubyModule cipher) {
        if (!cipher.getMethodLocation().getMethods().containsKey("update")) throw new IllegalStateException("jruby-openssl's OpenSSL::Cipher has no update");
        JRubyOpenSslProvider provider = OpenSSLHook.provider(cipher.getRuntime(), ProviderHook.Capability.AES);
        if (provider == null) throw new IllegalStateException("FastRandom::AES's provider is not in jruby-openssl");
        CipherFields fields = CipherFields.of(cipher.getRuntime().getJRubyClassLoader());
        String[] names = {"update", "auth_data="};
        StockMethods.install(cipher, CipherMethods.class, names, Collections.emptySet(),
                stock -> cipher.setInternalVariable(HOOKS, new Hooks(cipher, stock, fields, provider.aesUpdates())));
    }

    /** {@code update(data)} and {@code update(data, buffer)}: jruby-openssl's. */
    @JRubyMethod(name = "update", rest = true) // any arity: jruby-openssl's method checks it
    public static IRubyObject update(ThreadContext context, IRubyObject self, IRubyObject[] args, Block block) {
        Hooks hooks = hooks(context, self, "update");
        UpdateCalls updates = hooks.calls;
        updates.starts(self, hooks.tagAtFinal);
        try {
            return hooks.call(context, self, "update", args);
        } catch (Throwable e) { // a Ruby exception, a Java one, or a kill: the caller never sees this update's output
            updates.raised();
            throw e;
        } finally {
            updates.ends();
        }
    }

    /** {@code auth_data = data}: jruby-openssl's; AAD after the message's data raises CipherError here, as on MRI. */
    @JRubyMethod(name = "auth_data=", rest = true)
    public static IRubyObject set_auth_data(ThreadContext context, IRubyObject self, IRubyObject[] args, Block block) {
        Hooks hooks = hooks(context, self, "auth_data=");
        IRubyObject result = hooks.call(context, self, "auth_data=", args);
        if (hooks.fields.holds(self) && hooks.fields.initialized(self)) refuseLateAad(context, self, hooks);
        return result;
    }

    /**
     * Where jruby-openssl's cipher is one of fast_random's GCM ciphers and
     * its message has data already (or is refused), the AAD jruby-openssl
     * just kept is taken from it and given to that cipher, which refuses it
     * and the rest of the message: CipherError now, and nothing left
     * pending for the next message. Otherwise jruby-openssl keeps it for
     * its next update, as stock does.
     */
    private static void refuseLateAad(ThreadContext context, IRubyObject self, Hooks hooks) {
        javax.crypto.Cipher cipher = hooks.fields.cipher(self);
        if (cipher == null || !(cipher.getProvider() instanceof JRubyOpenSslProvider)) return;
        if (AesCipher.Mode.of(cipher.getAlgorithm()) != AesCipher.Mode.GCM || !hooks.calls.aadIsLate(cipher)) return;
        ByteList aad = hooks.fields.takeAuthData(self);
        if (aad == null) return;
        try {
            cipher.updateAAD(aad.getUnsafeBytes(), aad.getBegin(), aad.getRealSize());
        } catch (RefusedMessage e) {
            throw Errors.cipherError(context, e.getMessage());
        } catch (RuntimeException e) {
            hooks.fields.putBackAuthData(self, aad); // not ours to judge: the next update says what is wrong, as on stock
        }
    }

    /** The hooks of the class whose jruby-openssl method {@code name} fast_random's replaced, for {@code self}. */
    private static Hooks hooks(ThreadContext context, IRubyObject self, String name) {
        for (RubyClass type = self.getMetaClass().getRealClass(); type != null; type = type.getSuperClass()) {
            Object hooks = type.getInternalVariable(HOOKS);
            if (hooks != null) return (Hooks) hooks;
        }
        throw context.runtime.newNotImplementedError("OpenSSL::Cipher#" + name + ": jruby-openssl's method is not there");
    }
}
