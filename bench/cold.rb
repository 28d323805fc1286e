# frozen_string_literal: true

# The cold paths, where a generator per thread costs the most: a fresh fiber
# (on JRuby 10, a virtual thread) or a fresh thread that asks once, as
# fiber-per-request servers (async, falcon), Enumerator#next and a thread per
# job do. Each iteration starts one, makes one SecureRandom.uuid in it and
# waits for it to end: thread or fiber start and the call. The notes record
# the call alone (the median time of the first uuid inside 2,000 fresh
# threads and fibers, timed in them, where starting them, which no library
# changes, does not blur it) and, for fast_random, the OS seeds and
# generators that 10,000 one-call fibers took (FastRandom.stats).
#   BENCH_VARIANT=fast_random bin/jruby bench/cold.rb
require_relative "support/harness"

Bench.load_subject

module Bench
  module Cold
    module_function

    def fresh_fiber(n)
      i = 0
      while i < n
        Fiber.new { SecureRandom.uuid }.resume
        i += 1
      end
    end

    def fresh_thread(n)
      i = 0
      while i < n
        Thread.new { SecureRandom.uuid }.join
        i += 1
      end
    end

    # The median time, in microseconds, of the first uuid inside a fresh
    # thread or fiber (+start_and_wait+ runs the block in a fresh one and
    # returns its value).
    def first_call_micros(count = 2_000, &start_and_wait)
      times = Array.new(count) do
        start_and_wait.call do
          started = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
          SecureRandom.uuid
          Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond) - started
        end
      end
      (times.sort[count / 2] / 1000.0).round(2)
    end

    def in_fresh_thread(&block)
      Thread.new(&block).value
    end

    def in_fresh_fiber(&block)
      Fiber.new(&block).resume
    end

    # What 10,000 fibers that ask once cost fast_random: OS seeds and generators.
    def fiber_costs
      return {} unless defined?(FastRandom)

      before = FastRandom.stats
      fresh_fiber(10_000)
      after = FastRandom.stats
      { "fibers" => 10_000, "os_seeds" => after[:seeds] - before[:seeds],
        "generators" => after[:generators] - before[:generators] }
    end
  end
end

SecureRandom.uuid
cold = Bench::Cold
first_calls = 3.times.map do # the last of three rounds, once the JIT has seen the code
  { "thread" => cold.first_call_micros { |&b| cold.in_fresh_thread(&b) },
    "fiber" => cold.first_call_micros { |&b| cold.in_fresh_fiber(&b) } }
end.last
notes = { "10,000 one-call fibers" => cold.fiber_costs, "first uuid, microseconds" => first_calls }
Bench.ips(notes) do |x|
  x.report("fresh fiber + uuid") { |n| Bench::Cold.fresh_fiber(n) }
  x.report("fresh thread + uuid") { |n| Bench::Cold.fresh_thread(n) }
end
