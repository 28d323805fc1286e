# frozen_string_literal: true

# Single-thread throughput of the SecureRandom calls Rails apps make, under
# benchmark-ips, in whichever Ruby runs it (see bench/support/harness.rb).
#   BENCH_VARIANT=stock bin/jruby bench/secure_random.rb
#   BENCH_VARIANT=fast_random bin/jruby bench/secure_random.rb
#   ruby bench/secure_random.rb
require_relative "support/harness"
require_relative "support/calls"

Bench.load_subject
Bench.load_ips

only = ENV["BENCH_CASES"]&.split(";")
cases = only ? Bench::Calls::ALL.slice(*only) : Bench::Calls::ALL

report = Benchmark.ips(**Bench.ips_times, quiet: ENV.key?("BENCH_OUTPUT")) do |x|
  cases.each_key do |name|
    x.report(name) { |times| Bench::Calls.run(name, times) }
  end
end

results = report.entries.to_h do |entry|
  bytes = cases.fetch(entry.label).last
  row = { "ips" => entry.ips.to_f, "ips_sd" => entry.ips_sd.to_f }
  row["bytes_per_second"] = entry.ips.to_f * bytes if bytes
  [entry.label, row]
end

Bench.emit("benchmark" => "secure_random", "results" => results)
