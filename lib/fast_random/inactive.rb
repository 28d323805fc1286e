# frozen_string_literal: true

require "securerandom"
require_relative "errors"

module FastRandom
  # What `require "fast_random"` does outside JRuby (MRI, TruffleRuby):
  # nothing to SecureRandom, OpenSSL::Random or OpenSSL::PKey::RSA, which
  # already use OpenSSL there, so one Gemfile and one initializer serve an
  # application on MRI and on JRuby. The API answers for a process where
  # fast_random is not in use; asking it to do something raises.
  INACTIVE_REASON = if RUBY_ENGINE == "jruby"
                      "JRuby #{JRUBY_VERSION} is older than fast_random supports (#{OLDEST_JRUBY} and later); " \
                        "SecureRandom and OpenSSL are left as they are"
                    else
                      "fast_random only works on JRuby (this is #{RUBY_ENGINE} #{RUBY_VERSION}); " \
                        "SecureRandom and OpenSSL are left as they are"
                    end

  class << self
    def active?
      false
    end

    # No fast_random generator is in use.
    def backend
      nil
    end

    def backend=(name)
      raise BackendUnavailableError, "cannot use backend #{name.inspect}: #{INACTIVE_REASON}"
    end

    def rdrand_available?
      false
    end

    def rdrand_problem
      INACTIVE_REASON
    end

    # SecureRandom reads the OS itself here; there is no generator to reseed.
    def reseed!
      nil
    end

    # Nothing counted: no generator, seed or call of fast_random's.
    def stats
      {}
    end

    # There is no JVM here to install a provider into, and nothing to speed
    # up (OpenSSL already does this work): false, nothing was installed, so
    # one initializer serves MRI and JRuby.
    def install_jca_provider
      false
    end

    def uninstall_jca_provider
      false
    end

    def jca_provider_installed?
      false
    end
  end

  # fast_random's RSA and EC engines, and its AES, are for jruby-openssl;
  # MRI's OpenSSL::PKey::RSA, ::EC and OpenSSL::Cipher are OpenSSL's own.
  # The modules answer for a capability not in use, RSA and EC also for an
  # engine not in use (FastRandom::RSA.engine_problem(:gmp), ...).
  module InactiveCapability
    def installed?
      false
    end

    def stats
      {}
    end

    # Nothing was put into OpenSSL, so there is nothing to give back.
    def uninstall
      nil
    end

    def install
      raise FastRandom::EngineUnavailableError, "cannot install #{name.split("::").last}: #{INACTIVE_REASON}"
    end
  end
  private_constant :InactiveCapability

  module InactiveEngine
    include InactiveCapability

    def engine
      nil
    end

    def engine=(name)
      kind = self.name.split("::").last
      raise self::EngineUnavailableError, "cannot use #{kind} engine #{name.inspect}: #{INACTIVE_REASON}"
    end

    def engine_problem(_name)
      INACTIVE_REASON
    end
  end
  private_constant :InactiveEngine

  module RSA
    EngineUnavailableError = FastRandom::EngineUnavailableError
    extend InactiveEngine
  end

  module EC
    EngineUnavailableError = FastRandom::EngineUnavailableError
    extend InactiveEngine
  end

  module AES
    extend InactiveCapability
  end
end
