package fastrandom.ext;

import java.util.HashMap;
import java.util.Map;

import org.jruby.RubyModule;
import org.jruby.internal.runtime.methods.DynamicMethod;
import org.jruby.runtime.Block;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

/**
 * The methods a module of ours is prepended over, captured just before the
 * prepend, so our Java methods can hand unusual arguments to the stock
 * implementation (its conversions and errors, our bytes underneath).
 */
final class StockMethods {
    private final Map<String, DynamicMethod> methods = new HashMap<>();
    private volatile RubyModule owner;

    /**
     * Prepends {@code ours} to {@code target}'s singleton class, first
     * recording what it answered for each of our method names.
     */
    void prependOver(IRubyObject target, RubyModule ours) {
        prependToModule(target.getSingletonClass(), ours);
    }

    /**
     * Prepends {@code ours} to {@code target} itself (its instances' methods),
     * first recording what it answered for each of our method names.
     */
    void prependToModule(RubyModule target, RubyModule ours) {
        synchronized (this) {
            for (String name : ours.getMethods().keySet()) {
                DynamicMethod method = target.searchMethod(name);
                if (method != null && !method.isUndefined()) methods.put(name, method);
            }
            owner = target;
        }
        target.prependModule(ours);
    }

    IRubyObject call(ThreadContext context, IRubyObject self, String name, IRubyObject... args) {
        return call(context, self, name, args, Block.NULL_BLOCK);
    }

    IRubyObject call(ThreadContext context, IRubyObject self, String name, IRubyObject[] args, Block block) {
        DynamicMethod method = methods.get(name);
        if (method == null) {
            throw context.runtime.newNoMethodError("no stock method '" + name + "' to delegate to", self, name, context.runtime.newArrayNoCopy(args));
        }
        return method.call(context, self, owner, name, args, block);
    }
}
