# frozen_string_literal: true

# Millions of UUIDs without millions of Strings: each worker's UUIDs go into
# its own slice of one Java long[] as their 128-bit values (two longs each),
# a thousand at a time (one join, one hex decode by the JDK's HexFormat), and
# #duplicates sorts a copy of the longs to find repeats. 16M UUIDs take
# 256 MB this way instead of gigabytes as a Set of Strings.
class UuidTally
  BATCH = 1000

  # One worker's view: feed it UUID strings with <<, then #finish.
  class Recorder
    def initialize(longs, offset, capacity)
      @longs = longs
      @offset = offset
      @capacity = capacity
      @count = 0
      @pending = []
    end

    attr_reader :count

    def <<(uuid)
      @pending << uuid
      flush if @pending.size == BATCH
      self
    end

    def finish
      flush
      raise ArgumentError, "#{@count} UUIDs recorded, room for #{@capacity}" unless @count == @capacity

      self
    end

    private

    def flush
      return if @pending.empty?
      raise ArgumentError, "more than #{@capacity} UUIDs for this worker" if @count + @pending.size > @capacity

      text = @pending.join
      raise ArgumentError, "not #{@pending.size} UUIDs: #{text[0, 80]}..." unless text.size == 36 * @pending.size

      raw = java.util.HexFormat.of.parseHex(text.delete("-"))
      java.nio.ByteBuffer.wrap(raw).asLongBuffer.get(@longs, @offset + 2 * @count, 2 * @pending.size)
      @count += @pending.size
      @pending.clear
    end
  end

  attr_reader :size

  def initialize(workers, per_worker)
    @workers = workers
    @per_worker = per_worker
    @size = workers * per_worker
    @longs = Java::long[2 * @size].new
  end

  def recorder(worker)
    raise ArgumentError, "worker #{worker} of #{@workers}" unless (0...@workers).cover?(worker)

    Recorder.new(@longs, 2 * worker * @per_worker, @per_worker)
  end

  # The UUIDs (as 32 hex digits) recorded more than once. Sorts a copy of
  # all the longs: a repeated UUID repeats both its longs. A long can also
  # repeat by chance (two 60-bit halves of different UUIDs, about once in
  # 5,000 runs of 16M); such values are looked up in the unsorted longs and
  # only whole repeated UUIDs are reported.
  def duplicates
    sorted = java.util.Arrays.copyOf(@longs, @longs.length)
    java.util.Arrays.parallelSort(sorted)
    # The JDK counts the distinct values of a sorted stream by comparing
    # neighbours, in under a second for 32M longs; only when some repeat does
    # the scan below (seconds, a Ruby loop over a Java array) look for them.
    # (#sorted, which tells the stream its order, sorts a copy: 256 MB more
    # for 16M UUIDs, for a moment.)
    return [] if java.util.stream.LongStream.of(sorted).sorted.distinct.count == sorted.length

    repeated = repeated_values(sorted)
    return [] if repeated.empty?

    seen = Hash.new(0)
    (0...@size).each do |i|
      high = @longs[2 * i]
      low = @longs[2 * i + 1]
      seen[[high, low]] += 1 if repeated.include?(high) || repeated.include?(low)
    end
    seen.select { |_, n| n > 1 }.keys.map { |high, low| format("%016x%016x", high & (2**64 - 1), low & (2**64 - 1)) }
  end

  private

  def repeated_values(sorted)
    repeated = []
    previous = sorted[0]
    i = 1
    n = sorted.length
    while i < n
      value = sorted[i]
      repeated << value if value == previous
      previous = value
      i += 1
    end
    repeated.uniq
  end
end
