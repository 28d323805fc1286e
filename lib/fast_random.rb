# frozen_string_literal: true

require_relative "fast_random/version"

# Outside JRuby (MRI) fast_random leaves everything as it is: see
# fast_random/inactive.rb.
unless RUBY_ENGINE == "jruby"
  require_relative "fast_random/inactive"
  return
end

# fast_random: a fast, per-thread SecureRandom for JRuby.
#
#   require "fast_random"   # e.g. in config/initializers/fast_random.rb
#
# SecureRandom's methods then draw from one NIST SP 800-90A CTR_DRBG
# (AES-256) per thread, seeded from the OS; see README.md.
module FastRandom
  BACKENDS = %i[drbg rdrand].freeze

  class << self
    # The generator behind SecureRandom: :drbg (the default: a per-thread
    # AES-256 CTR_DRBG seeded from the OS, mixed with RDSEED/RDRAND) or
    # :rdrand (the CPU's RDRAND instruction, in bulk).
    def backend
      FastRandom::Generator.backend
    end

    # Switches every thread to +name+ before its next output. Raises
    # BackendUnavailableError (saying why) when RDRAND cannot be used here.
    def backend=(name)
      backend = name.to_sym if name.is_a?(String) || name.is_a?(Symbol)
      raise ArgumentError, "unknown backend #{name.inspect} (use one of #{BACKENDS.inspect})" unless BACKENDS.include?(backend)

      FastRandom::Generator.backend = backend
    end

    # Whether the :rdrand backend can run here (the CPU has RDRAND, it passed
    # its self-test and the native library loaded). Loads the library.
    def rdrand_available?
      FastRandom::Generator.rdrand_available?
    end

    # Why RDRAND is not usable here, or nil.
    def rdrand_problem
      FastRandom::Generator.cpu_random_problem
    end

    # Makes every thread's generator drop buffered output and reseed from the
    # OS before it hands out anything else (the caller's at once).
    def reseed!
      FastRandom::Generator.reseed_all
      nil
    end

    # Process-wide counters: generators created (shared and threads' own),
    # seeds taken from the OS (by the primary DRBG, which seeds all others),
    # bytes generated, and calls per backend and kind:
    # {calls: {drbg: {uuid: 12, hex: 3, ...}, rdrand: {...}}}.
    def stats
      FastRandom::Generator.stats
    end

    # True where SecureRandom is backed by fast_random (JRuby).
    def active?
      true
    end

    # FastRandom::Generator (the controls behind the methods above) and
    # FastRandom::RSA (with openssl, see openssl_hook.rb) load on first use.
    # (Not with Module#autoload: its first use costs JRuby some 20 ms of
    # start-up.) require_relative loads each once, whatever the threads.
    def const_missing(name)
      case name
      when :Generator then require_relative "fast_random/generator"
      when :RSA then require_relative "fast_random/rsa"
      else return super
      end
      const_get(name, false)
    end
  end
end

require "securerandom"
require_relative "fast_random/errors"
# The plain (platform "ruby") gem, which MRI installs, has no jar.
unless File.exist?(File.join(__dir__, "fast_random", "fast_random.jar"))
  raise LoadError, "fast_random #{FastRandom::VERSION} has no fast_random.jar here (#{__dir__}/fast_random): " \
                   "JRuby needs the fast_random-#{FastRandom::VERSION}-java gem (for a Gemfile.lock made " \
                   "on MRI: bundle lock --add-platform java); in a checkout, run rake compile"
end
require_relative "fast_random/fast_random.jar"
# Where the JNI library (RDRAND/RDSEED, libcrypto) is, one directory per
# platform; the extension loads it only when first needed.
FastRandom::LIBRARY_DIR = File.join(__dir__, "fast_random")
FastRandom.private_constant(:LIBRARY_DIR)
JRuby::Util.load_ext("org.jruby.ext.fastrandom.SecureRandomLibrary")
require_relative "fast_random/secure_random"
require_relative "fast_random/openssl_hook"

FastRandom.backend = ENV["FAST_RANDOM_BACKEND"] if ENV["FAST_RANDOM_BACKEND"]
