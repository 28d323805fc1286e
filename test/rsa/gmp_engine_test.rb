# frozen_string_literal: true

# Passes main: GMP through JNA, whatever the CPU features or the JNI library; each JRuby runs on its own JDK.

require_relative "../test_helper"
require_relative "../support/rsa_engine_contract"
require "openssl" # jruby-openssl's BouncyCastle, which bouncycastle-rsa builds on

# The :gmp RSA engine (bouncycastle-rsa's NativeRSAEngine over jnagmp's GMP,
# with blinding and a fault check), driven through its Java classes: the
# engine contract, then which libgmp it loads and how it refuses keys that
# would crash GMP.
class RsaGmpEngineTest < Minitest::Test
  include RsaEngineContract

  Engine = Java::FastrandomRsa::GmpRsaEngine
  GmpLibrary = Java::FastrandomRsa::GmpLibrary
  SYSTEM_GMP = "/usr/lib/x86_64-linux-gnu/libgmp.so.10"

  def self.engine_class
    FastRandom::RSA # loads the vendored jars (JNA, jnagmp, bouncycastle-rsa)
    Engine
  end

  def engine
    @engine ||= self.class.engine_class.new
  end

  def test_loads_and_says_which_gmp
    assert_nil GmpLibrary.unavailable_reason
    assert_match(%r{\A(system GMP \d+\.\d+(\.\d+)? \(/.*libgmp.*\)|bundled GMP \d+\.\d+(\.\d+)? \(.*vendor/gmp/.*libgmp.*\))\z},
                 GmpLibrary.library)
    assert_equal "gmp", engine.name
  end

  def test_prefers_the_system_gmp_when_present
    skip "no #{SYSTEM_GMP} on this machine" unless File.exist?(SYSTEM_GMP)
    skip "FAST_RANDOM_GMP_LIBRARY=#{GmpLibrary.preference} is set" unless GmpLibrary.preference == "auto"
    assert_match(/\Asystem GMP /, GmpLibrary.library)
  end

  # mpz_powm_sec divides by zero on an even modulus, which kills the JVM:
  # such keys (and keys whose primes are not the modulus's) never reach GMP.
  def test_inconsistent_keys_are_refused_before_reaching_gmp
    key = RsaTestKeys.key(1024, 65_537)
    other = RsaTestKeys.key(2048, 65_537)
    [key.with(p: key.p + 1), key.with(q: 0), key.with(p: other.p, q: other.q)].each do |bad|
      assert_raises(RsaEngineContract::RsaEngineException) { engine.private_operation(bad.engine_key, 1) }
    end
    assert_raises(Java::JavaLang::IllegalArgumentException) { engine.public_operation(key.n + 1, key.e, 1) }
  end

  def test_bundled_system_or_a_path_can_be_chosen
    script = <<~RUBY
      require "fast_random"
      require "openssl"
      FastRandom::RSA
      library = Java::FastrandomRsa::GmpLibrary
      puts library.library
      puts Java::FastrandomRsa::GmpRsaEngine.self_test.inspect if library.unavailable_reason.nil?
    RUBY
    choices = { "bundled" => /\Abundled GMP 6\.\d+\.\d+ \(.*vendor\/gmp\/linux-x86-64\/libgmp\.so\)\nnil\z/,
                "/nonexistent/libgmp.so" => /\Aunavailable: .*libgmp .*missing/,
                "sideways" => /\Aunavailable: .*unknown fast_random\.gmp_library value 'sideways'/ }
    choices["system"] = %r{\Asystem GMP 6\.\d+\.\d+ \(#{Regexp.escape(File.dirname(SYSTEM_GMP))}/libgmp\.so[.\d]*\)\nnil\z} if File.exist?(SYSTEM_GMP)
    choices.each do |choice, expected|
      out, err, status = TestHelper.jruby(script, env: { "FAST_RANDOM_GMP_LIBRARY" => choice })
      assert status.success?, err
      assert_match expected, out.strip, choice
    end
  end

  def test_gmp_is_loaded_on_first_use_only
    out, err, status = TestHelper.jruby(<<~RUBY)
      require "fast_random"
      require "openssl"
      loaded = -> { File.read("/proc/self/maps").include?("libgmp") }
      before = loaded.call
      FastRandom::RSA.engine = :java
      p [before, loaded.call, FastRandom::RSA.engine_problem(:gmp), loaded.call]
    RUBY
    assert status.success?, err
    assert_equal "[false, false, nil, true]", out.lines.last.strip
  end
end
