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
      Generator.backend
    end

    # Switches every thread to +name+ before its next output. Raises
    # BackendUnavailableError (saying why) when RDRAND cannot be used here.
    def backend=(name)
      backend = name.to_sym if name.is_a?(String) || name.is_a?(Symbol)
      raise ArgumentError, "unknown backend #{name.inspect} (use one of #{BACKENDS.inspect})" unless BACKENDS.include?(backend)

      Generator.backend = backend
    end

    # Whether the :rdrand backend can run here (the CPU has RDRAND, it passed
    # its self-test and the native library loaded). Loads the library.
    def rdrand_available?
      Generator.rdrand_available?
    end

    # Why RDRAND is not usable here, or nil.
    def rdrand_problem
      Generator.cpu_random_problem
    end

    # Makes every thread's generator drop buffered output and reseed from the
    # OS before it hands out anything else (the caller's at once).
    def reseed!
      Generator.reseed_all
      nil
    end

    # Process-wide counters: generators created (shared and threads' own),
    # seeds taken from the OS (by the primary DRBG, which seeds all others),
    # bytes generated, and calls per backend and kind:
    # {calls: {drbg: {uuid: 12, hex: 3, ...}, rdrand: {...}}}.
    def stats
      Generator.stats
    end

    # True where SecureRandom is backed by fast_random (JRuby).
    def active?
      true
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
JRuby::Util.load_ext("fastrandom.ext.SecureRandomLibrary")
# The JNI library (RDRAND/RDSEED) sits beside the jar, one directory per
# platform; it is loaded from there, and only when first needed.
FastRandom::Generator.native_library_path = ENV.fetch("FAST_RANDOM_NATIVE_LIBRARY") do
  File.join(__dir__, "fast_random", FastRandom::Generator::NATIVE_LIBRARY)
end
require_relative "fast_random/secure_random"
# FastRandom::RSA loads with openssl (see openssl_hook.rb), or on first use.
FastRandom.autoload(:RSA, File.join(__dir__, "fast_random/rsa"))
require_relative "fast_random/openssl_hook"

FastRandom.backend = ENV["FAST_RANDOM_BACKEND"] if ENV["FAST_RANDOM_BACKEND"]
