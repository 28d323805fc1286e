# frozen_string_literal: true

# Total throughput of 1, 2, 4 and 8 Ruby threads calling SecureRandom at
# once: a per-thread generator scales with the cores (this machine's 2, so 4
# and 8 threads show what oversubscription costs), a shared lock does not, and
# MRI's global lock runs one thread at a time.
#
# Each benchmark-ips iteration is a batch of calls (BATCHES) shared out among
# the threads, which start together and are joined at the end; the threads
# are new for every block call, so each measured block call (about 100 ms of
# batches) pays for starting them once. benchmark-ips's numbers are therefore
# batches per second: bench/run.rb multiplies them (and their error) by the
# batch size, which the notes record, to give calls per second.
#   BENCH_VARIANT=fast_random bin/jruby bench/threads.rb
require_relative "support/harness"
require_relative "support/calls"

Bench.load_subject

module Bench
  module ThreadCalls
    # The calls, with the calls per batch: big enough that warming up
    # (benchmark-ips calls the block with 1 then, to size its measurement) is
    # not all thread start-up; small enough for hundreds of batches a second
    # on the slowest Ruby, as benchmark-ips rounds its error to whole
    # iterations per second.
    BATCHES = { "uuid" => 1_000, "random_bytes(4096)" => 100 }.freeze
    THREADS = [1, 2, 4, 8].freeze

    module_function

    # Makes +batches+ batches of the calls named +name+ in +threads+ threads.
    def run(name, threads, batches)
      share, extra = (batches * BATCHES.fetch(name)).divmod(threads)
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
entries = calls::BATCHES.keys.product(calls::THREADS)
Bench.ips("calls_per_iteration" => entries.to_h { |name, n| [calls.label(name, n), calls::BATCHES.fetch(name)] }) do |x|
  calls::BATCHES.each_key do |name|
    calls::THREADS.each do |threads|
      x.report(calls.label(name, threads)) { |batches| calls.run(name, threads, batches) }
    end
  end
end
