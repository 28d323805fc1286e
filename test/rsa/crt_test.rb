# frozen_string_literal: true

# Passes 10.1, 9.4, 10.1-fallback: keys take our CRT or OpenSSL's as IFMA is there or hidden; without the library, neither.

require_relative "../test_helper"
require_relative "../support/rsa_engine_switching"
require_relative "../support/rsa_test_keys"
require "openssl"

# The :openssl engine's private operation: fast_random's own CRT
# (ext/fast_random_native/rsa_crt.c, fixed-width on AVX-512 IFMA) for primes
# of one length above 1024 bits where the CPU has IFMA, OpenSSL's own
# (blinded, checked) for every other key. Every result must be x^d mod n; a
# key is validated in C when it is made, whoever the Java caller is.
class RsaCrtTest < Minitest::Test
  LibCrypto = Java::FastrandomJni::LibCrypto
  LibCryptoException = Java::FastrandomJni::LibCryptoException
  Hooks = Java::FastrandomJni::NativeTestHooks
  BigInteger = java.math.BigInteger

  include RsaEngineSwitching

  def setup
    skip "libcrypto unavailable on purpose in this pass" unless TestHelper.libcrypto_expected?
    super
    FastRandom::RSA.engine = :openssl
  end

  def teardown
    return unless TestHelper.libcrypto_expected?

    Hooks.inject_crt_faults(0)
    super
  end

  def crt
    %i[operations check_failures].zip(LibCrypto.crt_stats.to_a).to_h
  end

  def own?(key)
    TestHelper.own_rsa_crt?(key.p.bit_length, key.q.bit_length)
  end

  def require_own_crt
    skip TestHelper::OWN_CRT_ONLY unless TestHelper.own_rsa_crt?(1536)
  end

  # A two-prime key with primes of these lengths.
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

  # Every size exact, on our CRT exactly when it takes the key (2000, 2600
  # and 3000 bits: primes that are not whole 64-bit words).
  def test_every_size_is_exact_on_the_path_it_takes
    [1024, 2000, 2048, 2600, 3000, 3072, 4096].each do |bits|
      key = RsaTestKeys.key(bits, 65_537)
      native = key.native_key
      before = crt
      assert_exact(key, native)
      after = crt
      expected = own?(key) ? inputs(key, 12, 1).size : 0
      assert_equal expected, after[:operations] - before[:operations], "#{bits} bits: the wrong path"
      assert_equal before[:check_failures], after[:check_failures], "#{bits} bits: a sound key failed the check"
    ensure
      native&.close
    end
  end

  # Primes of different lengths: OpenSSL's private operation (ours counts nothing), exact.
  def test_primes_of_different_lengths_take_openssl
    key = key_with_primes(1600, 1400)
    native = key.native_key
    before = crt
    assert_exact(key, native)
    assert_equal before, crt
  ensure
    native&.close
  end

  # Keys are validated in C when made: values that do not fit together,
  # or would not fit the buffers, are refused with an exception through the
  # public Java API (the first one crashed the JVM with a stack overflow in
  # C before), and a sound key made after them works.
  def test_inconsistent_keys_are_refused_whoever_makes_them
    key = RsaTestKeys.key(2048, 65_537)
    big_p = (1 << 8999) | 1 # equal-length 9000-bit "primes" (odd is all it takes to reach the CRT before)
    big_q = big_p + 2
    n16384 = (1 << 16_383) | 1
    refused = {
      "9000-bit primes, 16384-bit n" => [n16384, 65_537, n16384 - 2, big_p, big_q, big_p - 1, big_q - 1, 1],
      "p q != n" => [key.n, key.e, key.d, key.p, key.q + 2, key.dp, key.dq, key.qinv],
      "dP = p" => [key.n, key.e, key.d, key.p, key.q, key.p, key.dq, key.qinv],
      "dQ > q" => [key.n, key.e, key.d, key.p, key.q, key.dp, key.q + 1, key.qinv],
      "qInv = p" => [key.n, key.e, key.d, key.p, key.q, key.dp, key.dq, key.p],
      "qInv = 0" => [key.n, key.e, key.d, key.p, key.q, key.dp, key.dq, 0],
      "d = n" => [key.n, key.e, key.n, key.p, key.q, key.dp, key.dq, key.qinv],
      "e = 1" => [key.n, 1, key.d, key.p, key.q, key.dp, key.dq, key.qinv],
      "even p" => [key.n, key.e, key.d, 2, key.n / 2, 1, key.dq, 1],
    }
    refused.each do |what, values|
      error = assert_raises(LibCryptoException, what) do
        LibCrypto.new_private_key(*values.map { |v| BigInteger.new(v.to_s) }, false)
      end
      assert_match(/RSA key/, error.message, what)
    end
    native = key.native_key
    assert_equal 7.pow(key.d, key.n), key.private_raw(native, 7)
  ensure
    native&.close
  end

  # Fault injection into our CRT: a result corrupted in the p half (what
  # would reveal p) fails the check with e and is recomputed without CRT:
  # the caller gets the exact result, and the next operation is our CRT
  # again with no failure.
  def test_a_faulty_crt_result_is_caught_and_recomputed
    require_own_crt
    [2600, 3072].each do |bits|
      key = RsaTestKeys.key(bits, 65_537)
      native = key.native_key
      before = crt
      Hooks.inject_crt_faults(2)
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
  # every result wrong modulo q fails the check (ours, or OpenSSL's) and is
  # recomputed with d, so all are exact.
  def test_a_key_with_a_wrong_crt_exponent_still_gives_exact_results
    [2048, 3072].each do |bits|
      key = RsaTestKeys.key(bits, 65_537)
      native = key.with(dq: key.dq ^ 2).native_key
      before = crt
      assert_exact(key, native, count: 2)
      wrong_mod_q = own?(key) ? inputs(key, 2, 1).count { |x| (x % key.q).nonzero? } : 0
      assert_equal wrong_mod_q, crt[:check_failures] - before[:check_failures], "#{bits} bits"
    ensure
      native&.close
    end
    assert Java::FastrandomRsa::OpenSslRsaEngine.crt_checks_results
  end

  # A wrong qInv (in range: validation cannot tell) would make our CRT's
  # blinding inversions fail on every call; such a key goes to OpenSSL's
  # private operation instead, which checks and recomputes: exact results,
  # on every CPU alike.
  def test_a_key_with_a_wrong_qinv_takes_openssl_and_stays_exact
    [2600, 3072].each do |bits|
      key = RsaTestKeys.key(bits, 65_537)
      native = key.with(qinv: (key.qinv + 1) % key.p).native_key
      before = crt
      assert_exact(key, native, count: 2)
      assert_equal before, crt, "#{bits} bits: not OpenSSL's private operation"
    ensure
      native&.close
    end
  end

  # Through OpenSSL::PKey::RSA: a signature made through an injected fault is
  # the same (PKCS#1 v1.5 is deterministic) and verifies; so is a decryption.
  def test_a_fault_never_changes_what_pkey_returns
    require_own_crt
    key = OpenSSL::PKey::RSA.new(RsaTestKeys.key(3072, 65_537).der)
    expected = key.sign("SHA256", "fast_random")
    ciphertext = key.public_encrypt("fast_random", OpenSSL::PKey::RSA::PKCS1_OAEP_PADDING)
    before = crt
    Hooks.inject_crt_faults(2)
    assert_equal expected, key.sign("SHA256", "fast_random")
    assert_equal "fast_random", key.private_decrypt(ciphertext, OpenSSL::PKey::RSA::PKCS1_OAEP_PADDING)
    assert_equal before[:check_failures] + 2, crt[:check_failures]
    assert_equal expected, key.sign("SHA256", "fast_random")
  end

  # One key from 4 threads at once, on both paths.
  def test_threads_share_a_key
    [2048, 3072].each do |bits|
      key = RsaTestKeys.key(bits, 65_537)
      native = key.native_key
      wrong = Array.new(4) do |t|
        Thread.new do
          random = Random.new(t)
          Array.new(10) { random.rand(key.n) }.reject { |x| key.private_raw(native, x) == x.pow(key.d, key.n) }
        end
      end.flat_map(&:value)
      assert_empty wrong, "#{bits} bits"
    ensure
      native&.close
    end
  end

  # The shipped library has no fault injection: the hooks are in the test
  # build only, which every bin/test pass loads.
  def test_fault_injection_is_in_the_test_build_only
    assert Hooks.present, "bin/test loads the test build"
    shipped = File.expand_path("../../lib/fast_random/#{Java::FastrandomJni::NativeLibrary.platform_file}", __dir__)
    skip "no shipped library is built for this platform" unless File.file?(shipped)
    symbols = `nm -D --defined-only #{shipped}`
    assert $?.success?, "nm failed"
    assert_match(/Java_fastrandom_jni_LibCrypto_privateRaw/, symbols)
    refute_match(/inject|test_fault|NativeTestHooks/i, symbols)
  end
end
