# frozen_string_literal: true

require_relative "rsa_test_keys"

# What every RSA engine (fastrandom.rsa.RsaEngine) must do, checked against
# Ruby's own Integer#pow. A test class includes this and defines #engine (a
# fresh engine) and .engine_class.
module RsaEngineContract
  RsaEngineException = Java::FastrandomRsa::RsaEngineException
  JObject = Java::JavaLang::Object

  def self.included(test_class)
    [1024, 2048, 3072, 4096].each do |bits|
      [3, 65_537].each do |e|
        test_class.define_method("test_#{bits}_bit_key_with_e_#{e}_matches_integer_pow") do
          key = RsaTestKeys.key(bits, e)
          n = key.n
          engine_key = key.engine_key
          inputs = [0, 1, 2, n - 1, n - 2, 255, 1 << (bits - 9), n >> 1] + Array.new(6) { SecureRandom.random_number(n) }
          inputs.each do |x|
            signed = engine.private_operation(engine_key, x)
            assert_equal x.pow(key.d, n), signed, "private op, #{bits} bits, e=#{e}"
            assert_equal x.pow(e, n), engine.public_operation(n, e, x), "public op, #{bits} bits, e=#{e}"
            assert_equal x, engine.public_operation(n, e, signed)
          end
          assert_equal 1, engine.private_key_cache.size
        end
      end
    end
  end

  def test_self_test_passes
    assert_nil self.class.engine_class.self_test
  end

  def test_blinded_results_are_the_same_every_time
    key = RsaTestKeys.key(1024, 65_537)
    x = SecureRandom.random_number(key.n)
    engine_key = key.engine_key
    assert_equal [x.pow(key.d, key.n)], Array.new(50) { engine.private_operation(engine_key, x) }.uniq
  end

  def test_many_threads_share_keys
    keys = [RsaTestKeys.key(2048, 65_537), RsaTestKeys.key(1024, 3)]
    engine_keys = keys.map(&:engine_key)
    failures = Array.new(8) do |t|
      Thread.new do
        Array.new(150) do |i|
          key = keys[(t + i) % 2]
          x = SecureRandom.random_number(key.n)
          s = engine.private_operation(engine_keys[(t + i) % 2], x)
          # s^e = x determines s: x -> x^e is a permutation of Z/n.
          s.pow(key.e, key.n) == x && engine.public_operation(key.n, key.e, s) == x ? 0 : 1
        end.sum
      end
    end.sum(&:value)
    assert_equal 0, failures
    assert_equal 2, engine.private_key_cache.size
  end

  def test_the_same_identity_with_another_key_is_not_confused
    identity = JObject.new
    a = RsaTestKeys.key(1024, 65_537)
    b = RsaTestKeys.key(1024, 3)
    assert_equal 5.pow(a.d, a.n), engine.private_operation(a.engine_key(identity), 5)
    assert_equal 5.pow(b.d, b.n), engine.private_operation(b.engine_key(identity), 5)
    assert_equal 5.pow(a.d, a.n), engine.private_operation(a.engine_key(identity), 5)
    assert_equal 1, engine.private_key_cache.size
  end

  def test_keys_without_an_identity_work_uncached
    key = RsaTestKeys.key(1024, 65_537)
    assert_equal 9.pow(key.d, key.n), engine.private_operation(key.engine_key(nil), 9)
    assert_equal 0, engine.private_key_cache.size
  end

  def test_inputs_out_of_range_are_refused
    key = RsaTestKeys.key(1024, 65_537)
    [-1, key.n, key.n + 1].each do |x|
      assert_raises(Java::JavaLang::IllegalArgumentException) { engine.private_operation(key.engine_key, x) }
      assert_raises(Java::JavaLang::IllegalArgumentException) { engine.public_operation(key.n, key.e, x) }
    end
  end

  # A key whose CRT exponents or d were corrupted (what a fault in memory
  # would do) never gives a wrong private result, which would give away a
  # prime: the engine refuses it (InconsistentKeyException, so stock code
  # fails on it as it does without fast_random) and the error names no
  # secret. (The check on each result, for faults during the computation,
  # is tested below the engine, where a corrupted key can reach it.)
  def test_wrong_results_never_leave_the_engine
    key = RsaTestKeys.key(1024, 65_537)
    [key.with(dp: key.dp ^ 2), key.with(dq: key.dq ^ 8), key.with(d: key.d ^ 2, dp: key.dp ^ 2),
     key.with(qinv: key.qinv ^ 4), key.with(p: key.q, q: key.p)].each do |bad|
      e = assert_raises(Java::FastrandomRsa::InconsistentKeyException) { engine.private_operation(bad.engine_key, 12_345) }
      [key.p, key.q, key.d, key.dp].each { |secret| refute_includes e.message, secret.to_s(16) }
    end
  end

  # The per-key cache answers only for the very same key values: another key
  # behind the same identity, or a public exponent whose Java hash collides
  # with the cached one's (65537 and 8590000067), gets its own result.
  def test_the_key_cache_matches_complete_key_values
    a = RsaTestKeys.key(1024, 65_537)
    b = RsaTestKeys.key(2048, 65_537)
    identity = Java::JavaLang::Object.new
    assert_equal 7.pow(a.d, a.n), engine.private_operation(a.engine_key(identity), 7)
    assert_equal 7.pow(b.d, b.n), engine.private_operation(b.engine_key(identity), 7)
    assert_equal 7.pow(a.d, a.n), engine.private_operation(a.engine_key(identity), 7)

    colliding = 8_590_000_067
    assert_equal java.math.BigInteger.new("65537").hashCode, java.math.BigInteger.new(colliding.to_s).hashCode
    modulus = java.math.BigInteger.new(a.n.to_s) # one instance: the public cache's identity
    assert_equal 3.pow(65_537, a.n), engine.public_operation(modulus, 65_537, 3).to_i
    assert_equal 3.pow(colliding, a.n), engine.public_operation(modulus, colliding, 3).to_i
  end

  # Equal values in new instances (a key object rebuilt from the same
  # numbers) still find the cached native key.
  def test_equal_key_values_in_new_instances_hit_the_cache
    key = RsaTestKeys.key(1024, 65_537)
    identity = Java::JavaLang::Object.new
    3.times { assert_equal 5.pow(key.d, key.n), engine.private_operation(key.engine_key(identity), 5) }
    hits, misses, = engine.private_key_cache.stats.to_a
    assert_equal [2, 1], [hits, misses]
  end
end
