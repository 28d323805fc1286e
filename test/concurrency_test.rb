# frozen_string_literal: true

require_relative "test_helper"

# One generator per thread (and per fiber, and per Java thread), each seeded
# on its own: no duplicates, no exceptions, no shared state.
class ConcurrencyTest < Minitest::Test
  def test_16_threads_200k_uuids_each_are_all_distinct
    threads = Array.new(16) { Thread.new { Array.new(200_000) { SecureRandom.uuid } } }
    all = threads.flat_map(&:value)
    assert_equal 3_200_000, all.size
    assert_equal all.size, all.to_set.size, "duplicate UUIDs across threads"
  end

  def test_threads_started_together_get_different_streams
    gate = Queue.new
    threads = Array.new(32) { Thread.new { gate.pop; SecureRandom.random_bytes(32) } }
    32.times { gate << true }
    firsts = threads.map(&:value)
    assert_equal 32, firsts.uniq.size
  end

  def test_each_thread_has_its_own_generator
    before = FastRandom.stats[:generators]
    Array.new(4) { Thread.new { SecureRandom.uuid } }.each(&:join)
    assert_operator FastRandom.stats[:generators] - before, :>=, 4
  end

  def test_fibers_interleaved_on_one_thread
    fibers = Array.new(50) do
      Fiber.new do
        Array.new(200) { SecureRandom.uuid.tap { Fiber.yield } }
      end
    end
    results = Array.new(50) { [] }
    201.times do
      fibers.each_with_index do |fiber, i|
        value = fiber.resume if fiber.alive?
        results[i] = value if value.is_a?(Array)
      end
    end
    all = results.flatten
    assert_equal 10_000, all.size
    assert_equal all.size, all.uniq.size
  end

  def test_fibers_inside_many_threads
    threads = Array.new(8) do
      Thread.new do
        Array.new(20) { Fiber.new { Array.new(500) { SecureRandom.hex(16) } }.resume }.flatten
      end
    end
    all = threads.flat_map(&:value)
    assert_equal 80_000, all.uniq.size
  end

  def test_java_threads_calling_the_java_entry_point
    pool = java.util.concurrent.Executors.newFixedThreadPool(8)
    tasks = Array.new(8) do
      pool.submit(java.util.concurrent.Callable.impl do
        Array.new(50_000) { Java::Fastrandom::FastRandom.uuid }
      end)
    end
    all = tasks.flat_map(&:get)
    pool.shutdown
    assert_equal 400_000, all.size
    assert_equal all.size, all.to_set.size
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
end
