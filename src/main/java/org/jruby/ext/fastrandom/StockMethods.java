package org.jruby.ext.fastrandom;

import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import org.jruby.RubyModule;
import org.jruby.internal.runtime.methods.DynamicMethod;
import org.jruby.runtime.Block;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

import fastrandom.Faults;

/**
 * jruby-openssl's methods that fast_random's replace in place on one class
 * ({@link RsaPssMethods} on {@code OpenSSL::PKey::RSA}, {@link EcMethods} on
 * {@code OpenSSL::PKey::EC}, {@link CipherMethods} on {@code OpenSSL::Cipher},
 * {@link KdfMethods} on the singletons of {@code OpenSSL::KDF} and
 * {@code OpenSSL::PKCS5}), kept to hand the calls fast_random does not take
 * to, as an alias chain keeps the method it replaces. Replacing flushes the
 * method caches, so a call site that already ran jruby-openssl's method
 * runs fast_random's from then on.
 *
 * <p>Each jruby-openssl release has its own set of these methods (0.15.0 to
 * 0.15.5 have no {@code RSA#sign_pss} or {@code EC#sign_raw}; 0.16.1 moved
 * {@code derive} from EC to {@code OpenSSL::PKey::PKey}). A method is
 * replaced only where the loaded release has it, read from the class itself
 * (the feature, not the version number): nothing is added that the release
 * does not have. One the class inherits is replaced only where the caller
 * allows it, for a method whose inherited form takes the same calls.
 */
final class StockMethods {
    /** Where the instance is kept, on the class. */
    private static final String KEPT = "fast_random_stock_methods";

    private final Map<String, DynamicMethod> methods;
    /** fast_random's methods put in their place, by name (not those redefined in Ruby, left as they were). */
    private final Map<String, DynamicMethod> replacements;
    /** The names whose stock method the class inherits (put on the class itself by {@link #install}). */
    private final Set<String> inherited;
    /** Set once jruby-openssl's methods are back ({@link #uninstall}); calls already in a replacement still reach them. */
    private volatile boolean removed;

    private StockMethods(Map<String, DynamicMethod> methods, Map<String, DynamicMethod> replacements, Set<String> inherited) {
        this.methods = Collections.unmodifiableMap(methods);
        this.replacements = Collections.unmodifiableMap(replacements);
        this.inherited = Collections.unmodifiableSet(inherited);
    }

    /**
     * Replaces, on {@code target} (past modules prepended to it), each of
     * {@code names} that the class defines itself, or inherits when in
     * {@code inheritable}, with the {@code @JRubyMethod} of that name in
     * {@code replacements}; once per class, whole or not at all. Returns the
     * names replaced. A method already redefined in Ruby (a polyfill loaded
     * before us) stays as it is, for every call. Each replacement takes any
     * number of arguments and hands the calls it does not take to the
     * method it replaced, so jruby-openssl's own arity holds whatever it is.
     */
    static Set<String> install(RubyModule target, Class<?> replacements, String[] names, Set<String> inheritable) {
        return install(target, replacements, names, inheritable, kept -> { });
    }

    /**
     * {@link #install}, telling {@code recorded} of the methods kept before
     * any replacement is in place (a replacement that finds what it needs
     * on the class is called as soon as it is added).
     */
    static Set<String> install(RubyModule target, Class<?> replacements, String[] names, Set<String> inheritable,
                               Consumer<StockMethods> recorded) {
        Faults.at("install:" + target.getName()); // tests: as an incompatible release would fail it
        synchronized (target) {
            StockMethods installed = of(target);
            if (installed != null && !installed.removed) return installed.replacements.keySet();
            RubyModule location = target.getMethodLocation(); // past modules prepended to the class
            Map<String, DynamicMethod> stock = new LinkedHashMap<>();
            Set<String> inherited = new HashSet<>();
            for (String name : names) {
                DynamicMethod method = location.getMethods().get(name);
                RubyModule superClass = location.getSuperClass(); // an inherited one, from below any prepended module
                if (method == null && inheritable.contains(name) && superClass != null) {
                    DynamicMethod found = superClass.searchMethod(name);
                    method = found == null || found.isUndefined() ? null : found;
                    if (method != null) inherited.add(name);
                }
                if (method != null) stock.put(name, method);
            }
            RubyModule scratch = RubyModule.newModule(target.getRuntime()); // every replacement, to take the ones needed from
            Bindings.define(scratch, replacements);
            Map<String, DynamicMethod> replaced = new LinkedHashMap<>();
            for (Map.Entry<String, DynamicMethod> entry : stock.entrySet()) {
                DynamicMethod replacement = scratch.getMethods().get(entry.getKey());
                if (replacement == null) throw new IllegalStateException(replacements.getSimpleName() + " has no " + entry.getKey());
                if (isJava(entry.getValue())) replaced.put(entry.getKey(), replacement); // else redefined in Ruby: left in place
            }
            // Recorded first: a replacement is called as soon as it is added, and calls the method it replaced.
            StockMethods kept = new StockMethods(stock, replaced, inherited);
            target.getInternalVariables().setInternalVariable(KEPT, kept);
            recorded.accept(kept);
            try {
                for (Map.Entry<String, DynamicMethod> entry : replaced.entrySet()) {
                    entry.getValue().setImplementationClass(target);
                    location.addMethod(entry.getKey(), entry.getValue());
                }
            } catch (RuntimeException e) { // a frozen class, say: jruby-openssl's own methods go back
                kept.putBack(target);
                throw e;
            }
            return Collections.unmodifiableSet(replaced.keySet());
        }
    }

    /**
     * Gives {@code target} jruby-openssl's own methods back where fast_random's
     * are still in place (one redefined since stays; one the class inherited
     * is inherited again), so that a later {@link #install} starts again;
     * nothing to do before one. A call already running in a replacement
     * still reaches the method it replaced.
     */
    static void uninstall(RubyModule target) {
        synchronized (target) {
            StockMethods kept = of(target);
            if (kept != null && !kept.removed) kept.putBack(target);
        }
    }

    private void putBack(RubyModule target) {
        RubyModule location = target.getMethodLocation();
        for (Map.Entry<String, DynamicMethod> entry : replacements.entrySet()) {
            String name = entry.getKey();
            if (location.getMethods().get(name) != entry.getValue()) continue;
            if (inherited.contains(name)) {
                location.getMethodsForWrite().remove(name);
            } else {
                location.getMethodsForWrite().put(name, methods.get(name));
            }
        }
        location.invalidateCacheDescendants();
        removed = true;
    }

    /**
     * Whether {@code method} is written in Java, as jruby-openssl's are, rather
     * than redefined in Ruby: bound through a generated invoker or, with
     * {@code -Xinvokedynamic.handles=true}, a method handle.
     */
    static boolean isJava(DynamicMethod method) {
        return method.isNative();
    }

    /** The names of the methods fast_random's replace now (not those left redefined in Ruby; none once uninstalled). */
    Set<String> replacedNames() {
        return removed ? Collections.emptySet() : replacements.keySet();
    }

    /** The methods kept on {@code target}, or null before {@link #install} (kept after {@link #uninstall}, for calls running). */
    static StockMethods of(RubyModule target) {
        return (StockMethods) target.getInternalVariables().getInternalVariable(KEPT);
    }

    /**
     * The methods kept on {@code target}, for a replacement that is running:
     * a NotImplementedError where there are none (a replacement called on a
     * class it was never installed on).
     */
    static StockMethods kept(ThreadContext context, RubyModule target, String name) {
        StockMethods kept = of(target);
        if (kept == null) throw context.runtime.newNotImplementedError(target.getName() + "#" + name + ": jruby-openssl's method is not there");
        return kept;
    }

    /** Calls jruby-openssl's own {@code name} on {@code self}, the method fast_random's replaced. */
    IRubyObject call(ThreadContext context, IRubyObject self, RubyModule target, String name, IRubyObject... args) {
        return methods.get(name).call(context, self, target, name, args, Block.NULL_BLOCK);
    }
}
