# frozen_string_literal: true

# Passes main, 9.4-fallback, hooks: PBKDF2 on each JRuby's jruby-openssl, and where the library is missing (its digests are the JDK's).

require_relative "../test_helper"
require "open3"
require_relative "../support/mri_kdf"
require "openssl"
require "json"
require "tempfile"

# PBKDF2 on fast_random (OpenSSL::PKCS5.pbkdf2_hmac, pbkdf2_hmac_sha1,
# OpenSSL::KDF.pbkdf2_hmac; fastrandom.kdf.Pbkdf2 on the JDK's digests):
# RFC 6070's and RFC 7914's vectors; MRI's bytes and stock jruby-openssl's
# for random inputs, every digest, with names and Digest objects; stock's
# keys for the digests fast_random leaves to it; MRI's conversions, keys
# and errors (class and message, in MRI's order) for every other corner,
# against MRI's answers written down here and a live MRI; a JDK digest
# that fails (the test build's Pbkdf2Faults) gives stock's key, with one
# warning, and the next call is fast_random's again.
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

  # Digests fast_random leaves to stock (its keys are MRI's too), by name
  # and as a Digest.
  STOCK_CASES = [
    { "call" => "pkcs5", "pass" => "70", "salt" => "73", "iter" => 3, "len" => 20, "digest" => "md5" },
    { "call" => "kdf", "pass" => "70", "salt" => "73", "iter" => 2, "len" => 40, "digest" => "ripemd160" },
    { "call" => "kdf_digest", "pass" => "70", "salt" => "73", "iter" => 2, "len" => 17, "digest" => "md5" },
  ].freeze
  # pbkdf2_hmac_sha1 with a password beyond Latin-1: stock reads characters
  # and keeps their low bytes; MRI and fast_random derive from the bytes.
  UTF8_CASES = [
    { "call" => "pkcs5_sha1", "pass_utf8" => "pässwörd ✓ 日本", "salt" => "73616c74", "iter" => 5, "len" => 32, "digest" => "sha1" },
  ].freeze

  class << self
    # Stock's outcome of each case the tests compare with stock's.
    attr_accessor :stock_by_case
  end

  # What stock JRuby (jruby-openssl, no fast_random) computes for the cases:
  # all of them in one child JRuby, seconds to start, the first time.
  def stock_outcomes(cases)
    self.class.stock_by_case ||= begin
      all = random_cases + STOCK_CASES + UTF8_CASES
      Tempfile.create(["kdf-cases", ".json"]) do |file|
        file.write(JSON.generate(all))
        file.close
        out, err, status = TestHelper.jruby(<<~RUBY)
          require "json"
          require #{File.join(TestHelper::ROOT, "test/support/mri_kdf.rb").dump}
          puts JSON.generate(KdfCases.outcomes(JSON.parse(File.read(#{file.path.dump}))))
        RUBY
        assert status.success?, err
        all.zip(JSON.parse(out.lines.last)).to_h
      end
    end
    cases.map { |c| self.class.stock_by_case.fetch(c) }
  end

  def test_keys_are_mri_s_and_stock_s_for_random_inputs_and_other_digests
    cases = random_cases + STOCK_CASES
    ours = nil
    taken = derivations { ours = KdfCases.outcomes(cases) }
    assert_equal random_cases.size, taken, "fast_random derives every SHA-1 and SHA-2 case, stock the others"
    mri = KdfCases.run("derive", JSON.generate(cases))
    stock = stock_outcomes(cases)
    cases.each_with_index do |c, i|
      assert_equal stock[i], ours[i], "stock, #{c}"
      assert_equal mri[i], ours[i], "MRI, #{c}"
      assert_equal "ASCII-8BIT", ours[i][1], c.to_s
    end
  end

  # OpenSSL 3's own names for the digests, their aliases and OIDs, as MRI
  # reads them: the same keys as MRI's, or MRI's error (a SHAKE is refused
  # by PBKDF2; "SHA512/256", which jruby-openssl alone reads, is no name);
  # BLAKE2 and MD5-SHA1, which neither the JDK nor jruby-openssl names, too.
  NAME_CASES = (%w[SHA2-256 sha2-512 SHA512-256 sha512-224 SHA-512/256 RSA-SHA256 sha256WithRSAEncryption ssl3-sha1
                   RSA-SHA1-2 SHA2-224 sha384 2.16.840.1.101.3.4.2.1 2.16.840.1.101.3.4.2.3 1.3.14.3.2.26
                   2.16.840.1.101.3.4.2.6 2.16.840.1.101.3.4.2.8 RSA-SHA3-512 SHAKE128 shake-256 SHA512/256
                   SHA512/224 blake2b512 BLAKE2S-256 1.3.6.1.4.1.1722.12.2.1.16 MD5-SHA1].flat_map do |name|
    [{ "call" => "kdf", "pass" => "7077", "salt" => "73616c74", "iter" => 2, "len" => 40, "digest" => name },
     { "call" => "pkcs5", "pass" => "7077", "salt" => "73616c74", "iter" => 3, "len" => 24, "digest" => name }]
  end + [{ "call" => "kdf", "pass" => "7077", "salt" => "73", "iter" => 1, "len" => 0, "digest" => "SHAKE256" },
         { "call" => "kdf", "pass" => "7077", "salt" => "73", "iter" => 0, "len" => 4, "digest" => "SHAKE128" }]).freeze

  def test_openssl_s_names_and_oids_of_a_digest_are_mri_s
    mri = KdfCases.run("derive", JSON.generate(NAME_CASES))
    ours = KdfCases.outcomes(NAME_CASES)
    NAME_CASES.each_with_index { |c, i| assert_equal mri[i], ours[i], c.to_s }
  end

  # An OpenSSL::Digest counts by the algorithm it was made with, as in MRI
  # and stock, not by what a subclass's #name says.
  def test_a_digest_is_its_algorithm_whatever_its_name_method_says
    code = <<~'RUBY'
      require "openssl"
      class NamedSha1 < OpenSSL::Digest
        def name = "SHA1"
      end
      print OpenSSL::KDF.pbkdf2_hmac("pw", salt: "salt", iterations: 2, length: 32, hash: NamedSha1.new("SHA256")).unpack1("H*")
    RUBY
    out, err, status = Open3.capture3(ENV.fetch("FAST_RANDOM_MRI") { TestHelper.executable("ruby") }, "-e", code)
    assert status.success?, err
    assert_equal OpenSSL::KDF.pbkdf2_hmac("pw", salt: "salt", iterations: 2, length: 32, hash: "SHA256").unpack1("H*"), out, "MRI"
    assert_equal out, eval(code.sub("print ", "")) # rubocop:disable Security/Eval -- the same code, here
  end

  def test_pbkdf2_hmac_sha1_derives_from_a_password_s_bytes_as_mri
    mri = KdfCases.run("derive", JSON.generate(UTF8_CASES))
    ours = KdfCases.outcomes(UTF8_CASES)
    stock = stock_outcomes(UTF8_CASES)
    assert_equal mri, ours
    refute_equal stock, ours, "stock keeps only each character's low byte"
  end

  # The corners, as Ruby that MRI runs too (test_corner_*): the
  # outcome of each call, a key [encoding, bytesize, its last 20 bytes in
  # hex] or an error [class, message].
  CORNER_HELPERS = <<~'RUBY'
    PASS = "pässwörd€" # UTF-8, beyond Latin-1
    TO_STR = Object.new.tap { |o| def o.to_str = "password" }
    TO_INT = Object.new.tap { |o| def o.to_int = 2 }
    TO_INT_STRING = Object.new.tap { |o| def o.to_int = "2" }

    def self.outcome(code)
      key = eval(code) # rubocop:disable Security/Eval -- the test's own calls, the same text on MRI
      [key.encoding.name, key.bytesize, key.byteslice([key.bytesize - 20, 0].max, 20).unpack1("H*")]
    rescue StandardError => e
      [e.class.name, e.message]
    end
  RUBY
  Corners = Module.new.tap { |m| m.module_eval(CORNER_HELPERS) }

  KEY = ->(bytesize, tail) { ["ASCII-8BIT", bytesize, tail] }
  KDF_ERROR = "OpenSSL::KDF::KDFError"
  INVALID_COUNT = [KDF_ERROR, "PKCS5_PBKDF2_HMAC: invalid iteration count"].freeze
  BAD_COUNT = [KDF_ERROR, "PKCS5_PBKDF2_HMAC"].freeze
  NEGATIVE = ["ArgumentError", "negative string size (or size too big)"].freeze
  # What MRI 3.1.2 (openssl gem 3.0.1, OpenSSL 3.0) gives for each call, in
  # its words (`int'; Ruby 3.4 writes 'int'). The old code answered the
  # first group with stock's zeros, "" or Java exceptions, the second with
  # stock's key (the low byte of each character), the rest with stock's
  # conversions, messages and order.
  CORNERS = {
    # Iteration counts below 1 whatever the length, and a negative length first.
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1("p", "s", 0, 65_537)' => INVALID_COUNT,
    'OpenSSL::PKCS5.pbkdf2_hmac("p", "s", -1, 65_537, "sha256")' => BAD_COUNT,
    'OpenSSL::KDF.pbkdf2_hmac("p", salt: "s", iterations: 0, length: 100_000, hash: "sha512")' => INVALID_COUNT,
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1("p", "s", 0, 0)' => INVALID_COUNT,
    'OpenSSL::KDF.pbkdf2_hmac("p", salt: "s", iterations: -1, length: 0, hash: "sha256")' => BAD_COUNT,
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1("p", "s", 0, -1)' => NEGATIVE,
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1("p", "s", -5, -1)' => NEGATIVE,
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1("p", "s", -2**31, 20)' => BAD_COUNT,
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1("p", "s", -2**31 - 1, 20)' =>
      ["RangeError", "integer -2147483649 too small to convert to `int'"],
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1("p", "s", 2**31, 20)' =>
      ["RangeError", "integer 2147483648 too big to convert to `int'"],
    'OpenSSL::PKCS5.pbkdf2_hmac("p", "s", 0, 20, "md5")' => INVALID_COUNT,
    # A password's bytes, whatever the other arguments' types and the length.
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1(PASS, "salt", 2, 20)' => KEY.(20, "0e6c2f5e19a5e09f45219031b4d93e8952cc97a3"),
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1(PASS, "salt", 2.0, 20)' => KEY.(20, "0e6c2f5e19a5e09f45219031b4d93e8952cc97a3"),
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1(PASS, "salt", 2, 65_537)' => KEY.(65_537, "87345213ee9e9c17fa2a2163d273d315a370efef"),
    'OpenSSL::KDF.pbkdf2_hmac("p", salt: "s", iterations: 1, length: 70_000, hash: "sha256")' =>
      KEY.(70_000, "0b0be05041437ebce150cb3745935fee4a723c4f"),
    # Conversions: to_str, Floats truncated, to_int, and what each rejects.
    'OpenSSL::PKCS5.pbkdf2_hmac(TO_STR, "salt", 2, 20, "sha1")' => KEY.(20, "ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957"),
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1("p", "s", 2.9, 20)' => KEY.(20, "ea4b66d4030c711fa7c569b86856f404c929ee0a"),
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1("p", "s", TO_INT, 20.5)' => KEY.(20, "ea4b66d4030c711fa7c569b86856f404c929ee0a"),
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1("p", "s", 0.5, 20)' => INVALID_COUNT,
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1("p", "s", 2, 0)' => KEY.(0, ""),
    'OpenSSL::PKCS5.pbkdf2_hmac("p", "s", 2, 0, "md5")' => KEY.(0, ""),
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1(nil, "s", 2, 20)' => ["TypeError", "no implicit conversion of nil into String"],
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1("p", 1, 2, 20)' => ["TypeError", "no implicit conversion of Integer into String"],
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1("p", "s", nil, 20)' => ["TypeError", "no implicit conversion from nil to integer"],
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1("p", "s", "2", 20)' => ["TypeError", "no implicit conversion of String into Integer"],
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1("p", "s", TO_INT_STRING, 20)' =>
      ["TypeError", "can't convert Object to Integer (Object#to_int gives String)"],
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1("p", "s", 2**64, 20)' => ["RangeError", "bignum too big to convert into `long'"],
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1("p", "s", 1e20, 20)' => ["RangeError", "float 1e+20 out of range of integer"],
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1("p", "s", 2, Float::NAN)' => ["RangeError", "float NaN out of range of integer"],
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1("p", "s", 2, 2.0**31)' => ["RangeError", "integer 2147483648 too big to convert to `int'"],
    # The digest: a String or an OpenSSL::Digest, looked up before the length and count.
    'OpenSSL::PKCS5.pbkdf2_hmac("p", "s", 2, 20, nil)' => ["TypeError", "wrong argument type nil (expected OpenSSL/Digest)"],
    'OpenSSL::PKCS5.pbkdf2_hmac("p", "s", 2, 20, :sha1)' => ["TypeError", "wrong argument type Symbol (expected OpenSSL/Digest)"],
    'OpenSSL::PKCS5.pbkdf2_hmac("p", "s", 2, 20, "sha1\0")' => ["ArgumentError", "string contains null byte"],
    'OpenSSL::KDF.pbkdf2_hmac("p", salt: "s", iterations: 2, length: 20, hash: "nosuch")' =>
      ["RuntimeError", "Unsupported digest algorithm (nosuch).: unknown object name"],
    'OpenSSL::PKCS5.pbkdf2_hmac("p", "s", 0, -1, "nosuch")' =>
      ["RuntimeError", "Unsupported digest algorithm (nosuch).: unknown object name"],
    'OpenSSL::PKCS5.pbkdf2_hmac("p", "s", 0, -1, 5)' => ["TypeError", "wrong argument type Integer (expected OpenSSL/Digest)"],
    # Several bad arguments: the first in MRI's order raises.
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1(nil, nil, nil, nil)' => ["TypeError", "no implicit conversion of nil into String"],
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1("p", "s", nil, -1)' => ["TypeError", "no implicit conversion from nil to integer"],
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1("p", "s", -1, 2**31)' => ["RangeError", "integer 2147483648 too big to convert to `int'"],
    # Arguments and keywords missing, extra or unknown.
    'OpenSSL::PKCS5.pbkdf2_hmac_sha1("p", "s", 2)' => ["ArgumentError", "wrong number of arguments (given 3, expected 4)"],
    'OpenSSL::PKCS5.pbkdf2_hmac("p", "s", 2, 20)' => ["ArgumentError", "wrong number of arguments (given 4, expected 5)"],
    "OpenSSL::KDF.pbkdf2_hmac" => ["ArgumentError", "wrong number of arguments (given 0, expected 1)"],
    'OpenSSL::KDF.pbkdf2_hmac("p")' => ["ArgumentError", "missing keywords: :salt, :iterations, :length, :hash"],
    'OpenSSL::KDF.pbkdf2_hmac("p", "x", salt: "s", iterations: 2, length: 20, hash: "sha1")' =>
      ["ArgumentError", "wrong number of arguments (given 2, expected 1)"],
    'OpenSSL::KDF.pbkdf2_hmac("p", "salt" => "s", "iterations" => 2, "length" => 20, "hash" => "sha1")' =>
      ["ArgumentError", "missing keywords: :salt, :iterations, :length, :hash"],
    'OpenSSL::KDF.pbkdf2_hmac("p", salt: "s", iterations: 2, length: 20, hash: "sha1", "x" => 1)' =>
      ["ArgumentError", "unknown keyword: \"x\""],
  }.freeze

  # MRI's words in this Ruby's: Ruby 3.4 (JRuby 10.1) quotes names as 'int'.
  def in_this_rubys_words(outcome, version = RUBY_VERSION)
    return outcome unless Gem::Version.new(version) >= Gem::Version.new("3.4") && outcome[1].is_a?(String)

    [outcome[0], outcome[1].gsub(/`([^`']*)'/, "'\\1'"), *outcome[2..]]
  end

  # MRI's answers, live: the same calls, run by MRI.
  def mri_corners
    Tempfile.create(["kdf-corners", ".rb"]) do |file|
      file.write(<<~RUBY)
        require "openssl"
        require "json"
        module Corners
        #{CORNER_HELPERS}
        end
        puts JSON.generate(JSON.parse($stdin.read).map { |code| Corners.outcome(code) })
      RUBY
      file.close
      KdfCases.run_script(file.path, "corners", JSON.generate(CORNERS.keys))
    end
  end

  # One test per corner, named after its call.
  CORNERS.each_with_index do |(code, expected), i|
    define_method(format("test_corner_%02d_%s", i, code.delete_prefix("OpenSSL::").gsub(/\W+/, "_")[0, 70])) do
      assert_equal in_this_rubys_words(expected), Corners.outcome(code), code
    end
  end

  def test_corners_written_down_are_a_live_mri_s
    mri = mri_corners
    CORNERS.each_with_index do |(code, expected), i|
      assert_equal in_this_rubys_words(expected, "3.4"), in_this_rubys_words(mri[i], "3.4"), "MRI, #{code}"
    end
  end

  # Every length of SHA-1 and SHA-2 is derived here, converted arguments
  # too; an empty key is no derivation.
  def test_converted_arguments_and_every_length_are_fast_random_s
    assert_equal 4, derivations {
      OpenSSL::PKCS5.pbkdf2_hmac(Corners::TO_STR, "salt", 2.0, 20, "sha1")
      OpenSSL::PKCS5.pbkdf2_hmac_sha1("p", "s", Corners::TO_INT, 65_537)
      OpenSSL::KDF.pbkdf2_hmac("p", salt: "s", iterations: 1, length: 100_000, hash: OpenSSL::Digest.new("SHA384"))
      OpenSSL::PKCS5.pbkdf2_hmac_sha1(Corners::PASS, "salt", 2, 20)
      OpenSSL::PKCS5.pbkdf2_hmac_sha1("p", "s", 1, 0)
    }
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

  # F7's corner (issue 48): a Hash passed as a Hash, in braces, is a second
  # positional argument, as on MRI, whatever its keys (it used to be taken
  # as the keywords, and String keys said "missing keywords"); keywords
  # given as such, splatted, through send or passed on by a ruby2_keywords
  # method, derive the key.
  def test_a_hash_in_braces_is_no_keywords
    options = { salt: "s", iterations: 1, length: 20, hash: "sha1" }
    [options, options.transform_keys(&:to_s)].each do |hash|
      error = assert_raises(ArgumentError) { OpenSSL::KDF.pbkdf2_hmac("pw", hash) }
      assert_equal "wrong number of arguments (given 2, expected 1)", error.message
    end
    expected = "227875ba69141bab369fc4187628d294f788e096" # MRI 3.1, OpenSSL 3.0
    assert_equal expected, OpenSSL::KDF.pbkdf2_hmac("pw", **options).unpack1("H*")
    assert_equal expected, OpenSSL::KDF.send(:pbkdf2_hmac, "pw", salt: "s", iterations: 1, length: 20, hash: "sha1").unpack1("H*")
    # Passed on by a ruby2_keywords method (Forwardable's delegators on 9.4 are).
    forward = Class.new do
      def derive(*args) = OpenSSL::KDF.pbkdf2_hmac(*args)
      ruby2_keywords :derive
    end
    assert_equal expected, forward.new.derive("pw", **options).unpack1("H*")
    empty = {}
    error = assert_raises(ArgumentError) { OpenSSL::KDF.pbkdf2_hmac("pw", **empty) }
    assert_equal "missing keywords: :salt, :iterations, :length, :hash", error.message
  end

  # A JDK digest that fails (a JCE call that throws, put in through the
  # test build's Pbkdf2Faults): stock derives the key, one warning says so,
  # and once the digest works again the next call is fast_random's. SHA-1
  # goes to stock's pbkdf2_hmac, which reads a password's bytes (as MRI),
  # not to its pbkdf2_hmac_sha1, which keeps a character's low byte.
  def test_a_failing_jdk_digest_gives_stock_s_key_and_the_next_call_is_ours
    out, err, status = TestHelper.jruby(<<~RUBY)
      require #{TestHelper::TEST_JAR.dump} # first: fast_random looks for its fault injector at its first fault site
      require "fast_random"
      require "openssl"
      pbkdf2 = Java::FastrandomKdf::Pbkdf2
      faults = Java::FastrandomKdf::Pbkdf2Faults
      derive = -> { OpenSSL::KDF.pbkdf2_hmac("passwd", salt: "salt", iterations: 1, length: 64, hash: "sha256").unpack1("H*") }
      results = []
      faults.set(->(name) { raise java.security.ProviderException.new("no \#{name} today") })
      2.times do
        before = pbkdf2.derivations
        results << [derive.(), pbkdf2.derivations - before]
      end
      results << [OpenSSL::PKCS5.pbkdf2_hmac_sha1(#{Corners::PASS.dump}, "salt", 2, 20).unpack1("H*"), 0]
      faults.set(nil)
      before = pbkdf2.derivations
      results << [derive.(), pbkdf2.derivations - before]
      p results
    RUBY
    assert status.success?, err
    expected = RFC_7914.first.last
    mri_sha1 = CORNERS['OpenSSL::PKCS5.pbkdf2_hmac_sha1(PASS, "salt", 2, 20)'].last
    assert_equal [[expected, 0], [expected, 0], [mri_sha1, 0], [expected, 1]],
                 eval(out.lines.last) # rubocop:disable Security/Eval -- our own child's p output
    # One warning per failure, however often it recurs: SHA-256's twice, SHA-1's once.
    warnings = err.lines.grep(/PBKDF2/)
    assert_equal 2, warnings.size, err
    %w[SHA-256 SHA-1].zip(warnings).each do |name, warning|
      assert_match(/PBKDF2 failed on the JDK's digests \(.*no #{name} today.*\); such derivations run on jruby-openssl's code/,
                   warning)
    end
  end
end
