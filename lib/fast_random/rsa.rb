# frozen_string_literal: true

module FastRandom
  # Fast RSA for jruby-openssl: OpenSSL::PKey::RSA's private and public
  # operations (sign, verify, private/public encrypt and decrypt, sign_raw,
  # and OpenSSL::PKey::PKey#sign/#verify) run on a native engine, with the
  # same results as stock jruby-openssl.
  #
  #   FastRandom::RSA.engine            # => :openssl, :gmp or :java
  #   FastRandom::RSA.engine = :gmp     # or FAST_RANDOM_RSA_ENGINE=gmp before the require
  #
  # :openssl is OpenSSL's libcrypto (what MRI uses) through fast_random's
  # JNI library; :gmp is GMP through Square's jnagmp; :java is jruby-openssl's
  # own BouncyCastle code. Unless one is chosen, the first RSA operation
  # picks the first of :openssl and :gmp that loads and passes a known-answer
  # self-test; if neither does, RSA stays on :java with one warning.
  #
  # Loaded when openssl is (before or after fast_random), or when this
  # module is first used; never by `require "fast_random"` alone. Every
  # method works before openssl is loaded: installed? is false, an engine
  # chosen then is applied when openssl arrives.
  module RSA
    ENGINES = %i[openssl gmp java].freeze

    # An engine that cannot run here was asked for; the message says why.
    class EngineUnavailableError < FastRandom::Error; end

    class << self
      def engine
        Native.engine
      end

      def engine=(name)
        engine = name.to_sym if name.is_a?(String) || name.is_a?(Symbol)
        raise ArgumentError, "unknown RSA engine #{name.inspect} (use one of #{ENGINES.inspect})" unless ENGINES.include?(engine)

        Native.engine = engine.to_s
      end

      # Nil when +name+ can run here, else why not (loads and self-tests it).
      def engine_problem(name)
        raise ArgumentError, "unknown RSA engine #{name.inspect}" unless ENGINES.include?(name.to_s.to_sym)

        Native.engine_problem(name.to_s)
      end

      # Operations per engine since the process started, e.g.
      #   {openssl: {private: 12, public: 40}, gmp: {private: 0, public: 0},
      #    java: {private: 0, public: 0}, fallbacks: 0}
      # (java: what jruby-openssl's own code did; fallbacks: operations an
      # engine failed, which then ran on jruby-openssl's code).
      def stats
        Native.stats
      end

      # Whether jruby-openssl's RSA goes through fast_random now.
      def installed?
        defined?(::OpenSSL::PKey::RSA) ? Native.installed? : false
      end

      # Called once openssl is loaded (org.jruby.ext.fastrandom.OpenSSLHook): puts fast_random's
      # provider in front of jruby-openssl's, and PSSMethods in front of
      # OpenSSL::PKey::RSA's PSS methods, which no provider reaches.
      def install
        Native.install
        true
      end

      # Gives jruby-openssl back its own provider (for comparisons in tests
      # and benchmarks; FastRandom::RSA.engine = :java is the usual switch).
      # Nothing to do before openssl is loaded.
      def uninstall
        Native.uninstall if defined?(::OpenSSL::PKey::RSA)
        nil
      end
    end
  end
end

# The :gmp engine's libraries, shipped in vendor/ (JNA, then jnagmp, then its
# BouncyCastle RSA engine). Adding a jar to JRuby's class loader loads no
# class: JNA and libgmp load when the :gmp engine is first tried.
%w[jna jnagmp bouncycastle-rsa].each do |name|
  jar = Dir[File.join(__dir__, "vendor", "#{name}-[0-9]*.jar")].max
  require jar if jar
end
JRuby::Util.load_ext("org.jruby.ext.fastrandom.RsaLibrary")
FastRandom::RSA.engine = ENV["FAST_RANDOM_RSA_ENGINE"] if ENV["FAST_RANDOM_RSA_ENGINE"]
