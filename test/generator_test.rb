# frozen_string_literal: true

require_relative "test_helper"

# The per-thread generator's state hygiene: reseeding really changes the DRBG
# state, the reseed limits apply, and bytes handed out are wiped from the buffer.
class GeneratorTest < Minitest::Test
  ThreadGenerators = Java::FastrandomRandom::ThreadGenerators
  ReseedPolicy = Java::FastrandomRandom::ReseedPolicy
  BufferedRandom = Java::FastrandomRandom::BufferedRandom

  def in_fresh_thread(&block)
    Thread.new(&block).value
  end

  def with_policy(max_bytes, max_age_nanos)
    ThreadGenerators.setReseedPolicy(ReseedPolicy.new(max_bytes, max_age_nanos))
    yield
  ensure
    ThreadGenerators.setReseedPolicy(ReseedPolicy::DEFAULT)
  end

  def test_seeds_from_the_os_without_blocking
    assert_match(/\ANativePRNGNonBlocking(\+RDSEED|\+RDRAND)?\z/, FastRandom::Generator.entropy_source)
  end

  def test_reseed_changes_the_state_and_drops_buffered_output
    in_fresh_thread do
      SecureRandom.uuid
      before = FastRandom::Generator.thread_state
      FastRandom.reseed!
      after = FastRandom::Generator.thread_state
      assert_equal before[:seeds] + 1, after[:seeds]
      refute_equal before[:fingerprint], after[:fingerprint]
      assert_equal 0, after[:bytes_since_seed]
    end
  end

  def test_reseed_reaches_other_threads_before_their_next_output
    queue = Queue.new
    done = Queue.new
    worker = Thread.new do
      SecureRandom.uuid
      seeds = FastRandom::Generator.thread_state[:seeds]
      queue << :ready
      done.pop
      SecureRandom.uuid
      FastRandom::Generator.thread_state[:seeds] - seeds
    end
    queue.pop
    FastRandom.reseed!
    done << :go
    assert_equal 1, worker.value
  end

  def test_reseeds_after_the_byte_limit
    with_policy(256 * 1024, 60_000_000_000) do
      seeds = in_fresh_thread do
        SecureRandom.random_bytes(1 << 20)
        FastRandom::Generator.thread_state[:seeds]
      end
      assert_operator seeds, :>=, 4
    end
  end

  def test_reseeds_after_the_time_limit
    with_policy(1 << 40, 1_000_000) do # 1 ms
      seeds = in_fresh_thread do
        3.times { sleep 0.01; SecureRandom.random_bytes(70_000) }
        FastRandom::Generator.thread_state[:seeds]
      end
      assert_operator seeds, :>=, 3
    end
  end

  def test_the_default_policy_is_64_mib_and_60_seconds
    assert_equal 64 << 20, ReseedPolicy::DEFAULT_MAX_BYTES
    assert_equal 60_000_000_000, ReseedPolicy::DEFAULT_MAX_AGE_NANOS
  end

  def test_handed_out_bytes_are_zeroed_in_the_buffer
    in_fresh_thread do
      SecureRandom.random_bytes(10)
      generator = ThreadGenerators.current
      field = BufferedRandom.java_class.to_java.getDeclaredField("buffer")
      field.setAccessible(true)
      position_field = BufferedRandom.java_class.to_java.getDeclaredField("position")
      position_field.setAccessible(true)
      SecureRandom.random_bytes(100)
      buffer = field.get(generator).to_a
      position = position_field.get(generator)
      assert_operator position, :>, 100
      assert_equal [0] * position, buffer[0, position], "handed-out bytes still in the buffer"
      refute_equal [0] * (buffer.size - position), buffer[position..], "the rest is still random"
    end
  end

  def test_refills_stay_within_one_generate_request
    assert_equal 65_536, Java::FastrandomRandom::CtrDrbg::MAX_BYTES_PER_REQUEST
  end
end
