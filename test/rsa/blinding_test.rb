# frozen_string_literal: true

# Passes main: fast_random's own CRT, which the fallback passes hide (IFMA) or lack (the library).

require_relative "../test_helper"
require_relative "../support/fail_over"
require_relative "../support/rsa_engine_switching"
require_relative "../support/rsa_test_keys"
require "openssl"

# fast_random's own RSA private operation (AVX-512 IFMA, primes of one
# length above 1024 bits) is blinded in C (ext/fast_random_native/
# rsa_blinding.c), fixed-width around its CRT: factors (r^e, r^-1) made 8 at
# a time with one inversion, each serving at most 32 operations, one
# operation at a time. (Every other key is blinded by OpenSSL, inside its
# own private operation.) BITS: primes of 1300 bits, on our CRT.
class RsaBlindingTest < Minitest::Test
  LibCrypto = Java::FastrandomJni::LibCrypto
  LibCryptoException = Java::FastrandomJni::LibCryptoException
  Hooks = Java::FastrandomJni::NativeTestHooks
  PAIR_USES = 32
  BATCH = 8
  BITS = 2600

  include FailOver::Assertions
  include RsaEngineSwitching

  def setup
    skip "libcrypto unavailable on purpose in this pass" unless TestHelper.libcrypto_expected?
    skip TestHelper::OWN_CRT_ONLY unless TestHelper.own_rsa_crt?(BITS / 2)
    super
    FastRandom::RSA.engine = :openssl
  end

  def teardown
    return unless TestHelper.own_rsa_crt?(BITS / 2)

    Hooks.inject_blinding_failures(0)
    super
  end

  def blinding
    %i[batches pairs operations].zip(LibCrypto.blinding_stats.to_a).to_h
  end

  # Through OpenSSL::PKey::RSA: sign, private_decrypt and private_encrypt
  # are each one blinded operation, and what they return is stock's.
  def test_every_private_operation_is_blinded
    key = OpenSSL::PKey::RSA.new(RsaTestKeys.key(BITS, 65_537).der)
    ciphertext = key.public_encrypt("fast_random")
    oaep = key.public_encrypt("fast_random", OpenSSL::PKey::RSA::PKCS1_OAEP_PADDING)
    key.sign("SHA256", "warm") # the native key is made on first use
    before = blinding
    engine_before = FastRandom::RSA.stats[:openssl][:private]
    signature = key.sign("SHA256", "fast_random")
    assert_equal "fast_random", key.private_decrypt(ciphertext)
    assert_equal "fast_random", key.private_decrypt(oaep, OpenSSL::PKey::RSA::PKCS1_OAEP_PADDING)
    raw = key.private_encrypt("fast_random")
    assert_equal 4, blinding[:operations] - before[:operations]
    assert_equal 4, FastRandom::RSA.stats[:openssl][:private] - engine_before
    assert key.verify("SHA256", signature, "fast_random")
    assert_equal "fast_random", key.public_decrypt(raw)
  end

  # Many operations on one key from 4 threads at once: every result exact
  # (x^d mod n), pairs retired after 32 uses (so at least operations / 32
  # pairs were made), and far fewer inversions (batches) than OpenSSL's one
  # every 32 operations.
  def test_results_stay_exact_across_many_factors_and_threads
    key = RsaTestKeys.key(BITS, 65_537)
    native = key.native_key
    operations = 4 * 96
    before = blinding
    wrong = Array.new(4) do |t|
      Thread.new do
        random = Random.new(t)
        Array.new(96) { random.rand(key.n) }.reject { |x| key.private_raw(native, x) == x.pow(key.d, key.n) }
      end
    end.flat_map(&:value)
    after = blinding
    assert_empty wrong
    assert_equal operations, after[:operations] - before[:operations]
    pairs = after[:pairs] - before[:pairs]
    assert_operator pairs * PAIR_USES, :>=, operations, "a pair served more than #{PAIR_USES} operations"
    assert_equal pairs, BATCH * (after[:batches] - before[:batches])
    assert_operator after[:batches] - before[:batches], :<, operations / PAIR_USES / 2
  ensure
    native&.close
  end

  # Fault injection: a batch of factors that cannot be made fails the
  # operation (nothing unblinded ever runs, nothing is returned), and the
  # next operation on the same key makes a batch and is exact.
  def test_a_failed_batch_returns_nothing_and_the_next_call_recovers
    key = RsaTestKeys.key(BITS, 65_537)
    native = key.native_key # a new key: no factors yet, so its first operation needs a batch
    before = blinding
    Hooks.inject_blinding_failures(1)
    error = assert_raises(LibCryptoException) { key.private_raw(native, 5) }
    assert_match(/RSA private operation failed/, error.message)
    assert_equal before, blinding
    assert_equal 5.pow(key.d, key.n), key.private_raw(native, 5)
    assert_equal before[:batches] + 1, blinding[:batches]
  ensure
    native&.close
  end

  # The same through OpenSSL::PKey::RSA: the caller gets stock's signature
  # and plaintext (a counted fallback, one warning), then the engine again.
  def test_a_failed_batch_falls_back_to_stock_once
    out, err, status = TestHelper.jruby(<<~RUBY)
      require "fast_random"
      require "openssl"
      FastRandom::RSA.engine = :openssl
      hooks = Java::FastrandomJni::NativeTestHooks
      setups = [
        lambda do |key|
          expected = OpenSSL::PKey::RSA.new(key.to_der).tap { FastRandom::RSA.engine = :java }.sign("SHA256", "m")
          FastRandom::RSA.engine = :openssl
          -> { key.sign("SHA256", "m") == expected }
        end,
        lambda do |key|
          ciphertext = key.public_encrypt("m")
          -> { key.private_decrypt(ciphertext) == "m" }
        end,
      ]
      # each on a key of its own: no native key, no factors yet
      operations = setups.map { |setup| setup.call(OpenSSL::PKey::RSA.new(#{RsaTestKeys.key(BITS, 65_537).der.dump})) }
      require #{FailOver::PATH.dump}
      p(FailOver.rounds(operations, stats: -> { FastRandom::RSA.stats }, inject: -> { hooks.inject_blinding_failures(1) }) do |middle, after|
        after[:openssl][:private] - middle[:openssl][:private]
      end)
    RUBY
    assert_failed_over out, err, status, [[true, true, 1, 0, 1]] * 2, /the openssl RSA engine failed .*RSA private operation failed/
  end

  # The check in C behind the engine's own (Operands.checkInput): an input
  # not below n is refused, never reduced and signed.
  def test_an_input_not_below_the_modulus_is_refused
    key = RsaTestKeys.key(BITS, 65_537)
    native = key.native_key
    [key.n, key.n + 1, 2**BITS - 1].each do |input|
      assert_raises(LibCryptoException) { key.private_raw(native, input) }
    end
    assert_equal 7.pow(key.d, key.n), key.private_raw(native, 7)
  ensure
    native&.close
  end
end
