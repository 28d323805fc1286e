# frozen_string_literal: true

# Passes all: seeding differs without RDSEED and the library; the fallback passes soak at a tenth of the size.

require_relative "../test_helper"
require_relative "../support/uuid_tally"

# One generator per thread (and per fiber, and per Java thread), each seeded
# on its own: no duplicates, no exceptions, no shared state.
#
# The soak: 16 Ruby threads, 16 fibers and 16 Java threads (calling the Java
# entry point), each making TestHelper.soak_per_worker UUIDs (1M in bin/test's
# main passes, 100k in its fallback passes), all starting at the same
# instant. Every UUID must be distinct, and the SeedLog (a test hook of the
# Java side: digests of each DRBG's seed and initial state) must show that
# every worker had its own generator, seeded from its own seed into a state
# no other generator ever had.
class ConcurrencyTest < Minitest::Test
  WORKERS = 16

  def test_soak_16_ruby_threads
    soak do |tally, per_worker|
      barrier = java.util.concurrent.CyclicBarrier.new(WORKERS)
      threads = Array.new(WORKERS) do |worker|
        Thread.new do
          barrier.await
          record(tally.recorder(worker), per_worker) { SecureRandom.uuid }
        end
      end
      threads.map(&:value)
    end
  end

  def test_soak_16_fibers_interleaved_on_4_threads
    soak do |tally, per_worker|
      barrier = java.util.concurrent.CyclicBarrier.new(4)
      threads = Array.new(4) do |t|
        Thread.new do
          TestHelper.fiber_thread do |fibers|
            barrier.await
            fibers.concat(Array.new(4) do |f|
              Fiber.new { record(tally.recorder(4 * t + f), per_worker, yield_every: UuidTally::BATCH) { SecureRandom.uuid } }
            end)
            run_interleaved(fibers)
          end
        end
      end
      threads.flat_map(&:value)
    end
  end

  def test_soak_16_java_threads_calling_the_java_entry_point
    soak do |tally, per_worker|
      pool = java.util.concurrent.Executors.newFixedThreadPool(WORKERS)
      start = java.util.concurrent.CountDownLatch.new(1)
      begin
        futures = Array.new(WORKERS) do |worker|
          pool.submit(java.util.concurrent.Callable.impl do
            start.await
            record(tally.recorder(worker), per_worker) { Java::Fastrandom::FastRandom.uuid }
          end)
        end
        start.countDown
        futures.map(&:get)
      ensure
        pool.shutdown
      end
    end
  end

  def test_the_tally_finds_a_repeated_uuid
    tally = UuidTally.new(2, 3000)
    uuids = Array.new(6000) { SecureRandom.uuid }
    uuids[4321] = uuids[17] # worker 1 repeats one of worker 0's
    uuids.each_slice(3000).with_index { |slice, worker| recorder = tally.recorder(worker); slice.each { |u| recorder << u }; recorder.finish }
    assert_equal [uuids[17].delete("-")], tally.duplicates
  end

  def test_generators_created_at_the_same_instant_never_share_a_seed_or_state
    log, generators = TestHelper.recording_seeds do
      barrier = java.util.concurrent.CyclicBarrier.new(64)
      threads = Array.new(64) { Thread.new { barrier.await; SecureRandom.uuid; FastRandom::Generator.thread_state[:generator] } }
      threads.map(&:value)
    end
    assert_independently_seeded(log, generators)
  end

  ThreadGenerators = Java::FastrandomRandom::ThreadGenerators

  # A thread or fiber that asks a few times costs no generator of its own and
  # no OS seed: 10,000 fibers that each ask once draw from the shared generators.
  def test_ten_thousand_fibers_that_ask_once_share_generators_and_take_no_os_seed
    SecureRandom.uuid # the primary and the shared generators exist
    before = FastRandom.stats
    uuids = TestHelper.fiber_thread { |fibers| Array.new(10_000) { (fibers << Fiber.new { SecureRandom.uuid }).last.resume } }
    after = FastRandom.stats
    assert_equal 10_000, uuids.uniq.size
    assert_operator after[:seeds] - before[:seeds], :<=, 1, "OS seeds (1 if the primary's 60 s came due)"
    assert_operator after[:generators] - before[:generators], :<=, ThreadGenerators.sharedGenerators,
                    "generators created for 10,000 one-call fibers"
  end

  # A process's first calls are served straight from the OS while the JCE
  # warms up in the background (started by the first call, not at require),
  # then by the DRBGs.
  def test_a_process_starts_on_the_os_then_moves_to_the_drbgs
    out, err, status = TestHelper.jruby(<<~RUBY)
      require "fast_random"
      first = SecureRandom.uuid
      at_first = FastRandom.stats.values_at(:generators, :seeds)
      deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 10
      SecureRandom.uuid until FastRandom.stats[:generators] > 0 || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
      p [first.match?(#{TestHelper::UUID_V4.inspect}), at_first, FastRandom.stats[:generators] > 0, FastRandom.stats[:seeds]]
    RUBY
    assert status.success?, err
    assert_equal "[true, [0, 0], true, 1]", out.lines.last.strip
  end

  # FastRandom::Generator, FastRandom::EC and FastRandom::RSA are defined
  # when first named; threads naming them at once all see them complete
  # (Generator and EC are published only once their methods are defined;
  # RSA, a Ruby file, is autoloaded, so other threads wait for the whole
  # file: before, a thread could see the module and miss its methods).
  def test_modules_defined_on_first_use_are_complete_for_every_thread
    out, err, status = TestHelper.jruby(<<~'RUBY')
      require "fast_random"
      barrier = java.util.concurrent.CyclicBarrier.new(9)
      threads = Array.new(9) do |i|
        Thread.new do
          barrier.await
          [FastRandom::Generator.method(:thread_state), FastRandom::EC.method(:stats), FastRandom::RSA.method(:stats)][i % 3].call.class
        end
      end
      p threads.map(&:value).uniq
    RUBY
    assert status.success?, err
    assert_equal "[Hash]", out.lines.last.strip
  end

  def test_a_thread_gets_its_own_generator_once_it_proves_busy
    TestHelper.wait_for_warm_up # calls served by the OS before it do not count
    states = Array.new(4) do
      Thread.new do
        (ThreadGenerators::OWN_AFTER_CALLS - 1).times { SecureRandom.uuid }
        shared_until_then = !ThreadGenerators.hasOwn
        SecureRandom.uuid
        [shared_until_then, ThreadGenerators.hasOwn, FastRandom::Generator.thread_state[:generator]]
      end
    end.map(&:value)
    assert_equal [[true, true]] * 4, states.map { |s| s.first(2) }
    assert_equal 4, states.map(&:last).uniq.size, "busy threads share a generator"
  end

  # Shared generators hand each caller distinct bytes, whatever the contention.
  def test_threads_on_shared_generators_never_get_the_same_output
    barrier = java.util.concurrent.CyclicBarrier.new(32)
    outputs = Array.new(32) do
      Thread.new do
        barrier.await
        Array.new(ThreadGenerators::OWN_AFTER_CALLS - 1) { SecureRandom.random_bytes(32) }
      end
    end.flat_map(&:value)
    assert_equal outputs.size, outputs.uniq.size
  end

  def test_fibers_interleaved_on_one_thread
    all = TestHelper.fiber_thread do |fibers|
      fibers.concat(Array.new(50) { Fiber.new { Array.new(200) { SecureRandom.uuid.tap { Fiber.yield } } } })
      results = Array.new(50) { [] }
      201.times do
        fibers.each_with_index do |fiber, i|
          value = fiber.resume if fiber.alive?
          results[i] = value if value.is_a?(Array)
        end
      end
      results.flatten
    end
    assert_equal 10_000, all.size
    assert_equal all.size, all.uniq.size
  end

  def test_fibers_inside_many_threads
    threads = Array.new(8) do
      Thread.new do
        TestHelper.fiber_thread do |fibers|
          Array.new(20) { (fibers << Fiber.new { Array.new(500) { SecureRandom.hex(16) } }).last.resume }.flatten
        end
      end
    end
    all = threads.flat_map(&:value)
    assert_equal 80_000, all.uniq.size
  end

  def test_ruby_and_java_callers_on_the_same_threads_share_nothing_unsafe
    threads = Array.new(4) do
      Thread.new do
        Array.new(20_000) { |i| i.even? ? SecureRandom.uuid : Java::Fastrandom::FastRandom.uuid }
      end
    end
    all = threads.flat_map(&:value)
    assert_equal all.size, all.uniq.size
  end

  private

  # Runs the block (the workers, which return their generator numbers)
  # with the SeedLog on, then checks the tally and the log.
  def soak
    per_worker = TestHelper.soak_per_worker
    tally = UuidTally.new(WORKERS, per_worker)
    log, generators = TestHelper.recording_seeds do
      # Threads can be reused: JRuby 9.4 runs fibers on pooled native
      # threads, whose generators may predate the test. reseed! makes every
      # existing generator take a fresh seed before its next output, so each
      # worker's generator is seeded (instantiated or reseeded) while the log runs.
      FastRandom.reseed!
      yield tally, per_worker
    end
    assert_equal [], tally.duplicates, "duplicate UUIDs among #{tally.size} (#{TestHelper.soak_size_note})"
    assert_equal WORKERS, generators.size
    assert_independently_seeded(log, generators)
  end

  # +per_worker+ UUIDs from the block into the recorder (yielding the fiber
  # every +yield_every+); returns the worker's generator number.
  def record(recorder, per_worker, yield_every: nil)
    per_worker.times do |i|
      recorder << yield
      Fiber.yield if yield_every && (i + 1) % yield_every == 0
    end
    recorder.finish
    FastRandom::Generator.thread_state[:generator]
  end

  # Resumes each fiber in turn until all are done; their final values.
  def run_interleaved(fibers)
    results = {}
    until results.size == fibers.size
      fibers.each_with_index do |fiber, i|
        next if results.key?(i)

        value = fiber.resume
        results[i] = value unless fiber.alive?
      end
    end
    results.sort.map(&:last)
  end

  # Every worker had its own generator, which was instantiated while the log
  # ran, and no two seedings in the log took the same seed or reached the
  # same state.
  def assert_independently_seeded(log, generators)
    assert_equal generators.size, generators.uniq.size, "workers shared a generator"
    seeded = log.map { |entry| entry[:generator] }
    assert_empty generators - seeded, "generators not seeded while the test ran"
    assert_equal log.size, log.map { |entry| entry[:seed] }.uniq.size, "two seedings took the same seed"
    assert_equal log.size, log.map { |entry| entry[:state] }.uniq.size, "two generators were in the same state"
  end
end
