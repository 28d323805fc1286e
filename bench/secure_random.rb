# frozen_string_literal: true

# Single-thread throughput of the SecureRandom calls Rails apps make, under
# benchmark-ips, in whichever Ruby runs it (see bench/support/harness.rb).
#   BENCH_VARIANT=stock bin/jruby bench/secure_random.rb
#   BENCH_VARIANT=fast_random bin/jruby bench/secure_random.rb
#   ruby bench/secure_random.rb
require_relative "support/harness"

Bench.load_subject
Bench.load_ips

# name => [bytes of randomness per call (for MB/s), the call]
CASES = {
  "uuid" => [16, -> { SecureRandom.uuid }],
  "hex(16)" => [16, -> { SecureRandom.hex(16) }],
  "random_bytes(16)" => [16, -> { SecureRandom.random_bytes(16) }],
  "random_bytes(4096)" => [4096, -> { SecureRandom.random_bytes(4096) }],
  "random_number(1000)" => [nil, -> { SecureRandom.random_number(1000) }],
  "alphanumeric(20)" => [nil, -> { SecureRandom.alphanumeric(20) }],
}.freeze

only = ENV["BENCH_CASES"]&.split(",")
cases = only ? CASES.select { |name, _| only.include?(name) } : CASES

report = Benchmark.ips(**Bench.ips_times, quiet: ENV.key?("BENCH_OUTPUT")) do |x|
  cases.each do |name, (_, call)|
    # The times-form keeps the harness's per-call overhead out of the numbers.
    x.report(name) do |times|
      i = 0
      while i < times
        call.call
        i += 1
      end
    end
  end
end

results = report.entries.to_h do |entry|
  bytes = cases.fetch(entry.label).first
  row = { "ips" => entry.ips.to_f, "ips_sd" => entry.ips_sd.to_f }
  row["bytes_per_second"] = entry.ips.to_f * bytes if bytes
  [entry.label, row]
end

Bench.emit("benchmark" => "secure_random", "results" => results)
