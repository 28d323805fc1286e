# frozen_string_literal: true

# Passes main: each case sets the library itself, so the fallback passes change nothing; each JRuby warns its own way.

require_relative "../test_helper"
require "fileutils"
require "tmpdir"

# What RSA and EC say when they cannot run on libcrypto: nothing, unless
# Ruby runs with -w, where the gem ships no JNI library for the platform
# (simulated by a copy of lib/ without one); a warning when the library the
# user named is missing. Each case in a fresh JRuby.
class EngineWarningsTest < Minitest::Test
  USE_RSA_AND_EC = <<~RUBY
    require "fast_random"; require "openssl"
    rsa = OpenSSL::PKey::RSA.new(1024)
    ec = OpenSSL::PKey::EC.generate("prime256v1")
    ok = rsa.public_key.verify("SHA256", rsa.sign("SHA256", "x"), "x") && ec.verify("SHA256", ec.sign("SHA256", "x"), "x")
    p [ok, FastRandom::RSA.engine_problem(:openssl).to_s.include?("is missing"), FastRandom::EC.engine]
  RUBY

  # [last line of stdout, fast_random's warnings on stderr]
  def run_jruby(code, *ruby_args, env: {})
    out, err, status = TestHelper.jruby(code, *ruby_args, env: env)
    assert status.success?, "jruby failed: #{err}"
    [out.lines.last.to_s.strip, err.lines.grep(/\Afast_random: /).map(&:strip)]
  end

  # Runs +code+ on a copy of lib/ that has no JNI library for this platform,
  # as the gem on macOS or Linux/ARM, with none of the settings a user sets
  # on purpose (FAST_RANDOM_HIDE_CPU_RANDOM, which a test pass sets, says
  # so when the generators seed, as key generation makes them do).
  def without_shipped_library(code, *ruby_args)
    Dir.mktmpdir("fast_random-unshipped") do |dir|
      FileUtils.cp_r(File.join(TestHelper::ROOT, "lib"), dir)
      FileUtils.rm_rf(File.join(dir, "lib/fast_random", File.dirname(FastRandom::Generator::NATIVE_LIBRARY)))
      run_jruby("$LOAD_PATH.unshift(#{File.join(dir, "lib").dump})\n#{code}", *ruby_args,
                env: { "FAST_RANDOM_NATIVE_LIBRARY" => nil, "FAST_RANDOM_HIDE_CPU_RANDOM" => nil,
                       "FAST_RANDOM_HIDE_IFMA" => nil })
    end
  end

  def test_no_library_for_the_platform_is_quiet
    out, warnings = without_shipped_library(USE_RSA_AND_EC)
    assert_equal "[true, true, :java]", out
    assert_empty warnings
  end

  def test_no_library_for_the_platform_is_said_under_verbose
    out, warnings = without_shipped_library(USE_RSA_AND_EC, "-w")
    assert_equal "[true, true, :java]", out
    warnings = warnings.grep(/: (RSA|EC) /) # the generators may say it too, when they seed
    assert_equal 2, warnings.size, warnings.inspect
    assert_match(/\Afast_random: RSA (runs on the gmp engine|stays on jruby-openssl's Java code) \(openssl: native library .* is missing/,
                 warnings.grep(/RSA/).first)
    assert_match(/\Afast_random: EC stays on Java code: .*\(openssl: native library .* is missing\)\z/, warnings.grep(/EC/).first)
  end

  # One warning for the library, whatever needed it (RSA, EC, the
  # generators' seeding); what each of them does about it only under -w.
  def test_a_missing_library_the_user_named_warns_once
    env = { "FAST_RANDOM_NATIVE_LIBRARY" => "/nonexistent/libfast_random.so" }
    out, warnings = run_jruby(USE_RSA_AND_EC, env: env)
    assert_equal "[true, true, :java]", out
    assert_equal ["fast_random: the native library is not used (native library /nonexistent/libfast_random.so is missing): " \
                  "RSA and EC run on the engines FastRandom::RSA.engine and FastRandom::EC.engine name, and the generators " \
                  "seed from the OS alone"], warnings
    _, verbose = run_jruby(USE_RSA_AND_EC, "-w", env: env)
    assert_match(%r{\Afast_random: RSA .*\(openssl: native library /nonexistent/libfast_random.so is missing}, verbose.grep(/\Afast_random: RSA /).first)
    assert_match(%r{\Afast_random: EC stays on .*native library /nonexistent/libfast_random.so is missing\)\z},
                 verbose.grep(/\Afast_random: EC /).first)
  end

  # A setting in ENV that its setter would refuse stops nothing: one warning
  # each, the default stays (before, the require raised ArgumentError and
  # then LoadError, and a bad engine name broke require "openssl").
  def test_settings_that_cannot_apply_warn_and_keep_the_defaults
    env = { "FAST_RANDOM_BACKEND" => "bogus", "FAST_RANDOM_RSA_ENGINE" => "fast", "FAST_RANDOM_EC_ENGINE" => "gmp" }
    out, warnings = run_jruby(<<~RUBY, env: env)
      require "fast_random"; require "openssl"
      key = OpenSSL::PKey::RSA.new(1024)
      p [SecureRandom.uuid.size, FastRandom.backend, key.verify("SHA256", key.sign("SHA256", "x"), "x"),
         FastRandom::RSA.engine == FastRandom::RSA::ENGINES.find { |e| FastRandom::RSA.engine_problem(e).nil? },
         FastRandom::EC.engine == (FastRandom::EC.engine_problem(:openssl) ? :java : :openssl)]
    RUBY
    assert_equal "[36, :drbg, true, true, true]", out
    assert_equal ['fast_random: FAST_RANDOM_BACKEND=bogus is ignored (unknown backend "bogus" (use one of [:drbg, :rdrand])); the default stays',
                  'fast_random: FAST_RANDOM_RSA_ENGINE=fast is ignored (unknown RSA engine "fast" (use one of [:openssl, :gmp, :java])); the default stays',
                  'fast_random: FAST_RANDOM_EC_ENGINE=gmp is ignored (unknown EC engine "gmp" (use one of [:openssl, :java])); the default stays'],
                 warnings.grep(/ is ignored /)
  end

  # On a JRuby older than fast_random supports (README, "Supported
  # versions") nothing is replaced, with one warning that says so, and the
  # API answers as on MRI. Simulated by JRUBY_VERSION (the branch reads
  # nothing else). jruby-openssl's releases: jruby_openssl_releases_test.rb.
  def test_an_unsupported_jruby_leaves_everything_stock
    out, warnings = run_jruby(<<~RUBY)
      Object.send(:remove_const, :JRUBY_VERSION)
      JRUBY_VERSION = "9.4.7.0"
      require "fast_random"
      p [FastRandom.active?, SecureRandom.method(:uuid).owner, FastRandom.stats, FastRandom::AES.stats, FastRandom::RSA.engine]
    RUBY
    assert_equal "[false, Random::Formatter, {}, {}, nil]", out
    assert_equal ["fast_random: JRuby 9.4.7.0 is older than fast_random supports (9.4.8.0 and later); " \
                  "SecureRandom and OpenSSL are left as they are"], warnings
  end
end
