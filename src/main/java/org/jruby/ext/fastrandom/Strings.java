package org.jruby.ext.fastrandom;

import org.jcodings.specific.ASCIIEncoding;
import org.jcodings.specific.USASCIIEncoding;
import org.jruby.Ruby;
import org.jruby.RubyString;
import org.jruby.util.ByteList;
import org.jruby.util.StringSupport;

/** Ruby strings over byte arrays we own (no copy), in the encodings MRI uses. */
final class Strings {
    private Strings() {}

    /** Random bytes: ASCII-8BIT, as Random.urandom returns. */
    static RubyString binary(Ruby runtime, byte[] bytes) {
        return RubyString.newStringNoCopy(runtime, new ByteList(bytes, ASCIIEncoding.INSTANCE, false));
    }

    /** Text made of ASCII characters only: US-ASCII with a known 7-bit code range. */
    static RubyString ascii(Ruby runtime, byte[] bytes) {
        return RubyString.newStringNoCopy(runtime, new ByteList(bytes, USASCIIEncoding.INSTANCE, false),
                USASCIIEncoding.INSTANCE, StringSupport.CR_7BIT);
    }
}
