# frozen_string_literal: true

require_relative "test_helper"
require_relative "support/rsa_engine_switching"
require_relative "support/rsa_test_keys"
require "openssl"

# The :openssl engine's private operation is its own CRT
# (ext/fast_random_native/rsa_crt.c), on the blinded value: OpenSSL's
# two-prime exponentiation for 1024-bit primes, AVX-512 IFMA in constant time
# for larger ones where the CPU has it, the result checked with e and, on a
# mismatch, recomputed without CRT. Keys whose primes differ in length go to
# OpenSSL's CRT. Every result must be x^d mod n.
class RsaCrtTest < Minitest::Test
  LibCrypto = Java::FastrandomJni::LibCrypto
  BigInteger = java.math.BigInteger

  include RsaEngineSwitching

  def setup
    skip "libcrypto unavailable on purpose in this pass" unless TestHelper.libcrypto_expected?
    super
    FastRandom::RSA.engine = :openssl
  end

  def teardown
    return unless TestHelper.libcrypto_expected?

    LibCrypto.inject_crt_faults(0)
    super
  end

  def crt
    %i[operations ifma check_failures].zip(LibCrypto.crt_stats.to_a).to_h
  end

  def ifma?
    LibCrypto.public_exponentiation == "ifma"
  end

  # A two-prime key with primes of these lengths (not one length: OpenSSL's CRT).
  def key_with_primes(p_bits, q_bits, e = 65_537)
    random = java.security.SecureRandom.new
    prime = lambda do |bits|
      loop do
        candidate = BigInteger.probable_prime(bits, random).to_i
        break candidate if (candidate - 1).gcd(e) == 1
      end
    end
    p = prime.call(p_bits)
    q = prime.call(q_bits)
    d = OpenSSL::BN.new(e).mod_inverse((p - 1).lcm(q - 1)).to_i
    qinv = OpenSSL::BN.new(q).mod_inverse(p).to_i
    RsaTestKeys::Key.new(p * q, e, d, p, q, d % (p - 1), d % (q - 1), qinv)
  end

  # Random inputs and the edges of the recombination: 0, 1, n - 1, and
  # multiples of p and of q (x = 0 mod p: m1 = 0; blinding keeps it so).
  def inputs(key, count, seed)
    random = Random.new(seed)
    [0, 1, 2, key.n - 1, key.p, key.q, 3 * key.p, key.n - key.q] + Array.new(count) { random.rand(key.n) }
  end

  def assert_exact(key, native, count: 12, seed: 1)
    wrong = inputs(key, count, seed).reject { |x| key.private_raw(native, x) == x.pow(key.d, key.n) }
    assert_empty wrong, "#{key.n.bit_length}-bit key: wrong results"
  end

  # Every size on our CRT: exact, and on IFMA exactly when the primes are
  # over 1024 bits and this CPU has it (2000 and 2600 bits: primes that are
  # not whole 64-bit words).
  def test_own_crt_is_exact_at_every_size
    [1024, 2000, 2048, 2600, 3072, 4096].each do |bits|
      key = RsaTestKeys.key(bits, 65_537)
      native = key.native_key
      before = crt
      assert_exact(key, native)
      after = crt
      operations = inputs(key, 12, 1).size
      assert_equal operations, after[:operations] - before[:operations], "#{bits} bits: not our CRT"
      expected_ifma = ifma? && key.p.bit_length > 1024 ? operations : 0
      assert_equal expected_ifma, after[:ifma] - before[:ifma], "#{bits} bits: IFMA use"
      assert_equal before[:check_failures], after[:check_failures], "#{bits} bits: a sound key failed the check"
    ensure
      native&.close
    end
  end

  # Primes of different lengths: OpenSSL's CRT (ours counts nothing), exact.
  def test_primes_of_different_lengths_take_openssl_crt
    key = key_with_primes(1088, 960)
    native = key.native_key
    before = crt
    assert_exact(key, native)
    assert_equal before, crt
  ensure
    native&.close
  end

  # Fault injection: a CRT result corrupted modulo p (what a fault in one
  # half does, and what would reveal p) fails the check with e and is
  # recomputed without CRT: the caller gets the exact result, and the next
  # operation is our CRT again with no failure.
  def test_a_faulty_crt_result_is_caught_and_recomputed
    [2048, 3072].each do |bits|
      key = RsaTestKeys.key(bits, 65_537)
      native = key.native_key
      before = crt
      LibCrypto.inject_crt_faults(2)
      assert_equal 7.pow(key.d, key.n), key.private_raw(native, 7)
      assert_equal (key.n - 2).pow(key.d, key.n), key.private_raw(native, key.n - 2)
      assert_equal before[:check_failures] + 2, crt[:check_failures], "#{bits} bits: the faults were not caught"
      assert_equal 11.pow(key.d, key.n), key.private_raw(native, 11)
      assert_equal before[:check_failures] + 2, crt[:check_failures]
      assert_equal before[:operations] + 3, crt[:operations]
    ensure
      native&.close
    end
  end

  # A key whose CRT exponent dQ does not match d (corrupted in storage):
  # every result wrong modulo q fails the check and is recomputed with d, so
  # all are exact. (Inputs that are 0 mod q stay 0 mod q when blinded, and
  # any dQ gives them the right result.)
  def test_a_key_with_a_wrong_crt_exponent_still_gives_exact_results
    key = RsaTestKeys.key(2048, 65_537)
    native = key.with(dq: key.dq ^ 2).native_key
    before = crt
    assert_exact(key, native, count: 2)
    wrong_mod_q = inputs(key, 2, 1).count { |x| (x % key.q).nonzero? }
    assert_equal wrong_mod_q, crt[:check_failures] - before[:check_failures]
    assert Java::FastrandomRsa::OpenSslRsaEngine.crt_checks_results
  ensure
    native&.close
  end

  # Through OpenSSL::PKey::RSA: a signature made through an injected fault is
  # the same (PKCS#1 v1.5 is deterministic) and verifies; so is a decryption.
  def test_a_fault_never_changes_what_pkey_returns
    key = OpenSSL::PKey::RSA.new(RsaTestKeys.key(3072, 65_537).der)
    expected = key.sign("SHA256", "fast_random")
    ciphertext = key.public_encrypt("fast_random", OpenSSL::PKey::RSA::PKCS1_OAEP_PADDING)
    before = crt
    LibCrypto.inject_crt_faults(2)
    assert_equal expected, key.sign("SHA256", "fast_random")
    assert_equal "fast_random", key.private_decrypt(ciphertext, OpenSSL::PKey::RSA::PKCS1_OAEP_PADDING)
    assert_equal before[:check_failures] + 2, crt[:check_failures]
    assert_equal expected, key.sign("SHA256", "fast_random")
  end

  # One key from 4 threads at once, on both exponentiation paths.
  def test_threads_share_a_key
    [2048, 3072].each do |bits|
      key = RsaTestKeys.key(bits, 65_537)
      native = key.native_key
      wrong = Array.new(4) do |t|
        Thread.new do
          random = Random.new(t)
          Array.new(25) { random.rand(key.n) }.reject { |x| key.private_raw(native, x) == x.pow(key.d, key.n) }
        end
      end.flat_map(&:value)
      assert_empty wrong, "#{bits} bits"
    ensure
      native&.close
    end
  end
end
