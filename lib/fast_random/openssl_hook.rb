# frozen_string_literal: true

module FastRandom
  # Points OpenSSL::Random.random_bytes at fast_random's generators, and
  # OpenSSL::PKey::RSA at fast_random's RSA engines (FastRandom::RSA), once
  # jruby-openssl is loaded, whether that happens before or after fast_random.
  # fast_random never loads openssl itself.
  #
  # jruby-openssl defines OpenSSL's classes in Java, with
  # JRuby::Util.load_ext("org.jruby.ext.openssl.OpenSSL") (from jopenssl/load,
  # after its BouncyCastle jars); its Ruby files add nothing fast_random
  # touches. So fast_random waits for that call, by a module prepended to
  # JRuby::Util's singleton class: a small module, unlike Kernel, whose
  # require methods every object would have looked up through a wrapper.
  module OpenSSLHook
    OPENSSL_EXTENSION = "org.jruby.ext.openssl.OpenSSL"

    def self.install
      return true if @installed
      return false unless defined?(::OpenSSL::PKey::RSA) && defined?(::OpenSSL::Random)

      @installed = true
      JRuby::Util.load_ext("org.jruby.ext.fastrandom.OpenSSLLibrary") # OpenSSL::Random's methods
      begin
        FastRandom::RSA.install
      rescue Exception => e # rubocop:disable Lint/RescueException -- Java errors too: loading openssl must not fail
        warn "fast_random: RSA stays on jruby-openssl's Java code (installing fast_random's RSA failed: " \
             "#{e.class}: #{e.message})"
      end
      true
    end

    def self.installed?
      @installed == true
    end

    # Prepended to JRuby::Util's singleton class while openssl is not loaded.
    module LoadExt
      def load_ext(name)
        loaded = super
        OpenSSLHook.install if name.to_s == OPENSSL_EXTENSION
        loaded
      end
    end
  end
end

JRuby::Util.singleton_class.prepend(FastRandom::OpenSSLHook::LoadExt) unless FastRandom::OpenSSLHook.install
