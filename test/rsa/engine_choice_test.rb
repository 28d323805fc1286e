# frozen_string_literal: true

# Passes main, 9.4-fallback: the RSA engine and its warnings change without the library; hidden CPU features change neither.

require_relative "../test_helper"

# Which RSA engine runs, and when fast_random's RSA loads at all: each case
# in a fresh JRuby, so load order, environment and warnings are real.
class RsaEngineChoiceTest < Minitest::Test
  SIGN_AND_REPORT = <<~RUBY
    key = OpenSSL::PKey::RSA.new(1024)
    ok = key.public_key.verify("SHA256", key.sign("SHA256", "x"), "x")
    stats = FastRandom::RSA.stats
    p [FastRandom::RSA.engine, ok, stats[FastRandom::RSA.engine][:private]]
  RUBY

  # A native library that is not used (bin/test's pass without it) is said
  # once for all it costs, RSA among them: not a warning about RSA.
  NATIVE_LIBRARY_NOT_USED = /\Afast_random: (the native library is not used|no private copy of the native libraries)/

  # [last line of stdout, fast_random's warnings about RSA on stderr]
  def run_jruby(code, env = {})
    out, err, status = TestHelper.jruby(code, env: env)
    assert status.success?, "jruby failed: #{err}"
    [out.lines.last.to_s.strip, err.lines.grep(/\Afast_random: .*RSA/).grep_v(NATIVE_LIBRARY_NOT_USED).map(&:strip)]
  end

  def test_the_default_is_openssl_when_libcrypto_loads
    skip "bin/test's pass without the JNI library (the next test covers it)" unless TestHelper.native_library_expected?
    out, warnings = run_jruby("require 'fast_random'; require 'openssl'\n#{SIGN_AND_REPORT}")
    assert_equal "[:openssl, true, 1]", out
    assert_empty warnings
  end

  def test_without_libcrypto_gmp_takes_over_with_one_warning
    out, warnings = run_jruby("require 'openssl'; require 'fast_random'\n#{SIGN_AND_REPORT}",
                              "FAST_RANDOM_HIDE_LIBCRYPTO" => "1")
    assert_equal "[:gmp, true, 1]", out
    assert_equal 1, warnings.size, warnings.inspect
    assert_match(/\Afast_random: RSA runs on the gmp engine \(openssl: libcrypto hidden by FAST_RANDOM_HIDE_LIBCRYPTO\)\z/,
                 warnings.first)
  end

  def test_without_any_native_engine_rsa_stays_stock_with_one_warning
    out, warnings = run_jruby("require 'fast_random'; require 'openssl'\n#{SIGN_AND_REPORT}\n#{SIGN_AND_REPORT}",
                              "FAST_RANDOM_HIDE_LIBCRYPTO" => "1", "FAST_RANDOM_GMP_LIBRARY" => "/nonexistent/libgmp.so")
    assert_equal "[:java, true, 2]", out
    assert_equal 1, warnings.size, warnings.inspect
    assert_match(/\Afast_random: RSA stays on jruby-openssl's Java code \(openssl: .*; gmp: .*libgmp.*\)\z/, warnings.first)
  end

  def test_the_environment_picks_an_engine
    out, warnings = run_jruby("require 'fast_random'; require 'openssl'\n#{SIGN_AND_REPORT}", "FAST_RANDOM_RSA_ENGINE" => "gmp")
    assert_equal "[:gmp, true, 1]", out
    assert_empty warnings
    out, = run_jruby("require 'openssl'; require 'fast_random'\n#{SIGN_AND_REPORT}", "FAST_RANDOM_RSA_ENGINE" => "java")
    assert_equal "[:java, true, 1]", out
  end

  def test_an_engine_that_cannot_run_is_refused_saying_why
    out, = run_jruby(<<~RUBY, "FAST_RANDOM_HIDE_LIBCRYPTO" => "1")
      require "fast_random"; require "openssl"
      error = begin
        FastRandom::RSA.engine = :openssl
      rescue FastRandom::Error => e
        e
      end
      p [error.class, error.message, FastRandom::RSA.engine_problem(:openssl)]
    RUBY
    assert_equal '[FastRandom::EngineUnavailableError, "openssl RSA engine unavailable: libcrypto hidden by ' \
                 'FAST_RANDOM_HIDE_LIBCRYPTO", "libcrypto hidden by FAST_RANDOM_HIDE_LIBCRYPTO"]', out
  end

  def test_unknown_engines_raise_argument_error
    require "openssl"
    assert_raises(ArgumentError) { FastRandom::RSA.engine = :fastest }
    assert_raises(ArgumentError) { FastRandom::RSA.engine = 42 }
    assert_raises(ArgumentError) { FastRandom::RSA.engine_problem(:nope) }
  end

  # Without openssl, fast_random's RSA is not even loaded (no jars, no Java
  # classes): RSA costs nothing at start-up for apps that do not use it.
  def test_rsa_loads_only_with_openssl
    out, = run_jruby(<<~RUBY)
      require "fast_random"
      SecureRandom.uuid
      rsa_loaded = FastRandom.const_defined?(:RSA, false)
      jars = $LOADED_FEATURES.grep(/jnagmp|bouncycastle-rsa/).size
      require "openssl"
      p [rsa_loaded, jars, FastRandom.const_defined?(:RSA, false), FastRandom::RSA.installed?,
         !OpenSSL::PKey::RSA.method_defined?(:sign_pss) || OpenSSL::PKey::RSA.instance_method(:sign_pss).source_location.nil?,
         OpenSSL::PKey::RSA.ancestors.first]
    RUBY
    # PSS methods are replaced in place (Java, so no source location), nothing prepended.
    assert_equal "[false, 0, true, true, true, OpenSSL::PKey::RSA]", out
  end

  # Every FastRandom::RSA method works before openssl is loaded; openssl
  # then loads completely, on the default engine: :openssl, or where the
  # library is missing :gmp, with no warning of RSA's own (the library's
  # one warning says it for everything; RSA's part is said under -w).
  def test_every_rsa_method_works_before_openssl_and_openssl_loads_completely_after
    no_library = !TestHelper.native_library_expected?
    default = no_library ? :gmp : :openssl
    out, warnings = run_jruby(<<~RUBY)
      require "fast_random"
      rsa = FastRandom::RSA
      before = [rsa.installed?, rsa.engine, rsa.engine_problem(:openssl), rsa.engine_problem(:java),
                rsa.stats[:fallbacks], rsa.uninstall, defined?(OpenSSL).nil?]
      require "openssl"
      key = OpenSSL::PKey::RSA.new(1024)
      complete = [OpenSSL.respond_to?(:secure_compare), defined?(OpenSSL::SSL::SSLContext::DEFAULT_PARAMS).nil?,
                  defined?(OpenSSL::PKey::EC).nil?, key.public_key.verify("SHA256", key.sign("SHA256", "x"), "x")]
      p [before, complete, rsa.installed?, rsa.engine, rsa.stats[rsa.engine][:private]]
    RUBY
    problem = no_library ? "native library #{ENV["FAST_RANDOM_NATIVE_LIBRARY"]} is missing" : nil
    assert_equal "[[false, #{default.inspect}, #{problem.inspect}, nil, 0, nil, true], [true, false, false, true], " \
                 "true, #{default.inspect}, 1]", out
    assert_empty warnings
  end

  def test_openssl_loaded_first_is_hooked_too
    out, = run_jruby("require 'openssl'; require 'fast_random'\np [FastRandom::RSA.installed?]\n#{SIGN_AND_REPORT}")
    assert_match(/\A\[:(openssl|gmp), true, 1\]\z/, out)
  end

  def test_uninstall_gives_jruby_openssl_back_its_provider
    require "openssl"
    FastRandom::RSA.uninstall
    refute FastRandom::RSA.installed?
    before = FastRandom::RSA.stats
    key = OpenSSL::PKey::RSA.new(1024)
    key.sign_pss("SHA256", "x", salt_length: :digest, mgf1_hash: "SHA256") if key.respond_to?(:sign_pss) # 0.15.6 and later
    key.sign("SHA256", "x")
    assert_equal before, FastRandom::RSA.stats
  ensure
    FastRandom::RSA.install
    assert FastRandom::RSA.installed?
  end

  # FAST_RANDOM_RSA_ENGINE, FAST_RANDOM_HIDE_LIBCRYPTO and
  # FAST_RANDOM_GMP_LIBRARY are read from Ruby's ENV once, at the require
  # (an initializer may set them first; the engine is applied when RSA is
  # first used); set after it, they change nothing, not even a bad value.
  def test_settings_in_ruby_s_env_count_before_the_require_only
    unset = { "FAST_RANDOM_RSA_ENGINE" => nil, "FAST_RANDOM_HIDE_LIBCRYPTO" => nil, "FAST_RANDOM_GMP_LIBRARY" => nil }
    report = 'p [FastRandom::RSA.engine, FastRandom::RSA.engine_problem(:openssl).to_s[/hidden/], ' \
             'FastRandom::RSA.engine_problem(:gmp).to_s[%r{/nonexistent/libgmp.so}]]'
    out, = run_jruby(<<~RUBY, unset)
      ENV["FAST_RANDOM_RSA_ENGINE"] = "java"
      ENV["FAST_RANDOM_HIDE_LIBCRYPTO"] = "1"
      ENV["FAST_RANDOM_GMP_LIBRARY"] = "/nonexistent/libgmp.so"
      require "fast_random"
      #{report}
    RUBY
    assert_equal '[:java, "hidden", "/nonexistent/libgmp.so"]', out
    out, = run_jruby(<<~RUBY, unset)
      require "fast_random"
      ENV["FAST_RANDOM_RSA_ENGINE"] = "fastest"
      ENV["FAST_RANDOM_HIDE_LIBCRYPTO"] = "1"
      ENV["FAST_RANDOM_GMP_LIBRARY"] = "/nonexistent/libgmp.so"
      #{report}
    RUBY
    expected = TestHelper.native_library_expected? ? ":openssl, nil" : ":gmp, nil"
    assert_equal "[#{expected}, nil]", out
  end

  # One error class for unavailable engines, under every name it had.
  def test_engine_unavailable_error_is_one_class
    assert_same FastRandom::EngineUnavailableError, FastRandom::RSA::EngineUnavailableError
    assert_same FastRandom::EngineUnavailableError, FastRandom::EC::EngineUnavailableError
    assert_equal FastRandom::Error, FastRandom::EngineUnavailableError.superclass
  end
end
