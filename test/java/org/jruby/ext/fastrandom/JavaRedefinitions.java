package org.jruby.ext.fastrandom;

import org.jruby.RubyModule;
import org.jruby.RubyProc;
import org.jruby.internal.runtime.methods.JavaMethod;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.Visibility;
import org.jruby.runtime.builtin.IRubyObject;

/**
 * Tests: redefines a jruby-openssl method with one written in Java, as a
 * release whose own Java method answers differently would have it.
 * fast_random replaces jruby-openssl's Java methods and keeps them, to
 * compare with at load and to hand calls to, but leaves a method redefined
 * in Ruby as it is (a polyfill's); so only a Java method can stand for a
 * changed release. In the test build's jar only (test/java).
 */
public final class JavaRedefinitions {
    private JavaRedefinitions() {}

    /**
     * Defines {@code name} on {@code target} as a Java method that calls
     * {@code body} with the receiver and the arguments and answers what it
     * answers (the method it replaces is reached through an alias the test
     * made before).
     */
    public static void redefine(RubyModule target, String name, RubyProc body) {
        target.addMethod(name, new JavaMethod.JavaMethodN(target, Visibility.PUBLIC, name) {
            @Override
            public IRubyObject call(ThreadContext context, IRubyObject self, RubyModule clazz, String called, IRubyObject[] args) {
                IRubyObject[] all = new IRubyObject[args.length + 1];
                all[0] = self;
                System.arraycopy(args, 0, all, 1, args.length);
                return body.call(context, all);
            }
        });
    }
}
