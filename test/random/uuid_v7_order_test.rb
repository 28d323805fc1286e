# frozen_string_literal: true

# Passes main: timestamps and order, the same on every generator; each JRuby runs on its own JDK clock.

require_relative "../test_helper"

# What MRI's uuid_v7 promises about order (lib/random/formatter.rb,
# "Monotonicity"), and only that:
# * the first 48 bits are the Unix time in milliseconds, so UUIDs sort by
#   their millisecond (as long as the system clock does not step back);
# * with extra_timestamp_bits: k (1..12) the next k bits are the fraction of
#   the millisecond, floor(ns_in_ms * 2**k / 1e6), so they sort with
#   1/2**k ms precision (12 bits: ~244 ns);
# * without extra bits, UUIDs made within the same millisecond are NOT in
#   order ("not issued in monotonically increasing order"): the rest is random.
class UuidV7OrderTest < Minitest::Test
  def millis(uuid)
    uuid.delete("-")[0, 12].to_i(16)
  end

  # The 12 bits after the version nibble (rand_a).
  def rand_a(uuid)
    uuid.delete("-")[13, 3].to_i(16)
  end

  # The clock uuid_v7 reads (the JDK's CLOCK_REALTIME, to the nanosecond).
  # Not JRuby's Process.clock_gettime(CLOCK_REALTIME): that is gettimeofday,
  # to the microsecond, so a UUID made in the same microsecond as the reading
  # after it would seem to come later than it (with 11 or 12 extra bits,
  # about half of all warm calls did).
  def now_ns
    now = java.time.Instant.now
    now.epoch_second * 1_000_000_000 + now.nano
  end

  # What the prefix must be for a UUID made at +ns+ with +bits+ extra bits.
  def expected_prefix(ns, bits)
    ms, in_ms = ns.divmod(1_000_000)
    (ms << bits) | (in_ms * (1 << bits) / 1_000_000)
  end

  def test_the_timestamp_prefix_never_goes_back
    [0, 1, 6, 11, 12].each do |bits|
      uuids = Array.new(5000) { SecureRandom.uuid_v7(extra_timestamp_bits: bits) }
      prefixes = uuids.map { |u| (millis(u) << bits) | (rand_a(u) >> (12 - bits)) }
      assert_equal prefixes.sort, prefixes, "the #{48 + bits}-bit timestamp went back (extra_timestamp_bits: #{bits})"
    end
  end

  def test_extra_bits_are_the_fraction_of_the_millisecond
    (0..12).each do |bits|
      20.times do
        before = now_ns
        uuid = SecureRandom.uuid_v7(extra_timestamp_bits: bits)
        after = now_ns
        actual = (millis(uuid) << bits) | (rand_a(uuid) >> (12 - bits))
        assert_includes expected_prefix(before, bits)..expected_prefix(after, bits), actual,
                        "#{uuid} (extra_timestamp_bits: #{bits}) not made between #{before} and #{after} ns"
      end
    end
  end

  def test_with_12_extra_bits_uuids_more_than_244_ns_apart_sort_in_order
    burst = Array.new(200) { SecureRandom.uuid_v7(extra_timestamp_bits: 12).tap { sleep 0.0002 } }
    assert_equal burst.sort, burst
  end

  def test_within_a_millisecond_order_is_not_promised_without_extra_bits
    # Consecutive UUIDs of the same millisecond: the rest is random, so the
    # later one sorts first about half the time. The bound is where a fair
    # coin lands with probability ~1e-6 (z = 4.9).
    pairs = Array.new(20_000) { SecureRandom.uuid_v7 }.each_cons(2).select { |a, b| millis(a) == millis(b) }
    assert_operator pairs.size, :>=, 1000, "too few UUIDs within one millisecond to tell"
    ascending = pairs.count { |a, b| a < b }
    bound = 4.9 * Math.sqrt(pairs.size) / 2
    assert_in_delta pairs.size / 2.0, ascending, bound, "#{ascending} of #{pairs.size} same-millisecond pairs in order"
  end

  def test_the_random_bits_stay_random_with_extra_timestamp_bits
    # With k extra bits, the low 12 - k bits of rand_a and the 62 bits of
    # rand_b are random: every value of the low rand_a bits occurs.
    uuids = Array.new(4000) { SecureRandom.uuid_v7(extra_timestamp_bits: 8) }
    assert_equal (0...16).to_a, uuids.map { |u| rand_a(u) & 0xf }.uniq.sort
    assert_equal 4000, uuids.map { |u| u.delete("-")[16, 16] }.uniq.size
  end
end
