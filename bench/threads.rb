# frozen_string_literal: true

# Throughput with 1 and with 2 Ruby threads calling SecureRandom at once:
# a per-thread generator should scale with the cores, a shared lock won't.
# Each round runs every thread for a fixed time; the result is the median of
# the rounds, rounds alternating 1 and 2 threads so drift hits both alike.
#   BENCH_VARIANT=fast_random bin/jruby bench/threads.rb
require_relative "support/harness"
require_relative "support/calls"

Bench.load_subject

OPERATIONS = ["uuid", "random_bytes(4096)"].freeze
THREAD_COUNTS = [1, 2].freeze
BATCH = 1_000

# Calls per second summed over `threads` threads that each make the call
# named +name+ until `seconds` have passed. Threads start together and check
# the clock every BATCH calls, so the clock costs nothing measurable.
def throughput(threads, seconds, name)
  method = Bench::Calls::ALL.fetch(name).first
  ready = Queue.new
  go = Queue.new
  workers = Array.new(threads) do
    Thread.new do
      ready << true
      go.pop
      start = Bench.clock
      deadline = start + seconds
      calls = 0
      loop do
        Bench::Calls.public_send(method, BATCH)
        calls += BATCH
        now = Bench.clock
        break calls / (now - start) if now >= deadline
      end
    end
  end
  threads.times { ready.pop }
  threads.times { go << true }
  workers.sum(&:value)
end

seconds = Bench.quick? ? 1.0 : 3.0
rounds = Bench.quick? ? 1 : 3

results = OPERATIONS.to_h do |name|
  bytes = Bench::Calls::ALL.fetch(name).last
  THREAD_COUNTS.each { |n| throughput(n, seconds, name) } # warm up the JIT on both shapes
  samples = THREAD_COUNTS.to_h { |n| [n, []] }
  rounds.times { THREAD_COUNTS.each { |n| samples[n] << throughput(n, seconds, name) } }
  row = samples.to_h do |n, ips|
    median = ips.sort[ips.size / 2]
    ["threads_#{n}", { "ips" => median, "bytes_per_second" => median * bytes, "samples" => ips }]
  end
  row["scaling"] = row["threads_2"]["ips"] / row["threads_1"]["ips"]
  [name, row]
end

Bench.emit("benchmark" => "threads", "results" => results)
