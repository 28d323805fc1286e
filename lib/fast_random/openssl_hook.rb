# frozen_string_literal: true

module FastRandom
  # Points OpenSSL::Random.random_bytes at fast_random's generators, and
  # OpenSSL::PKey::RSA at fast_random's RSA engines (FastRandom::RSA), once
  # jruby-openssl is loaded, whether that happens before or after fast_random.
  # fast_random never loads openssl itself: while it is not loaded, every
  # require checks for it when it returns (see around_require).
  module OpenSSLHook
    DEPTH = :__fast_random_require_depth

    class << self
      def install
        return true if @installed
        return false unless defined?(::OpenSSL::PKey::RSA) && defined?(::OpenSSL::Random)

        @installed = true
        OpenSSLRandomMethods.prepend_to(::OpenSSL::Random)
        begin
          RSA.install
        rescue Exception => e # rubocop:disable Lint/RescueException -- Java errors too: require "openssl" must not fail
          warn "fast_random: RSA stays on jruby-openssl's Java code (installing fast_random's RSA failed: " \
               "#{e.class}: #{e.message})"
        end
        true
      end

      def installed?
        @installed == true
      end

      # Runs a require (the block), then installs once openssl is complete:
      # right after the require during which OpenSSL::Random appeared returns
      # (jruby-openssl's jopenssl/load, which defines and completes OpenSSL),
      # or, failing that, after the outermost require of the fiber.
      def around_require
        depth = Thread.current[DEPTH] || 0
        openssl_before = defined?(::OpenSSL::Random)
        Thread.current[DEPTH] = depth + 1
        begin
          loaded = yield
        ensure
          Thread.current[DEPTH] = depth
        end
        install if !installed? && (!openssl_before || depth.zero?)
        loaded
      end
    end

    # Prepended to Kernel: private, as Kernel#require is.
    module Require
      private

      def require(feature)
        OpenSSLHook.around_require { super }
      end
    end

    # Prepended to Kernel's singleton class: public, as Kernel.require is.
    module KernelRequire
      def require(feature)
        OpenSSLHook.around_require { super }
      end
    end
  end
end

unless FastRandom::OpenSSLHook.install
  Kernel.prepend(FastRandom::OpenSSLHook::Require)
  Kernel.singleton_class.prepend(FastRandom::OpenSSLHook::KernelRequire)
end
