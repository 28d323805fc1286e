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

  # A computation fault must never hand out a wrong private result (which
  # would give away a prime): a key whose CRT exponent or d is corrupted
  # gets the right answer or an error, and the error names no secret.
  def test_wrong_results_never_leave_the_engine
    key = RsaTestKeys.key(1024, 65_537)
    expected = 12_345.pow(key.d, key.n)
    [key.with(dp: key.dp ^ 2), key.with(dq: key.dq ^ 8), key.with(d: key.d ^ 2, dp: key.dp ^ 2)].each do |bad|
      begin
        assert_equal expected, engine.private_operation(bad.engine_key, 12_345)
      rescue RsaEngineException => e
        assert_match(/public-exponent check/, e.message)
        [key.p, key.q, key.d, key.dp].each { |secret| refute_includes e.message, secret.to_s(16) }
      end
    end
  end
end
