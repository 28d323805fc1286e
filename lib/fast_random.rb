# frozen_string_literal: true

# fast_random: a fast, per-thread SecureRandom for JRuby.
#
#   require "fast_random"   # e.g. in config/initializers/fast_random.rb
#
# SecureRandom's methods then draw from per-thread NIST SP 800-90A CTR_DRBGs
# (AES-256) seeded from one primary DRBG seeded from the OS; see README.md.
# The API (FastRandom.backend, .reseed!, .stats, ...) and the hooks are Java
# (org.jruby.ext.fastrandom.FastRandomModule and SecureRandomLibrary): on a
# cold JVM each Ruby file and method costs start-up time, so this file is all
# the Ruby that `require "fast_random"` loads.
#
# The route of a call (JRuby), file by file:
#   SecureRandom.uuid (and uuid_v4)
#     FastRandom::SecureRandomMethods, prepended to SecureRandom's singleton
#       class at the require (org/jruby/ext/fastrandom/SecureRandomLibrary.java)
#     -> SecureRandomMethods.java#uuid
#     -> fastrandom/random/Call.java (UUID.generator(): counts the call)
#        -> ThreadGenerators.java#forCall (the thread's BufferedRandom)
#     -> fastrandom/text/Uuids.java#v4 -> Strings.java#ascii
#   SecureRandom.uuid_v7(extra_timestamp_bits: 0)
#     -> this file, SecureRandomMethods#uuid_v7 (Ruby: MRI's keyword
#        handling and errors, Integer() as MRI converts)
#     -> SecureRandomMethods.java#uuid_v7_bits (private; 0..12 checked)
#     -> Call.java (UUID_V7.generator()) -> ThreadGenerators.java#forCall
#     -> Uuids.java#v7 -> Strings.java#ascii
require_relative "fast_random/version"

# Outside JRuby (MRI) fast_random leaves everything as it is: see
# fast_random/inactive.rb.
unless RUBY_ENGINE == "jruby"
  require_relative "fast_random/inactive"
  return
end
if (JRUBY_VERSION.split(".").map(&:to_i) <=> FastRandom::OLDEST_JRUBY.split(".").map(&:to_i)).negative?
  require_relative "fast_random/inactive"
  warn "fast_random: #{FastRandom::INACTIVE_REASON}"
  return
end

# Stock's securerandom.rb adds nothing that fast_random does not replace
# but SecureRandom::VERSION, and as a default gem (RubyGems reads its
# specification first) it costs a cold process 10 to 20 ms, more than all
# of fast_random. So unless it is loaded already, SecureRandom is defined
# here as that file defines it (a module extended by Random::Formatter),
# and the file loads when SecureRandom::VERSION is first named or something
# requires "securerandom" (fast_random's methods stay in front).
unless defined?(SecureRandom)
  # Past RubyGems' require, which on JRuby 9.4 activates the securerandom
  # default gem this file belongs to (another 10 ms); $LOAD_PATH decides
  # which file loads, as it would.
  respond_to?(:gem_original_require, true) ? gem_original_require("random/formatter") : require("random/formatter")
  module SecureRandom
    extend Random::Formatter
    # JRuby 10's securerandom (0.4) has a VERSION; 9.4's (0.2.0) has none.
    autoload :VERSION, "securerandom" if RUBY_VERSION >= "3.4"
  end
end
# The plain (platform "ruby") gem, which MRI installs, has no jar.
unless File.exist?(File.join(__dir__, "fast_random", "fast_random.jar"))
  raise LoadError, "fast_random #{FastRandom::VERSION} has no fast_random.jar here (#{__dir__}/fast_random): " \
                   "JRuby needs the fast_random-#{FastRandom::VERSION}-java gem (for a Gemfile.lock made " \
                   "on MRI: bundle lock --add-platform java); in a checkout, run rake compile"
end
require_relative "fast_random/fast_random.jar"
# Where the JNI library (the CPU's random number instructions, libcrypto) and the vendor jars of
# the :gmp RSA engine are; the extension loads each only when first needed.
FastRandom::LIBRARY_DIR = File.join(__dir__, "fast_random")
FastRandom.private_constant(:LIBRARY_DIR)
JRuby::Util.load_ext("org.jruby.ext.fastrandom.SecureRandomLibrary")

module FastRandom
  # Prepended to SecureRandom's singleton class by the extension, with its
  # Java methods (bytes, gen_random, random_bytes, hex, base64,
  # urlsafe_base64, uuid, uuid_v4, random_number, rand, and the private
  # uuid_v7_bits). These two take keywords, so their signatures are Ruby's
  # and their work is Java's.
  module SecureRandomMethods
    DEFAULT_ALPHANUMERIC = Random::Formatter::ALPHANUMERIC.dup.freeze

    def uuid_v7(extra_timestamp_bits: 0)
      uuid_v7_bits(Integer(extra_timestamp_bits))
    end

    def alphanumeric(n = nil, chars: DEFAULT_ALPHANUMERIC)
      n = 16 if n.nil?
      if Array === chars && (Integer === n || ((Float === n || Rational === n) && n > FastRandom::Generator::MAX_LENGTH))
        # Java, which raises NoMemoryError at once for lengths no String can
        # hold, where MRI's loop would grow the string until memory runs out.
        FastRandom::Generator.choose(chars, n)
      elsif chars.size < 2
        # MRI 3.3 and 3.4's choose loops forever here; this is what MRI 3.5's does.
        raise ArgumentError, "character source must not be empty" if chars.size.zero?

        chars.first * n
      else
        # MRI's own algorithm (Random::Formatter#choose) for other argument
        # types, so they convert and fail exactly as on MRI.
        choose(chars, n)
      end
    end
  end
end
