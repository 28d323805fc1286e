# frozen_string_literal: true

# Passes main, 9.4-fallback: PBKDF2 on each JRuby's jruby-openssl, and where the library is missing (its digests are the JDK's).

require_relative "../test_helper"
require_relative "../support/mri_kdf"
require "openssl"
require "json"
require "tempfile"

# PBKDF2 on fast_random (OpenSSL::PKCS5.pbkdf2_hmac, pbkdf2_hmac_sha1,
# OpenSSL::KDF.pbkdf2_hmac; fastrandom.kdf.Pbkdf2 on the JDK's digests):
# RFC 6070's and RFC 7914's vectors; MRI's bytes and stock jruby-openssl's
# for random inputs, every digest, with names and Digest objects; stock's
# answers for calls it does not take, and MRI's errors where stock gives
# none; a JDK digest that fails gives stock's key, with one warning, and
# the next call is fast_random's again.
class Pbkdf2Test < Minitest::Test
  Pbkdf2 = Java::FastrandomKdf::Pbkdf2

  # RFC 6070 (PBKDF2-HMAC-SHA1) and RFC 7914, section 11 (PBKDF2-HMAC-SHA256):
  # [password, salt, iterations, key in hex]. RFC 6070's 16,777,216-iteration
  # case is left out: seconds of CPU that prove nothing the 4,096 ones do not.
  RFC_6070 = [
    ["password", "salt", 1, "0c60c80f961f0e71f3a9b524af6012062fe037a6"],
    ["password", "salt", 2, "ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957"],
    ["password", "salt", 4096, "4b007901b765489abead49d926f721d065a429c1"],
    ["passwordPASSWORDpassword", "saltSALTsaltSALTsaltSALTsaltSALTsalt", 4096,
     "3d2eec4fe41c849b80c8d83662c0e44a8b291a964cf2f07038"],
    ["pass\0word", "sa\0lt", 4096, "56fa6aa75548099dcc37d7f03425e0c3"],
  ].freeze
  RFC_7914 = [
    ["passwd", "salt", 1, "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc" \
                          "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"],
    ["Password", "NaCl", 80_000, "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56" \
                                 "a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d"],
  ].freeze

  def hex(bytes) = bytes.unpack1("H*")

  # Derivations fast_random did while the block ran.
  def derivations
    before = Pbkdf2.derivations
    yield
    Pbkdf2.derivations - before
  end

  def test_rfc_6070_and_rfc_7914_vectors
    taken = derivations do
      RFC_6070.each do |password, salt, iterations, expected|
        assert_equal expected, hex(OpenSSL::PKCS5.pbkdf2_hmac_sha1(password, salt, iterations, expected.size / 2))
        assert_equal expected, hex(OpenSSL::PKCS5.pbkdf2_hmac(password, salt, iterations, expected.size / 2, "sha1"))
      end
      RFC_7914.each do |password, salt, iterations, expected|
        key = OpenSSL::KDF.pbkdf2_hmac(password, salt: salt, iterations: iterations, length: 64, hash: "SHA256")
        assert_equal expected, hex(key)
        assert_equal Encoding::BINARY, key.encoding
      end
    end
    assert_equal 2 * RFC_6070.size + RFC_7914.size, taken, "every vector derived by fast_random"
  end

  # Random passwords (binary, any length, some beyond a block), salts,
  # iteration counts, lengths (one byte to several blocks) and every digest,
  # by name and as a Digest, through all three methods.
  def random_cases
    random = Random.new(2026_11_26)
    digests = %w[sha1 SHA224 sha-256 SHA384 sha512 SHA1 sha256]
    Array.new(70) do |i|
      call = %w[pkcs5 kdf kdf_digest pkcs5_sha1][i % 4]
      digest = call == "pkcs5_sha1" ? "sha1" : digests[i % digests.size]
      digest = digest.delete("-") if call == "kdf_digest"
      { "call" => call, "pass" => hex(random.bytes(random.rand(0..150))), "salt" => hex(random.bytes(random.rand(0..40))),
        "iter" => random.rand(1..40), "len" => random.rand(1..200), "digest" => digest }
    end
  end

  # Calls fast_random leaves to stock (other digests, conversions, numbers
  # out of its range), and the bad counts and lengths where it raises MRI's
  # error, stock giving zeros or a Java exception.
  STOCK_CASES = [
    { "call" => "pkcs5", "pass" => "70", "salt" => "73", "iter" => 3, "len" => 20, "digest" => "md5" },
    { "call" => "kdf", "pass" => "70", "salt" => "73", "iter" => 3, "len" => 0, "digest" => "sha256" },
    { "call" => "pkcs5", "pass" => "70", "salt" => "73", "iter" => 2**31, "len" => 10, "digest" => "sha256" },
    { "call" => "pkcs5", "pass" => "70", "salt" => "73", "iter" => 1, "len" => 10, "digest" => "nosuch" },
  ].freeze
  MRI_ERROR_CASES = [
    { "call" => "kdf", "pass" => "70", "salt" => "73", "iter" => 0, "len" => 10, "digest" => "sha256" },
    { "call" => "pkcs5", "pass" => "70", "salt" => "73", "iter" => -1, "len" => 10, "digest" => "sha256" },
    { "call" => "pkcs5_sha1", "pass" => "70", "salt" => "73", "iter" => 0, "len" => 10, "digest" => "sha1" },
    { "call" => "kdf", "pass" => "70", "salt" => "73", "iter" => 1, "len" => -1, "digest" => "sha256" },
  ].freeze
  # pbkdf2_hmac_sha1 with a password beyond Latin-1: stock reads characters
  # and keeps their low bytes; MRI and fast_random derive from the bytes.
  UTF8_CASES = [
    { "call" => "pkcs5_sha1", "pass_utf8" => "pässwörd ✓ 日本", "salt" => "73616c74", "iter" => 5, "len" => 32, "digest" => "sha1" },
  ].freeze

  # What stock JRuby (jruby-openssl, no fast_random) computes for the cases.
  def stock_outcomes(cases)
    Tempfile.create(["kdf-cases", ".json"]) do |file|
      file.write(JSON.generate(cases))
      file.close
      out, err, status = TestHelper.jruby(<<~RUBY)
        require "json"
        require #{File.join(TestHelper::ROOT, "test/support/mri_kdf.rb").dump}
        puts JSON.generate(KdfCases.outcomes(JSON.parse(File.read(#{file.path.dump}))))
      RUBY
      assert status.success?, err
      JSON.parse(out.lines.last)
    end
  end

  def test_keys_are_mri_s_and_stock_s_for_random_inputs_and_stock_s_for_calls_not_taken
    cases = random_cases + STOCK_CASES
    ours = nil
    taken = derivations { ours = KdfCases.outcomes(cases) }
    assert_equal random_cases.size, taken, "fast_random derives every well-formed case and none of the others"
    mri = KdfCases.run("derive", JSON.generate(cases))
    stock = stock_outcomes(cases)
    cases.each_with_index do |c, i|
      assert_equal stock[i], ours[i], "stock, #{c}"
      assert_equal mri[i], ours[i], "MRI, #{c}" if i < random_cases.size
      assert_equal "ASCII-8BIT", ours[i][1], c.to_s if i < random_cases.size
    end
  end

  def test_bad_counts_and_lengths_raise_mri_s_errors
    mri = KdfCases.run("derive", JSON.generate(MRI_ERROR_CASES))
    ours = nil
    assert_equal 0, derivations { ours = KdfCases.outcomes(MRI_ERROR_CASES) }
    MRI_ERROR_CASES.each_with_index do |c, i|
      assert_equal mri[i][0], ours[i][0], "the class MRI raises, #{c}"
      assert_match(/\APKCS5_PBKDF2_HMAC|negative string size/, ours[i][1], c.to_s)
    end
  end

  def test_pbkdf2_hmac_sha1_derives_from_a_password_s_bytes_as_mri
    mri = KdfCases.run("derive", JSON.generate(UTF8_CASES))
    ours = KdfCases.outcomes(UTF8_CASES)
    stock = stock_outcomes(UTF8_CASES)
    assert_equal mri, ours
    refute_equal stock, ours, "stock keeps only each character's low byte"
  end

  # Converted arguments (to_str, Floats) are stock's to convert: the result
  # is stock's, not derived here.
  def test_arguments_needing_conversion_are_stock_s
    password = Object.new
    def password.to_str = "password"
    expected = hex(OpenSSL::PKCS5.pbkdf2_hmac("password", "salt", 2, 20, "sha1"))
    assert_equal 0, derivations {
      assert_equal expected, hex(OpenSSL::PKCS5.pbkdf2_hmac(password, "salt", 2, 20, "sha1"))
      assert_equal expected, hex(OpenSSL::PKCS5.pbkdf2_hmac("password", "salt", 2.0, 20, "sha1"))
    }
    assert_raises(TypeError) { OpenSSL::PKCS5.pbkdf2_hmac(nil, "salt", 2, 20, "sha1") }
    assert_raises(ArgumentError) { OpenSSL::PKCS5.pbkdf2_hmac("password", "salt", 2, 20) }
  end

  # Keywords missing or unknown: MRI's ArgumentError and words (stock lets a
  # Java NullPointerException through for a missing one).
  def test_keyword_errors_are_mri_s
    missing = assert_raises(ArgumentError) { OpenSSL::KDF.pbkdf2_hmac("password", salt: "salt", iterations: 2) }
    assert_equal "missing keywords: :length, :hash", missing.message
    missing = assert_raises(ArgumentError) { OpenSSL::KDF.pbkdf2_hmac("p", salt: "s", iterations: 2, length: 20) }
    assert_equal "missing keyword: :hash", missing.message
    unknown = assert_raises(ArgumentError) do
      OpenSSL::KDF.pbkdf2_hmac("p", salt: "s", iterations: 2, length: 20, hash: "sha1", extra: 1)
    end
    assert_equal "unknown keyword: :extra", unknown.message
  end

  def teardown
    Pbkdf2.setDigestSource(nil)
  end

  # A JDK digest that fails (a JCE call that throws, put in through
  # Pbkdf2.setDigestSource): stock derives the key, one warning says so,
  # and once the digest works again the next call is fast_random's.
  def test_a_failing_jdk_digest_gives_stock_s_key_and_the_next_call_is_ours
    out, err, status = TestHelper.jruby(<<~RUBY)
      require "fast_random"
      require "openssl"
      pbkdf2 = Java::FastrandomKdf::Pbkdf2
      derive = -> { OpenSSL::KDF.pbkdf2_hmac("passwd", salt: "salt", iterations: 1, length: 64, hash: "sha256").unpack1("H*") }
      results = []
      pbkdf2.setDigestSource(->(name) { raise java.security.ProviderException.new("no \#{name} today") })
      2.times do
        before = pbkdf2.derivations
        results << [derive.(), pbkdf2.derivations - before]
      end
      pbkdf2.setDigestSource(nil)
      before = pbkdf2.derivations
      results << [derive.(), pbkdf2.derivations - before]
      p results
    RUBY
    assert status.success?, err
    expected = RFC_7914.first.last
    assert_equal [[expected, 0], [expected, 0], [expected, 1]], eval(out.lines.last) # rubocop:disable Security/Eval -- our own child's p output
    warnings = err.lines.grep(/PBKDF2/)
    assert_equal 1, warnings.size, err
    assert_match(/PBKDF2 failed on the JDK's digests \(.*no SHA-256 today.*\); such derivations run on jruby-openssl's code/,
                 warnings.first)
  end
end
