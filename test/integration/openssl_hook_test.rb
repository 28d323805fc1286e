# frozen_string_literal: true

# Passes main, 9.4-fallback, hooks: the hooks with any generator behind them, and key generation where EC has no native engine.

require_relative "../test_helper"

# OpenSSL::Random.random_bytes, and what jruby-openssl draws itself
# (Cipher#random_iv and random_key), use fast_random's generators whether
# openssl is loaded before or after fast_random, and fast_random never loads
# openssl. Each case about a load order runs in a fresh JRuby, so the order is real.
class OpenSSLHookTest < Minitest::Test
  REPORT = <<~RUBY
    before = FastRandom.stats[:bytes_generated]
    bytes = OpenSSL::Random.random_bytes(100_000)
    openssl_calls = -> { FastRandom.stats[:calls].values.sum { |kinds| kinds[:openssl] } }
    cipher = OpenSSL::Cipher.new("aes-256-gcm").encrypt
    calls = openssl_calls.()
    ivs = Array.new(100) { cipher.random_iv }
    keys = Array.new(100) { cipher.random_key }
    drawn = openssl_calls.() - calls
    p [bytes.bytesize, bytes.encoding.to_s, OpenSSL::Random.method(:random_bytes).owner.to_s,
       FastRandom.stats[:bytes_generated] - before >= 100_000,
       drawn, ivs.uniq.size, ivs.map(&:bytesize).uniq, keys.uniq.size, keys.map(&:bytesize).uniq]
  RUBY

  EXPECTED = '[100000, "ASCII-8BIT", "FastRandom::OpenSSLRandomMethods", true, 200, 100, [12], 100, [32]]'

  def run_jruby(code)
    out, err, status = TestHelper.jruby(code)
    assert status.success?, "jruby failed: #{err}"
    out.lines.last.to_s.strip
  end

  def test_require_fast_random_does_not_load_openssl
    assert_equal "[false, false]", run_jruby(<<~RUBY)
      require "fast_random"
      SecureRandom.uuid
      p [defined?(OpenSSL).nil? == false, $LOADED_FEATURES.any? { |f| f.end_with?("/openssl.rb") }]
    RUBY
  end

  # jruby-openssl looks its provider's name up in the JVM's list
  # (SecurityHelper.isProviderRegistered): the JVM-wide provider, named
  # FastRandom, must not be taken for it.
  def test_the_provider_jruby_openssl_holds_is_named_apart_from_the_jvm_wide_one
    out, err, status = TestHelper.jruby(<<~RUBY)
      require "fast_random"; require "openssl"
      FastRandom.install_jca_provider
      helper = Java::OrgJrubyExtOpenssl::SecurityHelper
      p [helper.getSecurityProvider.getName, java.security.Security.getProvider("FastRandom").nil?, helper.isProviderRegistered]
    RUBY
    assert status.success?, "jruby failed: #{err}"
    assert_equal '["FastRandom-jruby-openssl", false, false]', out.lines.last.to_s.strip
  end

  def test_openssl_loaded_before_fast_random
    assert_equal EXPECTED, run_jruby("require 'openssl'; require 'fast_random'\n" + REPORT)
  end

  def test_openssl_loaded_after_fast_random
    assert_equal EXPECTED, run_jruby("require 'fast_random'; require 'openssl'\n" + REPORT)
  end

  def test_openssl_loaded_through_another_library
    assert_equal EXPECTED, run_jruby("require 'fast_random'; require 'net/https'; require 'openssl'\n" + REPORT)
  end

  # A jruby-openssl whose OpenSSL::Random holds no random source fast_random
  # knows: the require still works, one warning says random_iv and
  # random_key stay jruby-openssl's, and OpenSSL::Random.random_bytes is
  # fast_random's.
  def test_an_unknown_random_holder_leaves_random_iv_stock_s_with_one_warning
    out, err, status = TestHelper.jruby(<<~RUBY)
      require "jruby"
      require "openssl"
      JRuby.reference(OpenSSL::Random).dataWrapStruct(nil)
      require "fast_random"
      p [OpenSSL::Random.random_bytes(16).bytesize, OpenSSL::Random.method(:random_bytes).owner.to_s]
    RUBY
    assert status.success?, err
    assert_equal '[16, "FastRandom::OpenSSLRandomMethods"]', out.lines.last.to_s.strip
    assert_equal 1, err.scan(/random_iv and random_key stay on jruby-openssl's SecureRandom/).size, err
  end

  # RSA key generation draws from fast_random's generators while RSA is
  # hooked in, and EC's while EC is and its generation runs on
  # jruby-openssl's code (on the :openssl engine, P-256 keys come from
  # OpenSSL's own generator, as MRI's: test/ec/key_generation_test.rb), and
  # the keys work; OpenSSL::BN's random numbers too. In this process: the
  # load order is not what this is about.
  def test_key_generation_and_bn_rand_draw_from_fast_random
    require "openssl"
    calls = -> { FastRandom.stats[:calls].values.sum { |kinds| kinds[:openssl] } }
    drawn = lambda do |&make|
      before = calls.()
      key = make.()
      [calls.() > before, key]
    end
    rsa_drawn, rsa = drawn.() { OpenSSL::PKey::RSA.generate(1024) }
    java_generations = -> { FastRandom::EC.stats.dig(:java, :generate).to_i }
    before_ec = java_generations.()
    ec_drawn, ec = drawn.() { OpenSSL::PKey::EC.generate("prime256v1") }
    ec_on_java = java_generations.() > before_ec
    bn_drawn, bn = drawn.() { OpenSSL::BN.rand(256) }
    range_drawn, = drawn.() { OpenSSL::BN.rand_range(1000) }
    assert_equal [true] * 8,
                 [rsa_drawn == FastRandom::RSA.installed?, ec_drawn == (FastRandom::EC.installed? && ec_on_java), rsa_drawn, bn_drawn, range_drawn,
                  bn.num_bits.between?(250, 256), rsa.verify("SHA256", rsa.sign("SHA256", "m"), "m"),
                  ec.dsa_verify_asn1("d" * 32, ec.dsa_sign_asn1("d" * 32))]
    return if Gem::Version.new(JOpenSSL::VERSION) < Gem::Version.new("0.16.2")

    # jruby-openssl 0.16.2's OpenSSL::PKey.generate_key(key): a new key on an EC key's group, the same way.
    before_ec = java_generations.()
    params_drawn, from_params = drawn.() { OpenSSL::PKey.generate_key(ec) }
    assert_equal [FastRandom::EC.installed? && java_generations.() > before_ec, "prime256v1", true],
                 [params_drawn, from_params.group.curve_name, from_params.verify("SHA256", from_params.sign("SHA256", "m"), "m")]
  end

  def test_pseudo_bytes_and_odd_arguments
    require "openssl"
    errors = [-1, "x"].map { |n| (OpenSSL::Random.random_bytes(n) rescue $!.class.name) }
    assert_equal [8, 3, "ArgumentError", "TypeError"],
                 [OpenSSL::Random.pseudo_bytes(8).bytesize, OpenSSL::Random.random_bytes(3.7).bytesize, *errors]
  end

  # An install that fails (here injected, as a jruby-openssl whose classes
  # fast_random cannot take would make it) is whole or nothing: one warning,
  # jruby-openssl's own code serves every call, and the module says so
  # (engine :java, engine_problem why, engine= refuses). Before, the
  # provider stayed in and the warning said the opposite of what ran.
  def test_a_failed_install_leaves_stock_and_says_so
    out, err, status = TestHelper.jruby(<<~RUBY)
      require #{TestHelper::TEST_JAR.dump} # first: fast_random looks for its fault injector at its first fault site
      require "fast_random"
      Java::OrgJrubyExtFastrandom::InstallFaults.set(->(name) { %w[OpenSSL::PKey::RSA OpenSSL::PKey::EC].include?(name) })
      require "openssl"
      rsa = OpenSSL::PKey::RSA.new(2048)
      ec = OpenSSL::PKey::EC.generate("prime256v1")
      before = [FastRandom::RSA.stats, FastRandom::EC.stats]
      ok = rsa.verify("SHA256", rsa.sign("SHA256", "x"), "x") && ec.verify("SHA256", ec.sign("SHA256", "x"), "x") &&
           ec.dsa_verify_asn1("x" * 32, ec.dsa_sign_asn1("x" * 32))
      after = [FastRandom::RSA.stats, FastRandom::EC.stats]
      native = [after[0][:openssl].values.sum - before[0][:openssl].values.sum, after[1][:openssl].values.sum - before[1][:openssl].values.sum]
      refused = [FastRandom::RSA, FastRandom::EC].map do |mod|
        mod.engine = :openssl
        "not refused"
      rescue FastRandom::EngineUnavailableError => e
        e.message
      end
      p [ok, native, FastRandom::RSA.engine, FastRandom::EC.engine, FastRandom::RSA.installed?, FastRandom::EC.installed?,
         FastRandom::RSA.engine_problem(:openssl), FastRandom::EC.engine_problem(:openssl), refused,
         FastRandom::RSA.engine_problem(:java)]
    RUBY
    assert status.success?, err
    ok, native, rsa_engine, ec_engine, rsa_installed, ec_installed, rsa_problem, ec_problem, refused, java_problem = eval(out.lines.last) # rubocop:disable Security/Eval -- our child's p output
    assert_equal [true, [0, 0], :java, :java, false, false], [ok, native, rsa_engine, ec_engine, rsa_installed, ec_installed]
    assert_match(/installing fast_random's RSA into jruby-openssl failed: .*injected failure replacing methods of OpenSSL::PKey::RSA/, rsa_problem)
    assert_match(/installing fast_random's EC into jruby-openssl failed: .*injected failure replacing methods of OpenSSL::PKey::EC/, ec_problem)
    assert_equal [rsa_problem, ec_problem], refused
    assert_nil java_problem
    warnings = err.lines.grep(/\Afast_random: /)
    assert_equal 2, warnings.size, err
    assert_match(/\Afast_random: RSA stays on jruby-openssl's Java code \(installing fast_random's RSA failed: /, warnings[0])
    assert_match(/\Afast_random: EC stays on jruby-openssl's Java code \(installing fast_random's EC failed: /, warnings[1])
  end

  # The jruby-openssl pass runs on the jruby-openssl it names, not JRuby's own.
  def test_the_jruby_openssl_a_pass_names_is_the_one_loaded
    dir = ENV["FAST_RANDOM_JRUBY_OPENSSL"].to_s
    require "openssl"
    expected = dir.empty? ? nil : File.join(File.realpath(dir), "openssl.rb")
    loaded = $LOADED_FEATURES.find { |f| f.end_with?("/openssl.rb") && !f.include?("/openssl/") }
    if expected
      assert_equal expected, File.realpath(loaded)
    else
      assert loaded.to_s.start_with?("uri:classloader:"), "JRuby's bundled jruby-openssl, not #{loaded}"
    end
  end
end
