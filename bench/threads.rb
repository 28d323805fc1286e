# frozen_string_literal: true

# Total calls per second of 1, 2, 4 and 8 long-lived threads making the same
# call at once (bench/support/thread_pool.rb: started once, like a server's
# pool, looping freely while the counts are sampled).
#   ruby bench/threads.rb
#   BENCH_VARIANT=fast_random bin/jruby bench/threads.rb
require_relative "support/harness"
require_relative "support/calls"
require_relative "support/thread_pool"

Bench.load_subject

module Bench
  THREAD_CALLS = ["uuid", "random_bytes(4096)"].freeze
  THREAD_COUNTS = [1, 2, 4, 8].freeze
end

pools = Bench::THREAD_COUNTS.to_h { |n| [n, Bench::ThreadPool.new(n) { |name, calls| Bench::Calls.run(name, calls) }] }
Bench.threads do |add|
  Bench::THREAD_CALLS.each do |name|
    pools.each { |threads, pool| add.call(Bench::ThreadPool.label(name, threads), pool, name, chunk: 1000) }
  end
end
