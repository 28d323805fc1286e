# frozen_string_literal: true

# Passes 10.1, 9.4, 10.1-fallback: libcrypto's one-call signatures, with and without IFMA; without the library there are none.

require_relative "../test_helper"
require_relative "../support/fail_over"
require_relative "../support/rsa_engine_switching"
require_relative "../support/rsa_test_keys"
require "openssl"

# PKCS#1 v1.5 signatures on the :openssl engine, one native call each
# (fastrandom.rsa.jca.EngineRsaSignature over OpenSslRsaEngine#signPkcs1 and
# #verifyPkcs1): the same bytes and the same verdicts as stock
# jruby-openssl (BouncyCastle) for every digest, message length and
# malformed signature, and stock's result, with one warning, when the native
# call fails. (MRI's bytes: test/rsa/pkey_test.rb; Wycheproof's verdicts:
# test/rsa/wycheproof_test.rb.)
class RsaOneCallSignatureTest < Minitest::Test
  include FailOver::Assertions
  include RsaEngineSwitching

  DIGESTS = %w[SHA1 SHA224 SHA256 SHA384 SHA512].freeze
  LibCrypto = Java::FastrandomJni::LibCrypto

  def setup
    super
    skip "libcrypto unavailable in this pass: #{FastRandom::RSA.engine_problem(:openssl)}" unless TestHelper.native_library_expected?
    FastRandom::RSA.engine = :openssl
    @key = OpenSSL::PKey::RSA.new(RsaTestKeys.key(2048, 65_537).der)
  end

  def teardown
    LibCrypto.inject_faults(0)
    super
  end

  def openssl_operations
    FastRandom::RSA.stats[:openssl].values.sum
  end

  # Short messages are hashed inside the native call; longer ones than
  # SignatureInput::HASHED_NATIVELY are hashed in Java as they come and
  # their digest is signed. Both give stock's bytes, and verify both ways.
  def test_every_digest_and_length_signs_as_stock_does
    limit = Java::FastrandomSupport::SignatureInput::HASHED_NATIVELY
    messages = ["", "a", "fast_random " * 8, "x" * limit, "y" * (limit + 1), "z" * 1_000_000]
    DIGESTS.each do |digest|
      messages.each do |message|
        before = openssl_operations
        signature = @key.sign(digest, message)
        assert @key.public_key.verify(digest, signature, message), "#{digest}, #{message.bytesize} bytes"
        assert_equal before + 2, openssl_operations, "not one native call each (#{digest}, #{message.bytesize} bytes)"
        assert_equal stock { @key.sign(digest, message) }, signature, "#{digest}, #{message.bytesize} bytes"
        assert stock { @key.public_key.verify(digest, signature, message) }
        refute @key.verify(digest, signature, message + "!")
      end
    end
  end

  # Every way a PKCS#1 v1.5 signature can be malformed, verified on stock and
  # on the one-call path: the verdicts must agree, and be these.
  def test_malformed_signatures_get_stock_s_verdicts
    message = "fast_random"
    digest = OpenSSL::Digest.digest("SHA256", message)
    with_null = ["3031300d060960864801650304020105000420"].pack("H*") + digest
    without_null = ["302f300b0609608648016503040201" "0420"].pack("H*") + digest
    wrong_oid = ["3031300d060960864801650304020305000420"].pack("H*") + digest # SHA-512's OID
    good = @key.sign("SHA256", message)
    modulus = [@key.n.to_s(16).rjust(512, "0")].pack("H*")
    leading_zero = (0..).lazy.map { |i| ["m#{i}", @key.sign("SHA256", "m#{i}")] }.find { |_, s| s.getbyte(0).zero? }
    cases = {
      "good" => [message, good, true],
      "DigestInfo without NULL parameters (BouncyCastle accepts it)" => [message, @key.private_encrypt(without_null), true],
      "DigestInfo with NULL, made by hand" => [message, @key.private_encrypt(with_null), true],
      "another digest's OID" => [message, @key.private_encrypt(wrong_oid), false],
      "one bit changed" => [message, good.dup.tap { |s| s.setbyte(100, s.getbyte(100) ^ 1) }, false],
      "a leading zero byte left out (read as left-padded)" => [leading_zero[0], leading_zero[1].byteslice(1..), true],
      "one byte longer than the modulus" => [message, "\0" + good, false],
      "the modulus itself" => [message, modulus, false],
      "above the modulus" => [message, "\xff".b * 256, false],
      "empty" => [message, "", false],
      "one byte" => [message, "\1", false],
    }
    cases.each do |label, (data, signature, expected)|
      assert_equal expected, stock { @key.public_key.verify("SHA256", signature, data) }, "stock: #{label}"
      assert_equal expected, @key.public_key.verify("SHA256", signature, data), "one call: #{label}"
    end
  end

  # Keys the native call does not take run on BouncyCastle, as on stock:
  # too short for the digest's DigestInfo, and without CRT values.
  def test_keys_the_native_call_does_not_take_behave_as_on_stock
    small = OpenSSL::PKey::RSA.new(RsaTestKeys.key(512, 65_537).der)
    error = ->(&block) { block.call.then { nil } rescue [$!.class, $!.message] }
    sha512 = error.call { small.sign("SHA512", "x") }
    assert_equal stock { error.call { small.sign("SHA512", "x") } }, sha512
    refute_nil sha512, "a 512-bit key cannot hold a SHA-512 DigestInfo"
    assert_equal stock { small.sign("SHA256", "x") }, small.sign("SHA256", "x")
  end

  # Fault injection at the native call: whatever libcrypto failing does to a
  # signature, a verification or a decryption, the caller gets stock's
  # result, one warning, a counted fallback; the next call is native again.
  def test_a_failing_native_call_falls_back_to_stock_and_the_next_one_recovers
    out, err, status = TestHelper.jruby(<<~RUBY)
      require "fast_random"
      require "openssl"
      FastRandom::RSA.engine = :openssl
      key = OpenSSL::PKey::RSA.new(#{RsaTestKeys.key(2048, 65_537).der.dump})
      lib = Java::FastrandomJni::LibCrypto
      message = "fast_random"
      long = "x" * 100_000
      expected = key.sign("SHA256", message)
      expected_long = key.sign("SHA256", long)
      ciphertext = key.public_encrypt(message)
      operations = [
        -> { key.sign("SHA256", message) == expected },
        -> { key.sign("SHA256", long) == expected_long },
        -> { key.verify("SHA256", expected, message) },
        -> { !key.verify("SHA256", expected, message + "!") },
        -> { key.private_decrypt(ciphertext) == message },
      ]
      require #{FailOver::PATH.dump}
      p(FailOver.rounds(operations, stats: -> { FastRandom::RSA.stats }, inject: -> { lib.inject_faults(1) }) do |middle, after|
        after[:openssl].values.sum > middle[:openssl].values.sum
      end)
    RUBY
    assert_failed_over out, err, status, [[true, true, 1, 0, true]] * 5, /the openssl RSA engine failed \(injected fault/
  end
end
