# frozen_string_literal: true

# Passes main, hooks: what is hooked follows what the loaded jruby-openssl has, so each release's own classes count.

require_relative "../test_helper"
require "json"

# fast_random hooks into a jruby-openssl by what it has, not by its version
# number (README, "Supported versions"): a release newer than any the suite
# ran on gets every hook when its classes have what fast_random needs and
# the checks at load pass (test_a_future_release_*); a capability whose
# method is missing, or whose check fails, stays jruby-openssl's whole, with
# one warning naming why, and the others are hooked; only a release below
# the floor is left alone by its number. A newer release is simulated by
# JOpenSSL::VERSION, set before openssl loads the rest of jruby-openssl, on
# the real classes of this JRuby's own jruby-openssl; a missing method by
# removing it, a wrong answer by redefining one in Ruby (fast_random leaves
# Ruby redefinitions in place). Each case in a fresh JRuby.
class JRubyOpenSslReleasesTest < Minitest::Test
  # What is hooked, and whether the calls work and reach fast_random's code
  # (counters read around the report's own calls, so the checks at load
  # count for nothing here).
  REPORT = <<~'RUBY'
    require "fast_random"
    require "openssl"
    require "json"
    require TEST_JAR
    hooks = Java::OrgJrubyExtFastrandom::InstallFaults
    ops = -> { [FastRandom::RSA.stats[:openssl].values.sum, FastRandom::EC.stats[:openssl].values.sum, FastRandom::AES.stats[:jdk]] }
    rsa = OpenSSL::PKey::RSA.new(1024)
    ec = OpenSSL::PKey::EC.generate("prime256v1")
    before = ops.()
    works = [rsa.public_key.verify("SHA256", rsa.sign("SHA256", "m"), "m"), ec.verify("SHA256", ec.sign("SHA256", "m"), "m")]
    cipher = OpenSSL::Cipher.new("aes-256-gcm").encrypt
    cipher.key = "k" * 32
    cipher.iv = "i" * 12
    works << ((cipher.update("m") + cipher.final).bytesize == 1)
    # fast_random's PBKDF2 raises MRI's KDFError for 0 iterations; jruby-openssl's gives a key of zeros.
    works << (OpenSSL::PKCS5.pbkdf2_hmac("p", "s", 0, 4, "sha256") rescue $!.class.name)
    after = ops.()
    replaced = [OpenSSL::PKey::RSA, OpenSSL::PKey::EC, OpenSSL::Cipher, OpenSSL::PKCS5.singleton_class,
                OpenSSL::KDF.singleton_class].to_h { |target| [target.inspect, hooks.replaced(target).to_a] }
    puts JSON.generate(
      "version" => JOpenSSL::VERSION, "works" => works, "native" => before.zip(after).map { |b, a| a > b },
      "engines" => [FastRandom::RSA.engine, FastRandom::EC.engine].map(&:to_s),
      "installed" => [FastRandom::RSA.installed?, FastRandom::EC.installed?, FastRandom::AES.installed?],
      "problems" => [FastRandom::RSA.engine_problem(:openssl), FastRandom::EC.engine_problem(:openssl)],
      "replaced" => replaced, "random" => OpenSSL::Random.method(:random_bytes).owner.to_s,
      "provider" => %w[RSA EC AES].map { |name| Java::FastrandomJca::ProviderHook::Capability.valueOf(name).isActive }
    )
  RUBY

  # The report after +setup+ (Ruby run first), and fast_random's warnings.
  def report(setup = "")
    code = "TEST_JAR = #{TestHelper::TEST_JAR.dump}\n#{setup}\n#{REPORT}"
    out, err, status = TestHelper.jruby(code)
    assert status.success?, "jruby failed: #{err}"
    [JSON.parse(out.lines.last), err.lines.grep(/\Afast_random: /).map(&:strip)]
  end

  # This JRuby's own jruby-openssl, as it is: the suite tested it, so
  # nothing is checked at load, and this is what a newer release must match.
  def baseline
    @@baseline ||= report # rubocop:disable Style/ClassVars -- one child for every case of this process
  end

  def future_version(version = "0.17.0")
    <<~RUBY
      require "jopenssl/version"
      JOpenSSL.send(:remove_const, :VERSION)
      JOpenSSL::VERSION = #{version.dump}
    RUBY
  end

  def test_this_jrubys_own_release_is_hooked_whole
    result, warnings = baseline
    assert_empty warnings
    native = TestHelper.native_library_expected?
    assert_equal [[true, true, true, "OpenSSL::KDF::KDFError"], [true, true, true], [nil, nil]],
                 result.values_at("works", "installed", "problems")
    assert_equal [native, native, true], result["native"]
    assert_equal [true, true, true], result["provider"]
    assert_equal ["update"], result["replaced"]["OpenSSL::Cipher"]
    assert_equal %w[pbkdf2_hmac pbkdf2_hmac_sha1], result["replaced"]["#<Class:OpenSSL::PKCS5>"]
    assert_includes result["replaced"]["OpenSSL::PKey::EC"], "dsa_sign_asn1"
  end

  # Hooked exactly as the release it really is, after the checks at load
  # (which run because the suite never ran on a 0.17.0), with no warning.
  def test_a_future_release_with_what_fast_random_needs_is_hooked_with_no_warning
    result, warnings = report(future_version)
    assert_empty warnings
    assert_equal "0.17.0", result["version"]
    assert_equal baseline[0].except("version"), result.except("version")
  end

  # A method EC needs, and one PBKDF2 needs, gone: each of those stays
  # jruby-openssl's, whole (none of its methods replaced, EC's provider
  # services off), with one warning each naming the method; RSA, AES and
  # OpenSSL::Random are hooked as ever.
  def test_a_release_without_a_method_fast_random_needs_leaves_that_capability_stock
    result, warnings = report(<<~RUBY)
      #{future_version}
      require "openssl"
      OpenSSL::PKey::EC.send(:remove_method, :dsa_sign_asn1)
      OpenSSL::KDF.singleton_class.send(:remove_method, :pbkdf2_hmac)
    RUBY
    ec_missing = "jruby-openssl 0.17.0 has no OpenSSL::PKey::EC#dsa_sign_asn1, which fast_random's EC needs"
    assert_equal ["fast_random: EC stays on jruby-openssl's Java code: #{ec_missing}",
                  "fast_random: PBKDF2 stays on jruby-openssl's Java code: jruby-openssl 0.17.0 has no OpenSSL::KDF.pbkdf2_hmac, " \
                  "which fast_random's PBKDF2 needs"], warnings
    expected = baseline[0].merge(
      "engines" => [baseline[0]["engines"][0], "java"], "installed" => [true, false, true],
      "problems" => [nil, ec_missing], "provider" => [true, false, true],
      "native" => [baseline[0]["native"][0], false, true],
      "works" => [true, true, true, "\x00" * 4],
      "replaced" => baseline[0]["replaced"].merge("OpenSSL::PKey::EC" => [], "#<Class:OpenSSL::PKCS5>" => [],
                                                  "#<Class:OpenSSL::KDF>" => [])
    )
    assert_equal expected.except("version"), result.except("version")
  end

  # A release whose RSA gives a wrong answer (here a Ruby redefinition of
  # private_encrypt, which fast_random leaves in place) fails RSA's check at
  # load: RSA is taken out again whole (its provider services and every
  # method it had replaced), with one warning saying what failed.
  def test_a_release_failing_a_check_at_load_leaves_that_capability_stock
    result, warnings = report(<<~RUBY)
      #{future_version}
      require "openssl"
      OpenSSL::PKey::RSA.class_eval do
        alias_method :stock_private_encrypt, :private_encrypt
        def private_encrypt(*args) = stock_private_encrypt(*args).reverse
      end
    RUBY
    problem = "jruby-openssl 0.17.0, a release fast_random was not tested on, failed fast_random's RSA check at load: " \
              "RSA#private_encrypt gave another answer than BouncyCastle"
    assert_equal ["fast_random: RSA stays on jruby-openssl's Java code: #{problem}"], warnings
    expected = baseline[0].merge(
      "engines" => ["java", baseline[0]["engines"][1]], "installed" => [false, true, true],
      "problems" => [problem, nil], "provider" => [false, true, true],
      "native" => [false, *baseline[0]["native"].drop(1)],
      "replaced" => baseline[0]["replaced"].merge("OpenSSL::PKey::RSA" => [])
    )
    assert_equal expected.except("version"), result.except("version")
  end

  # Ed25519 keys (OpenSSL::PKey::PKey, from jruby-openssl 0.16.1) go
  # through the provider fast_random puts into jruby-openssl, which hands
  # them to BouncyCastle untouched: the same signatures (Ed25519's are
  # deterministic), raw keys, PEM and verdicts as stock, and X25519's and
  # #derive's errors as stock's; nothing counted as fast_random's. On older
  # releases the same NoMethodErrors, so the comparison holds everywhere.
  ED25519 = <<~'RUBY'
    require "openssl"
    require "json"
    counted = -> { defined?(FastRandom::RSA) ? [FastRandom::RSA.stats, FastRandom::EC.stats].to_s : "" }
    before = counted.()
    answer = lambda do |&block|
      value = block.()
      value.is_a?(String) && value.encoding == Encoding::BINARY ? value.unpack1("H*") : value
    rescue StandardError, NotImplementedError => e
      [e.class.name, e.message]
    end
    key = OpenSSL::PKey.new_raw_private_key("ED25519", "\x01".b * 32) rescue nil
    public_key = OpenSSL::PKey.read(key.public_to_pem) rescue nil
    signature = key.sign(nil, "message") rescue nil
    generated = OpenSSL::PKey.generate_key("ED25519") rescue nil
    results = [
      answer.() { OpenSSL::PKey.new_raw_private_key("ED25519", "\x01".b * 32).class.name },
      answer.() { key.sign(nil, "message") }, answer.() { key.raw_public_key }, answer.() { public_key.oid },
      answer.() { public_key.verify(nil, signature, "message") }, answer.() { public_key.verify(nil, signature, "massage") },
      answer.() { OpenSSL::PKey.read(key.private_to_pem).raw_private_key }, answer.() { key.public_to_der },
      answer.() { generated.verify(nil, generated.sign(nil, "m"), "m") }, answer.() { key.derive(public_key) },
      answer.() { OpenSSL::PKey.generate_key("X25519") }, answer.() { OpenSSL::PKey.new_raw_private_key("X25519", "\x01".b * 32) }
    ]
    puts JSON.generate("results" => results, "counted" => before == counted.())
  RUBY

  def test_ed25519_and_x25519_keys_are_served_as_stock_serves_them
    answers = [false, true].map do |with_fast_random|
      out, err, status = TestHelper.jruby((with_fast_random ? "require 'fast_random'\n" : "") + ED25519)
      assert status.success?, "jruby failed: #{err}"
      assert_empty err.lines.grep(/\Afast_random: /)
      JSON.parse(out.lines.last)
    end
    stock, ours = answers
    assert_equal stock["results"], ours["results"]
    assert ours["counted"], "no RSA or EC operation counted as fast_random's"
    return if TestHelper.older_jruby_openssl? || JOpenSSL::VERSION == "0.16.0"

    assert_equal ["OpenSSL::PKey::PKey", true, false], ours["results"].values_at(0, 4, 5)
  end

  # Below the floor the number decides: nothing of jruby-openssl is touched,
  # with one warning; SecureRandom is fast_random's all the same.
  def test_a_release_older_than_the_floor_stays_stock
    result, warnings = report(future_version("0.14.2"))
    assert_equal ["fast_random: jruby-openssl 0.14.2 is older than fast_random supports (0.15.0 and later): " \
                  "RSA, EC, AES, PBKDF2 and OpenSSL::Random stay jruby-openssl's own"], warnings
    assert_equal [[true, true, true, "\x00" * 4], [false, false, false], %w[java java], "#<Class:OpenSSL::Random>",
                  [false, false, false], [false, false, false]],
                 result.values_at("works", "native", "engines", "random", "installed", "provider")
    assert_equal [[]] * 5, result["replaced"].values
    assert_match(/older than fast_random supports/, result["problems"][0])
  end
end
