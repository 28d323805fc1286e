package org.jruby.ext.fastrandom;

import org.jruby.RubyModule;
import org.jruby.internal.runtime.methods.DynamicMethod;
import org.jruby.runtime.Block;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

/**
 * {@code super} for the Java methods of a module we prepend: the method next
 * in {@code self}'s ancestry after that module, found at call time, as Ruby's
 * own {@code super} does. So a method defined on the class after us, an
 * alias, a polyfill or a module prepended before us is what our methods hand
 * calls to, exactly as without fast_random.
 */
final class Super {
    private final RubyModule owner;
    private final DynamicMethod method;
    private final String name;

    private Super(RubyModule owner, DynamicMethod method, String name) {
        this.owner = owner;
        this.method = method;
        this.name = name;
    }

    /**
     * What {@code super} would call for {@code name} from the module at
     * {@code path} (e.g. "FastRandom::SecureRandomMethods"); raises
     * NoMethodError, as {@code super} does, when there is nothing.
     */
    static Super of(ThreadContext context, IRubyObject self, String path, String name) {
        RubyModule ours = context.runtime.getClassFromPath(path);
        for (RubyModule c = self.getMetaClass(); c != null; c = c.getSuperClass()) {
            if (c.getDelegate() != ours) continue;
            RubyModule next = c.getSuperClass();
            DynamicMethod method = next == null ? null : next.searchMethod(name);
            if (method == null || method.isUndefined()) break;
            return new Super(next, method, name);
        }
        throw context.runtime.newNoMethodError("super: no superclass method '" + name + "'", self, name, context.runtime.newEmptyArray());
    }

    static IRubyObject call(ThreadContext context, IRubyObject self, String path, String name, IRubyObject... args) {
        return of(context, self, path, name).call(context, self, args);
    }

    IRubyObject call(ThreadContext context, IRubyObject self, IRubyObject[] args) {
        return call(context, self, args, Block.NULL_BLOCK);
    }

    IRubyObject call(ThreadContext context, IRubyObject self, IRubyObject[] args, Block block) {
        return method.call(context, self, owner, name, args, block);
    }
}
