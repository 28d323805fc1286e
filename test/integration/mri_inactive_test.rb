# frozen_string_literal: true

# Passes 10.1: MRI's processes, the same whatever JRuby runs the test; the one JRuby case runs plain Ruby code.

require_relative "../test_helper"
require_relative "../support/packaging"

# On MRI (Debian's ruby), `require "fast_random"` must not break an
# application that shares its Gemfile and initializers with JRuby: it changes
# nothing (SecureRandom, OpenSSL::Random, OpenSSL::PKey::RSA and ::EC stay
# MRI's own), FastRandom.active? is false, and the rest of the API says that
# fast_random is not in use (lib/fast_random/inactive.rb).
class MriInactiveTest < Minitest::Test
  include Packaging::EndToEnd

  REPORT = <<~'RUBY'
    require "securerandom"
    require "openssl"
    stock = [SecureRandom.method(:uuid).owner, SecureRandom.method(:hex).owner,
             OpenSSL::Random.method(:random_bytes).owner, OpenSSL::PKey::RSA.instance_method(:sign).owner,
             OpenSSL::PKey::EC.instance_method(:dsa_sign_asn1).owner].map(&:to_s)
    require "fast_random"
    require "json"
    errors = [-> { FastRandom.backend = :drbg }, -> { FastRandom::RSA.engine = :gmp },
              -> { FastRandom::EC.engine = :openssl }, -> { FastRandom::AES.install }].map do |call|
      call.call
    rescue FastRandom::Error => e
      [e.class.name, e.message]
    end
    puts JSON.generate(
      "engine" => RUBY_ENGINE, "version" => FastRandom::VERSION, "active" => FastRandom.active?,
      "feature" => $LOADED_FEATURES.find { |path| path.end_with?("/fast_random.rb") },
      "unchanged" => stock == [SecureRandom.method(:uuid).owner, SecureRandom.method(:hex).owner,
                               OpenSSL::Random.method(:random_bytes).owner,
                               OpenSSL::PKey::RSA.instance_method(:sign).owner,
                               OpenSSL::PKey::EC.instance_method(:dsa_sign_asn1).owner].map(&:to_s),
      "loaded_java" => $LOADED_FEATURES.any? { |path| path.end_with?(".jar") },
      "uuid" => SecureRandom.uuid, "backend" => FastRandom.backend, "stats" => FastRandom.stats,
      "rdrand" => FastRandom.rdrand_available?, "problem" => FastRandom.rdrand_problem,
      "reseed" => FastRandom.reseed!, "rsa" => [FastRandom::RSA.engine, FastRandom::RSA.installed?, FastRandom::RSA.stats],
      "rsa_problem" => FastRandom::RSA.engine_problem(:gmp), "errors" => errors,
      "ec" => [FastRandom::EC.engine, FastRandom::EC.installed?, FastRandom::EC.stats, FastRandom::EC.engine_problem(:openssl)],
      "aes" => [FastRandom::AES.installed?, FastRandom::AES.stats],
      "uninstall" => [FastRandom::RSA.uninstall, FastRandom::EC.uninstall, FastRandom::AES.uninstall]
    )
  RUBY

  def assert_inactive(result)
    assert_equal "ruby", result["engine"]
    assert_equal [FastRandom::VERSION, false, true, false], result.values_at("version", "active", "unchanged", "loaded_java")
    assert_match TestHelper::UUID_V4, result["uuid"]
    assert_equal [nil, {}, false, nil], result.values_at("backend", "stats", "rdrand", "reseed")
    assert_match(/\Afast_random only works on JRuby \(this is ruby 3\.\d+\.\d+\)/, result["problem"])
    assert_equal [[nil, false, {}], result["problem"]], result.values_at("rsa", "rsa_problem")
    assert_equal [nil, false, {}, result["problem"]], result["ec"]
    assert_equal [[false, {}], [nil, nil, nil]], result.values_at("aes", "uninstall")
    assert_equal [["FastRandom::BackendUnavailableError", "cannot use backend :drbg: #{result['problem']}"],
                  ["FastRandom::EngineUnavailableError", "cannot use RSA engine :gmp: #{result['problem']}"],
                  ["FastRandom::EngineUnavailableError", "cannot use EC engine :openssl: #{result['problem']}"],
                  ["FastRandom::EngineUnavailableError", "cannot install AES: #{result['problem']}"]],
                 result["errors"]
  end

  def test_require_from_the_checkout_changes_nothing
    result, err = Packaging.report([*Packaging.mri_command, "-I", File.join(Packaging::ROOT, "lib")], REPORT, dir: @dir)
    assert_equal File.join(Packaging::ROOT, "lib/fast_random.rb"), result["feature"]
    assert_inactive(result)
    assert_empty err
  end

  def test_the_plain_gem_installed_offline_changes_nothing
    _, plain_gem = Packaging.gems
    home = File.join(@dir, "gems")
    Packaging.install(Packaging.mri_command, plain_gem, home)
    result, err = Packaging.report(Packaging.mri_command, REPORT, dir: @dir, env: { "GEM_HOME" => home, "GEM_PATH" => home })
    assert_equal File.join(home, "gems/fast_random-#{FastRandom::VERSION}/lib/fast_random.rb"), result["feature"]
    assert_inactive(result)
    assert_empty err
  end

  # The plain gem on JRuby (say, from a lockfile made on MRI alone) has no
  # jar: require says what to install instead of failing on a missing file.
  def test_the_plain_gem_on_jruby_says_which_gem_jruby_needs
    lib = File.join(@dir, "lib")
    FileUtils.mkdir_p(File.join(lib, "fast_random"))
    Dir.chdir(File.join(Packaging::ROOT, "lib")) do
      Dir["**/*.rb"].each { |file| FileUtils.cp(file, File.join(lib, file)) }
    end
    out, err, status = Packaging.run([*Packaging.jruby_command, "-I", lib, "-e", 'require "fast_random"'], dir: @dir)
    refute status.success?, out
    assert_match(/LoadError.*fast_random #{Regexp.escape(FastRandom::VERSION)} has no fast_random\.jar here/, err)
    assert_match(/fast_random-#{Regexp.escape(FastRandom::VERSION)}-java gem/, err)
  end
end
