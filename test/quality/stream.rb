# frozen_string_literal: true

# Writes fast_random output to stdout as raw bytes, for the statistical
# batteries of `rake quality` (test/quality/battery.rb): runs under
# bin/jruby with the built gem and keeps writing until the reader closes
# the pipe or LIMIT bytes are out.
#
#   bin/jruby -rfast_random test/quality/stream.rb bytes|uuid drbg|rdrand [LIMIT]
#
# bytes: SecureRandom.random_bytes, with request sizes cycling through
#   REQUEST_SIZES, so the stream covers the per-thread buffer (small
#   requests), its refills and the direct path for requests of 64 KiB or more.
# uuid: SecureRandom.uuid strings, decoded back to their 122 random bits
#   (the 4 version bits and 2 variant bits dropped) and packed end to end,
#   1,024 UUIDs (15,616 bytes) at a time.
#
# At exit it prints "stream: N bytes" to stderr.

module QualityStream
  REQUEST_SIZES = [16, 1, 4096, 3, 100_000, 32, 65_536, 7, 1000, 131_072].freeze

  UUID_BATCH = 1024
  # Over the bit string of UUID_BATCH UUIDs without dashes: keep 48 bits
  # (time_low, time_mid), skip the 4 version bits, keep 12 (the rest of
  # time_hi), skip the 2 variant bits, keep 62.
  UUID_BITS = "a48x4a12x2a62" * UUID_BATCH

  module_function

  # Each request is written as it is (no concatenation: copying into a
  # growing String costs more than the small writes).
  def bytes_chunks
    REQUEST_SIZES.map { |n| SecureRandom.random_bytes(n) }
  end

  def uuid_chunks
    text = String.new(capacity: 36 * UUID_BATCH)
    UUID_BATCH.times { text << SecureRandom.uuid }
    [[[text.delete("-")].pack("H*").unpack1("B*").unpack(UUID_BITS).join].pack("B*")]
  end

  def run(mode, backend, limit)
    FastRandom.backend = backend.to_sym
    chunks = { "bytes" => method(:bytes_chunks), "uuid" => method(:uuid_chunks) }.fetch(mode) do
      abort "usage: stream.rb bytes|uuid drbg|rdrand [LIMIT]"
    end
    out = $stdout.binmode
    written = 0
    begin
      while limit.nil? || written < limit
        chunks.call.each do |data|
          data = data.byteslice(0, limit - written) if limit && written + data.bytesize > limit
          written += out.write(data)
        end
      end
      out.flush
    rescue Errno::EPIPE, IOError
      # the battery has read all it wanted
    ensure
      $stderr.puts "stream: #{written} bytes"
    end
  end
end

QualityStream.run(ARGV[0], ARGV[1] || "drbg", ARGV[2]&.then { |n| Integer(n) }) if $PROGRAM_NAME == __FILE__
