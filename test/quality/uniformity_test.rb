# frozen_string_literal: true

# Passes main: the DRBGs' output, whose uniformity does not depend on where their seeds come from.

require_relative "../test_helper"

# Chi-square checks that outputs are uniform. Each test compares Pearson's
# statistic against TestHelper.chi_square_limit(k): the value a fair
# generator exceeds with probability ~1e-6, so these fail on real bias (a
# modulo bias of a few percent on these sample sizes is far above the limit),
# not by chance. Every cell expects at least 20 samples.
#
# Small limits and ranges: every value must occur, and the counts be
# uniform. Limits too big to enumerate (2**32+1, 2**64+3, Bignum ranges):
# the range is cut into 16 equal slices (the top one holds the values above
# the power of two a modulo reduction would never reach) and the values are
# also bucketed by their residue mod 64 (the low bits); both must be uniform.
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

  # Buckets huge ranges into 16 equal slices, and by residue mod 64.
  def assert_uniform_slices(samples, low, span)
    slices = samples.map { |s| ((s - low) * 16) / span }
    assert_uniform(slices, 0...16)
    assert_uniform(samples.map { |s| (s - low) % 64 }, 0...64)
  end

  def test_bytes
    assert_uniform(SecureRandom.random_bytes(1 << 20).bytes, 0..255)
  end

  def test_bytes_from_many_small_requests
    assert_uniform(Array.new(1 << 16) { SecureRandom.random_bytes(3) }.join.bytes, 0..255)
  end

  def test_bytes_at_each_position_of_a_request
    # (position, value) over 16-byte requests: a byte position that is
    # fixed or biased (a formatting slip, a counter showing through) stands
    # out here even when the bytes as a whole look fine.
    cells = Array.new(8192) { SecureRandom.random_bytes(16) }.flat_map { |r| r.bytes.each_with_index.map { |b, i| i * 256 + b } }
    assert_uniform(cells, 0...(16 * 256))
  end

  def test_random_number_small_limits
    [2, 3, 7, 10, 1000].each do |n|
      assert_uniform(Array.new([n * 200, 20_000].max) { SecureRandom.random_number(n) }, 0...n)
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
    assert_uniform(Array.new(10_000) { SecureRandom.rand(-10...0) }, -10...0)
    big = 2**64
    assert_uniform(Array.new(10_000) { SecureRandom.random_number(big..(big + 9)) }, big..(big + 9))
    assert_uniform(Array.new(10_000) { SecureRandom.random_number(-big - 9..-big) }, -big - 9..-big)
    # Across the Fixnum/Bignum border (2**62 in MRI, 2**63 in JRuby).
    [2**62, 2**63].each do |border|
      assert_uniform(Array.new(10_000) { SecureRandom.random_number((border - 5)..(border + 4)) }, (border - 5)..(border + 4))
    end
  end

  def test_huge_ranges
    # The whole long range and beyond, a span of exactly Long::MAX_VALUE, and
    # a Bignum range across zero.
    [[-2**63, 2**63 - 1], [0, 2**63 - 1], [-2**70, 2**70], [2**64, 2**65 + 12_345]].each do |low, high|
      samples = Array.new(32_000) { SecureRandom.random_number(low..high) }
      assert samples.all? { |s| s >= low && s <= high }, "outside #{low}..#{high}"
      assert_uniform_slices(samples, low, high - low + 1)
    end
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
    # 1, 2, 10 and 62 characters (the Java path for one-byte ASCII), 3 (not
    # a power of two) and multi-byte characters (MRI's join path).
    alphabets = [%w[q], %w[a b], %w[x y z], ("0".."9").to_a, [*"A".."Z", *"a".."z", *"0".."9"], %w[é ü ß]]
    alphabets.each do |chars|
      text = SecureRandom.alphanumeric(chars.size * 300, chars: chars)
      assert_equal chars.size * 300, text.size
      if chars.size == 1
        assert_equal chars.first * 300, text
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
