package org.jruby.ext.fastrandom;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import org.jruby.Ruby;
import org.jruby.RubyModule;
import org.jruby.internal.runtime.methods.DynamicMethod;
import org.jruby.internal.runtime.methods.JavaMethod;
import org.jruby.runtime.Block;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

/**
 * jruby-openssl's methods that fast_random's replace in place on one class
 * ({@link RsaPssMethods} on {@code OpenSSL::PKey::RSA}, {@link EcMethods} on
 * {@code OpenSSL::PKey::EC}), kept to hand the calls fast_random does not
 * take to, as an alias chain keeps the method it replaces.
 *
 * <p>Each jruby-openssl release has its own set of these methods (0.15.0 to
 * 0.15.4 have no {@code RSA#sign_pss} or {@code EC#sign_raw}; 0.16.1 moved
 * {@code derive} from EC to {@code OpenSSL::PKey::PKey}). A method is
 * replaced only where the loaded release has it, read from the class itself
 * (the feature, not the version number): nothing is added that the release
 * does not have. One the class inherits is replaced only where the caller
 * allows it, for a method whose inherited form takes the same calls.
 */
final class StockMethods {
    /** Where the instance is kept, on the class. */
    private static final String KEPT = "fast_random_stock_methods";

    /** Tests: the classes (by name) on which {@link #install} fails; set by the test jar's InstallFaults only. */
    static volatile Predicate<String> faults;

    private final Map<String, DynamicMethod> methods;

    private StockMethods(Map<String, DynamicMethod> methods) {
        this.methods = Collections.unmodifiableMap(methods);
    }

    /**
     * Replaces, on {@code target} (past modules prepended to it), each of
     * {@code names} that the class defines itself, or inherits when in
     * {@code inheritable}, with the {@code @JRubyMethod} of that name in
     * {@code replacements}; once per class. Returns the names replaced. A
     * method already redefined in Ruby (a polyfill loaded before us) stays
     * as it is, for every call.
     */
    static Set<String> install(RubyModule target, Class<?> replacements, String[] names, Set<String> inheritable) {
        Predicate<String> failing = faults;
        if (failing != null && failing.test(target.getName())) {
            throw new IllegalStateException("injected failure replacing methods of " + target.getName());
        }
        Ruby runtime = target.getRuntime();
        RubyModule location = target.getMethodLocation();
        synchronized (target) {
            StockMethods installed = of(target);
            if (installed != null) return installed.methods.keySet();
            Map<String, DynamicMethod> stock = new LinkedHashMap<>();
            for (String name : names) {
                DynamicMethod method = location.getMethods().get(name);
                if (method == null && inheritable.contains(name)) {
                    DynamicMethod found = target.searchMethod(name);
                    method = found == null || found.isUndefined() ? null : found;
                }
                if (method != null) stock.put(name, method);
            }
            RubyModule scratch = RubyModule.newModule(runtime); // every replacement, to take the ones needed from
            scratch.defineAnnotatedMethods(replacements);
            for (String name : names) {
                DynamicMethod replacement = scratch.getMethods().get(name);
                if (replacement == null) throw new IllegalStateException(replacements.getSimpleName() + " has no " + name);
            }
            target.getInternalVariables().setInternalVariable(KEPT, new StockMethods(stock));
            for (Map.Entry<String, DynamicMethod> entry : stock.entrySet()) {
                if (!(entry.getValue() instanceof JavaMethod)) continue; // redefined in Ruby: left in place
                DynamicMethod replacement = scratch.getMethods().get(entry.getKey());
                replacement.setImplementationClass(location);
                location.addMethod(entry.getKey(), replacement);
            }
            return Collections.unmodifiableSet(stock.keySet());
        }
    }

    /** The methods kept on {@code target}, or null before {@link #install}. */
    static StockMethods of(RubyModule target) {
        return (StockMethods) target.getInternalVariables().getInternalVariable(KEPT);
    }

    /** Calls jruby-openssl's own {@code name} on {@code self}, the method fast_random's replaced. */
    IRubyObject call(ThreadContext context, IRubyObject self, RubyModule target, String name, IRubyObject... args) {
        return methods.get(name).call(context, self, target, name, args, Block.NULL_BLOCK);
    }
}
