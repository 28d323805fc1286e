package org.jruby.ext.fastrandom;

import org.jruby.runtime.ThreadContext;

/**
 * Error-message details that changed between the Ruby versions JRuby 9.4
 * (3.1) and 10 (3.4) follow. Read from the calling runtime each time (error
 * paths only): nothing here is static, since several runtimes may share
 * these classes.
 */
final class Messages {
    private Messages() {}

    /** Ruby 3.4 quotes names as 'name'; earlier versions as `name'. */
    static String quote(ThreadContext context, String name) {
        boolean singleQuotes = context.runtime.getObject().getConstant("RUBY_VERSION").asJavaString().compareTo("3.4") >= 0;
        return (singleQuotes ? "'" : "`") + name + "'";
    }
}
