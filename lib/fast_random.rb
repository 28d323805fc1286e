# frozen_string_literal: true

require "fast_random/version"

# fast_random: a fast, per-thread SecureRandom for JRuby.
#
#   require "fast_random"   # e.g. in config/initializers/fast_random.rb
#
# SecureRandom's methods then draw from one NIST SP 800-90A CTR_DRBG
# (AES-256) per thread, seeded from the OS; see README.md.
module FastRandom
  BACKENDS = %i[drbg].freeze

  class << self
    # The generator behind SecureRandom: :drbg (per-thread AES-256 CTR_DRBG).
    def backend
      :drbg
    end

    # Makes every thread's generator drop buffered output and reseed from the
    # OS before it hands out anything else (the caller's at once).
    def reseed!
      Generator.reseed_all
      nil
    end

    # Process-wide counters: generators created, seeds taken, bytes generated.
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
require "fast_random/fast_random.jar"
JRuby::Util.load_ext("fastrandom.ext.SecureRandomLibrary")
require "fast_random/secure_random"
require "fast_random/openssl_hook"
