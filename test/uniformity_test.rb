# frozen_string_literal: true

require_relative "test_helper"

# Chi-square checks that outputs are uniform. Each test compares Pearson's
# statistic against TestHelper.chi_square_limit(k): the value a fair
# generator exceeds with probability ~1e-6, so these fail on real bias (a
# modulo bias of a few percent on these sample sizes is far above the limit),
# not by chance.
class UniformityTest < Minitest::Test
  def assert_uniform(samples, values)
    counts = Hash.new(0)
    samples.each { |s| counts[s] += 1 }
    assert_equal values.to_a.sort, counts.keys.sort, "every value reachable, nothing outside"
    expected = samples.size.to_f / values.size
    statistic = TestHelper.chi_square(values.map { |v| counts[v] }, expected)
    limit = TestHelper.chi_square_limit(values.size - 1)
    assert_operator statistic, :<, limit, "chi-square #{statistic.round(1)} over #{limit.round(1)} (df #{values.size - 1})"
  end

  # Buckets huge ranges into 16 equal slices.
  def assert_uniform_slices(samples, low, span)
    slices = samples.map { |s| ((s - low) * 16) / span }
    assert_uniform(slices, 0...16)
  end

  def test_bytes
    assert_uniform(SecureRandom.random_bytes(1 << 20).bytes, 0..255)
  end

  def test_bytes_from_many_small_requests
    assert_uniform(Array.new(1 << 16) { SecureRandom.random_bytes(3) }.join.bytes, 0..255)
  end

  def test_random_number_small_limits
    [2, 3, 7, 10, 1000].each do |n|
      assert_uniform(Array.new(n * 200) { SecureRandom.random_number(n) }, 0...n)
    end
  end

  def test_random_number_just_over_a_power_of_two
    # 2**32+1 and 2**64+3: the worst cases for a modulo reduction.
    [2**32 + 1, 2**64 + 3, 2**100 + 7].each do |n|
      samples = Array.new(32_000) { SecureRandom.random_number(n) }
      assert samples.all? { |s| s >= 0 && s < n }
      assert_uniform_slices(samples, 0, n)
    end
  end

  def test_ranges_including_negative_and_bignum
    assert_uniform(Array.new(11_000) { SecureRandom.random_number(-5..5) }, -5..5)
    assert_uniform(Array.new(6_000) { SecureRandom.random_number(1...7) }, 1...7)
    big = 2**64
    assert_uniform(Array.new(10_000) { SecureRandom.random_number(big..(big + 9)) }, big..(big + 9))
    assert_uniform(Array.new(10_000) { SecureRandom.random_number(-big - 9..-big) }, -big - 9..-big)
  end

  def test_floats
    samples = Array.new(100_000) { SecureRandom.random_number }
    assert samples.all? { |f| f >= 0.0 && f < 1.0 }
    assert_uniform(samples.map { |f| (f * 20).floor }, 0...20)
    scaled = Array.new(20_000) { SecureRandom.random_number(-2.0..2.0) }
    assert scaled.all? { |f| f >= -2.0 && f <= 2.0 }
    assert_uniform(scaled.map { |f| ((f + 2.0) * 2).floor.clamp(0, 7) }, 0...8)
  end

  def test_alphanumeric_alphabets
    { 1 => %w[q], 2 => %w[a b], 10 => ("0".."9").to_a, 62 => [*"A".."Z", *"a".."z", *"0".."9"] }.each do |size, chars|
      text = SecureRandom.alphanumeric(size * 300, chars: chars)
      assert_equal size * 300, text.size
      if size == 1
        assert_equal "q" * 300, text
      else
        assert_uniform(text.chars, chars)
      end
    end
    assert_uniform(SecureRandom.alphanumeric(62 * 300).chars, [*"A".."Z", *"a".."z", *"0".."9"])
  end

  def test_uuid_random_bits
    # The 122 random bits of a v4 UUID: each hex digit outside the fixed ones is uniform.
    digits = Array.new(4000) { SecureRandom.uuid.delete("-") }.flat_map do |hex|
      hex.chars.each_with_index.reject { |_, i| i == 12 || i == 16 }.map(&:first)
    end
    assert_uniform(digits, [*"0".."9", *"a".."f"])
  end
end
