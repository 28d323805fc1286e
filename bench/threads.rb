# frozen_string_literal: true

# Total throughput of 1, 2, 4 and 8 long-lived Ruby threads calling
# SecureRandom at once, as a server's thread pool does: each thread count has
# its threads started once, before anything is timed, and every timed block
# hands each of them its share of the calls and waits for all to finish. A
# per-thread generator scales with the cores (this machine's 2, so 4 and 8
# threads show what oversubscription costs), a shared lock does not, and
# MRI's global lock runs one thread at a time. (Fresh threads that ask once
# are bench/cold.rb's.)
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
Bench.ips do |x|
  Bench::THREAD_CALLS.each do |name|
    Bench::THREAD_COUNTS.each do |threads|
      x.report(Bench::ThreadPool.label(name, threads)) { |calls| pools.fetch(threads).run(calls, name) }
    end
  end
end
