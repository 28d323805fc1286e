package org.jruby.ext.fastrandom;

import java.util.Collections;

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
 * (MRI) takes it at once; so does fast_random's GCM cipher, where the
 * message is under way (jruby-openssl has initialized its cipher): late
 * AAD raises CipherError from {@code auth_data=} itself, and nothing is
 * left pending. Before that, the next update starts the message and gives
 * it the AAD, as stock does.
 * <li>{@code iv=}, {@code random_iv}, {@code encrypt}, {@code decrypt}: where
 * jruby-openssl drops the message under way (it initializes its cipher
 * again at the next update), fast_random's cipher forgets what that
 * message held at once.
 * </ul>
 * Everything else is jruby-openssl's method, called as it is.
 */
public final class CipherMethods {
    /** Where the provider's {@link UpdateCalls} is kept, on the class. */
    private static final String UPDATE_CALLS = "fast_random_update_calls";
    /** Where jruby-openssl's {@link CipherFields} are kept, on the class. */
    private static final String FIELDS = "fast_random_cipher_fields";

    private CipherMethods() {}

    /**
     * Puts these methods on OpenSSL::Cipher in place of jruby-openssl's,
     * once; openssl must be loaded, FastRandom::AES's provider in.
     */
    static void install(RubyModule cipher) {
        if (!cipher.getMethodLocation().getMethods().containsKey("update")) throw new IllegalStateException("jruby-openssl's OpenSSL::Cipher has no update");
        JRubyOpenSslProvider provider = OpenSSLHook.provider(cipher.getRuntime(), ProviderHook.Capability.AES);
        if (provider == null) throw new IllegalStateException("FastRandom::AES's provider is not in jruby-openssl");
        cipher.setInternalVariable(FIELDS, CipherFields.of(cipher.getRuntime().getJRubyClassLoader()));
        cipher.setInternalVariable(UPDATE_CALLS, provider.aesUpdates());
        StockMethods.install(cipher, CipherMethods.class, new String[] {"update", "auth_data=", "iv=", "random_iv", "encrypt", "decrypt"},
                Collections.emptySet());
    }

    /** {@code update(data)} and {@code update(data, buffer)}: jruby-openssl's. */
    @JRubyMethod(name = "update", rest = true) // any arity: jruby-openssl's method checks it
    public static IRubyObject update(ThreadContext context, IRubyObject self, IRubyObject[] args, Block block) {
        RubyClass type = stockClass(context, self, "update");
        Object calls = type.getInternalVariable(UPDATE_CALLS);
        if (!(calls instanceof UpdateCalls)) return StockMethods.of(type).call(context, self, type, "update", args);
        UpdateCalls updates = (UpdateCalls) calls;
        Object fields = type.getInternalVariable(FIELDS);
        updates.starts(fields instanceof CipherFields && ((CipherFields) fields).holds(self) && ((CipherFields) fields).hasAuthTag(self));
        try {
            return StockMethods.of(type).call(context, self, type, "update", args);
        } catch (Throwable e) { // a Ruby exception, a Java one, or a kill: the caller never sees this update's output
            updates.raised();
            throw e;
        } finally {
            updates.ends();
        }
    }

    /** {@code auth_data = data}: jruby-openssl's, then the AAD goes to a GCM message under way at once. */
    @JRubyMethod(name = "auth_data=", rest = true)
    public static IRubyObject set_auth_data(ThreadContext context, IRubyObject self, IRubyObject[] args, Block block) {
        RubyClass type = stockClass(context, self, "auth_data=");
        IRubyObject result = StockMethods.of(type).call(context, self, type, "auth_data=", args);
        Object fields = type.getInternalVariable(FIELDS);
        if (fields instanceof CipherFields) giveAadNow(context, self, (CipherFields) fields);
        return result;
    }

    /**
     * The AAD jruby-openssl just kept goes to its cipher now, when that is
     * one of fast_random's GCM ciphers with its message under way; it
     * raises CipherError if the message already has data (or is refused).
     * Where the cipher fails otherwise (its last init failed, a
     * BouncyCastle message in error), jruby-openssl keeps the AAD for its
     * next update, as stock does, and that call says what is wrong.
     */
    private static void giveAadNow(ThreadContext context, IRubyObject self, CipherFields fields) {
        if (!fields.holds(self) || !fields.initialized(self)) return; // the next update or final starts a message, and gives it the AAD
        javax.crypto.Cipher cipher = fields.cipher(self);
        if (cipher == null || !(cipher.getProvider() instanceof JRubyOpenSslProvider)) return;
        if (AesCipher.Mode.of(cipher.getAlgorithm()) != AesCipher.Mode.GCM) return;
        ByteList aad = fields.takeAuthData(self);
        if (aad == null) return;
        try {
            cipher.updateAAD(aad.getUnsafeBytes(), aad.getBegin(), aad.getRealSize());
        } catch (RefusedMessage e) {
            throw Errors.cipherError(context, e.getMessage());
        } catch (RuntimeException e) {
            fields.putBackAuthData(self, aad);
        }
    }

    /** {@code iv = iv}: jruby-openssl's; the message under way, if any, is dropped. */
    @JRubyMethod(name = "iv=", rest = true)
    public static IRubyObject set_iv(ThreadContext context, IRubyObject self, IRubyObject[] args, Block block) {
        return droppingMessage(context, self, "iv=", args);
    }

    /** {@code random_iv}: jruby-openssl's; the message under way, if any, is dropped. */
    @JRubyMethod(name = "random_iv", rest = true)
    public static IRubyObject random_iv(ThreadContext context, IRubyObject self, IRubyObject[] args, Block block) {
        return droppingMessage(context, self, "random_iv", args);
    }

    /** {@code encrypt}: jruby-openssl's; the message under way, if any, is dropped. */
    @JRubyMethod(name = "encrypt", rest = true)
    public static IRubyObject encrypt(ThreadContext context, IRubyObject self, IRubyObject[] args, Block block) {
        return droppingMessage(context, self, "encrypt", args);
    }

    /** {@code decrypt}: jruby-openssl's; the message under way, if any, is dropped. */
    @JRubyMethod(name = "decrypt", rest = true)
    public static IRubyObject decrypt(ThreadContext context, IRubyObject self, IRubyObject[] args, Block block) {
        return droppingMessage(context, self, "decrypt", args);
    }

    /**
     * jruby-openssl's {@code name}; where it dropped the message under way
     * (its cipher was initialized and is not now: the next update starts
     * another), fast_random's cipher forgets what that message held at
     * once, rather than at that next init (or never, if none comes).
     */
    private static IRubyObject droppingMessage(ThreadContext context, IRubyObject self, String name, IRubyObject[] args) {
        RubyClass type = stockClass(context, self, name);
        Object found = type.getInternalVariable(FIELDS);
        CipherFields fields = found instanceof CipherFields && ((CipherFields) found).holds(self) ? (CipherFields) found : null;
        boolean underWay = fields != null && fields.initialized(self);
        IRubyObject result = StockMethods.of(type).call(context, self, type, name, args);
        if (underWay && !fields.initialized(self)) {
            javax.crypto.Cipher cipher = fields.cipher(self);
            Object calls = type.getInternalVariable(UPDATE_CALLS);
            if (cipher != null && cipher.getProvider() instanceof JRubyOpenSslProvider && calls instanceof UpdateCalls) {
                ((UpdateCalls) calls).messageDropped(cipher);
            }
        }
        return result;
    }

    /** The class whose jruby-openssl method {@code name} fast_random's replaced, for {@code self}. */
    private static RubyClass stockClass(ThreadContext context, IRubyObject self, String name) {
        for (RubyClass type = self.getMetaClass().getRealClass(); type != null; type = type.getSuperClass()) {
            if (StockMethods.of(type) != null) return type;
        }
        throw context.runtime.newNotImplementedError("OpenSSL::Cipher#" + name + ": jruby-openssl's method is not there");
    }
}
