# frozen_string_literal: true

# Total throughput of 1, 2, 4 and 8 Ruby threads calling SecureRandom at
# once: a per-thread generator scales with the cores (this machine's 2, so 4
# and 8 threads show what oversubscription costs), a shared lock does not, and
# MRI's global lock runs one thread at a time.
#
# Each benchmark-ips iteration is a batch of BATCH calls shared out among the
# threads, which start together and are joined at the end; the threads are
# new for every block call, so each measured block call (about 100 ms of
# batches) pays for starting them once. benchmark-ips's numbers are therefore
# batches per second: bench/run.rb multiplies them (and their error) by BATCH,
# which the notes record, to give calls per second.
#   BENCH_VARIANT=fast_random bin/jruby bench/threads.rb
require_relative "support/harness"
require_relative "support/calls"

Bench.load_subject

module Bench
  module ThreadCalls
    CALLS = ["uuid", "random_bytes(4096)"].freeze
    THREADS = [1, 2, 4, 8].freeze

    # Big enough that warming up (benchmark-ips calls the block with 1 then,
    # to size its measurement) is not all thread start-up; small enough for
    # a few batches a second on MRI's random_bytes(4096).
    BATCH = 10_000

    module_function

    # Makes +batches+ x BATCH calls named +name+ in +threads+ threads.
    def run(name, threads, batches)
      share, extra = (batches * BATCH).divmod(threads)
      workers = Array.new(threads) do |i|
        Thread.new(share + (i < extra ? 1 : 0)) { |calls| Calls.run(name, calls) }
      end
      workers.each(&:join)
    end

    def label(name, threads)
      "#{name}, #{threads} thread#{"s" unless threads == 1}"
    end
  end
end

calls = Bench::ThreadCalls
Bench.ips("calls_per_iteration" => calls::BATCH,
          "threads" => calls::CALLS.product(calls::THREADS).to_h { |name, n| [calls.label(name, n), n] }) do |x|
  calls::CALLS.each do |name|
    calls::THREADS.each do |threads|
      x.report(calls.label(name, threads)) { |batches| calls.run(name, threads, batches) }
    end
  end
end
