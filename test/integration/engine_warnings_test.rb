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

  def test_a_missing_library_the_user_named_warns
    out, warnings = run_jruby(USE_RSA_AND_EC, env: { "FAST_RANDOM_NATIVE_LIBRARY" => "/nonexistent/libfast_random.so" })
    assert_equal "[true, true, :java]", out
    warnings = warnings.grep(/: (RSA|EC) /) # the generators say it too
    assert_equal 2, warnings.size, warnings.inspect
    assert_match(%r{\Afast_random: RSA .*\(openssl: native library /nonexistent/libfast_random.so is missing}, warnings.grep(/RSA/).first)
    assert_match(%r{\Afast_random: EC stays on .*native library /nonexistent/libfast_random.so is missing\)\z},
                 warnings.grep(/EC/).first)
  end
end
