package org.jruby.ext.fastrandom;

import org.jruby.RubyModule;
import org.jruby.anno.TypePopulator;

/**
 * Binds a class's {@code @JRubyMethod}s to a module through the populator
 * the build generated for it (JRuby's AnnotationBinder, see the Rakefile),
 * instead of {@link RubyModule#defineAnnotatedMethods}, which reads the
 * annotations by reflection: JRuby looks populators up only on its own class
 * path, never in a jar loaded by {@code require}, so we load ours from the
 * class's own loader. Without one (a build that skipped it) the reflective
 * binding does the same job, more slowly.
 */
final class Bindings {
    private Bindings() {}

    static void define(RubyModule module, Class<?> type) {
        TypePopulator populator = populator(type);
        if (populator == null) {
            module.defineAnnotatedMethods(type);
        } else {
            populator.populate(module, type);
        }
    }

    private static TypePopulator populator(Class<?> type) {
        // AnnotationBinder's naming: org.jruby.gen.<canonical name, dots as $>$POPULATOR
        String name = "org.jruby.gen." + type.getCanonicalName().replace('.', '$') + "$POPULATOR";
        try {
            return (TypePopulator) Class.forName(name, true, type.getClassLoader()).getConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError | ClassCastException e) {
            return null;
        }
    }
}
