package org.jruby.ext.fastrandom;

/** Error-message details that changed between the Ruby versions JRuby 9.4 (3.1) and 10 (3.4) follow. */
final class Messages {
    private static volatile boolean singleQuotes;

    private Messages() {}

    /** Ruby 3.4 quotes names as 'name'; earlier versions as `name'. */
    static void useRubyVersion(String rubyVersion) {
        singleQuotes = rubyVersion.compareTo("3.4") >= 0;
    }

    static String quote(String name) {
        return (singleQuotes ? "'" : "`") + name + "'";
    }
}
