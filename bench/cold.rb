# frozen_string_literal: true

# The cold paths, where a generator per thread costs the most: a fresh fiber
# (on JRuby 10, a virtual thread) or a fresh thread that asks once, as
# fiber-per-request servers (async, falcon), Enumerator#next and a thread per
# job do. Each iteration starts one, makes one SecureRandom.uuid in it and
# waits for it to end. The notes record, for fast_random, the OS seeds and
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
notes = { "10,000 one-call fibers" => Bench::Cold.fiber_costs }
Bench.ips(notes) do |x|
  x.report("fresh fiber + uuid") { |n| Bench::Cold.fresh_fiber(n) }
  x.report("fresh thread + uuid") { |n| Bench::Cold.fresh_thread(n) }
end
