# frozen_string_literal: true

module FastRandom
  # Points OpenSSL::Random.random_bytes at fast_random's generators, and
  # OpenSSL::PKey::RSA at fast_random's RSA engines (FastRandom::RSA), once
  # jruby-openssl is loaded, whether that happens before or after fast_random.
  # fast_random never loads openssl itself: while OpenSSL::Random is not
  # defined, every require checks for it afterwards (one constant lookup).
  module OpenSSLHook
    def self.install
      return true if @installed
      return false unless defined?(::OpenSSL::Random)

      # Marked first: loading FastRandom::RSA requires jars, which comes
      # back through Require#require.
      @installed = true
      OpenSSLRandomMethods.prepend_to(::OpenSSL::Random)
      RSA.install
      true
    end

    def self.installed?
      @installed == true
    end

    # Prepended to Kernel (and its singleton, for Kernel.require).
    module Require
      def require(feature)
        loaded = super
        OpenSSLHook.install unless OpenSSLHook.installed?
        loaded
      end
    end
  end
end

unless FastRandom::OpenSSLHook.install
  Kernel.prepend(FastRandom::OpenSSLHook::Require)
  Kernel.singleton_class.prepend(FastRandom::OpenSSLHook::Require)
end
