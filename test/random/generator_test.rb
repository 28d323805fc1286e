# frozen_string_literal: true

# Passes all: reseeding draws from RDSEED and the OS, or from the OS alone in the fallback passes.

require_relative "../test_helper"

# The per-thread generator's state hygiene: reseeding really changes the DRBG
# state, the reseed limits apply, and bytes handed out are wiped from the buffer.
class GeneratorTest < Minitest::Test
  ThreadGenerators = Java::FastrandomRandom::ThreadGenerators
  GeneratorFaults = Java::FastrandomRandom::GeneratorFaults
  ReseedPolicy = Java::FastrandomRandom::ReseedPolicy
  BufferedRandom = Java::FastrandomRandom::BufferedRandom

  # A new thread with its own generator from its first call.
  def in_fresh_thread(&block)
    Thread.new { TestHelper.own_generator; block.call }.value
  end

  def with_policy(max_bytes, max_age_nanos)
    GeneratorFaults.setReseedPolicy(ReseedPolicy.new(max_bytes, max_age_nanos)) # the test build's (test/java)
    yield
  ensure
    GeneratorFaults.setReseedPolicy(nil)
  end

  def test_seeds_from_the_os_without_blocking
    assert_match(/\ANativePRNGNonBlocking(\+RDSEED|\+RDRAND)?\z/, FastRandom::Generator.entropy_source)
  end

  def test_a_copy_of_the_drbg_predicts_the_next_refill
    # The control for the tests below: without a reseed, a copy of the DRBG
    # taken once the buffer is empty generates exactly the generator's next
    # output; so when they differ, the state really changed.
    predicted, actual, seeds = prediction_after {}
    assert_equal predicted, actual
    assert_equal 0, seeds
  end

  def test_reseed_bang_changes_what_comes_next
    predicted, actual, seeds = prediction_after { FastRandom.reseed! }
    refute_equal predicted, actual, "reseed! kept the old state"
    assert_equal 1, seeds
  end

  def test_reseed_bang_changes_what_other_threads_make_next
    ready = Queue.new
    go = Queue.new
    worker = Thread.new do
      TestHelper.own_generator
      SecureRandom.uuid
      copy = drained_copy
      ready << true
      go.pop
      [generate(copy, 48), SecureRandom.random_bytes(48)]
    end
    ready.pop
    FastRandom.reseed!
    go << true
    predicted, actual = worker.value
    refute_equal predicted, actual, "the other thread went on from its old state"
  end

  def test_the_byte_limit_reseed_changes_what_comes_next
    # A 1-byte limit: every refill is due for a reseed.
    predicted, actual, seeds = with_policy(1, ReseedPolicy::DEFAULT_MAX_AGE_NANOS) { prediction_after {} }
    refute_equal predicted, actual
    assert_equal 1, seeds
  end

  def test_the_age_limit_reseed_changes_what_comes_next
    predicted, actual, seeds = with_policy(ReseedPolicy::DEFAULT_MAX_BYTES, 1_000_000) do # 1 ms
      prediction_after { sleep 0.01 }
    end
    refute_equal predicted, actual
    assert_equal 1, seeds
  end

  def test_the_default_policy_reseeds_after_64_mib_and_not_before
    chunk = 1 << 20
    in_fresh_thread do
      SecureRandom.random_bytes(1) # the first refill (1 KiB)
      63.times { SecureRandom.random_bytes(chunk) }
      assert_equal 1, FastRandom::Generator.thread_state[:seeds], "reseeded before 64 MiB"
      SecureRandom.random_bytes(chunk)
      assert_equal 1, FastRandom::Generator.thread_state[:seeds], "reseeded before 64 MiB"
      assert_operator FastRandom::Generator.thread_state[:bytes_since_seed], :>=, ReseedPolicy::DEFAULT_MAX_BYTES
      copy = drained_copy
      refute_equal generate(copy, 48), SecureRandom.random_bytes(48), "no reseed at 64 MiB"
      assert_equal 2, FastRandom::Generator.thread_state[:seeds]
    end
  end

  def test_one_threads_state_and_buffer_never_reach_another
    ready = Queue.new
    done = Queue.new
    a = Thread.new do
      TestHelper.own_generator
      SecureRandom.uuid
      buffered = unread_buffer
      copy = GeneratorFaults.copyOfDrbg(ThreadGenerators.own)
      ready << [FastRandom::Generator.thread_state, buffered, generate(copy, 1 << 16)]
      done.pop
      SecureRandom.random_bytes(buffered.bytesize) # A's own next output: its buffer
    end
    state_a, buffered_a, next_refill_a = ready.pop
    state_b, output_b = Thread.new do
      TestHelper.own_generator
      [FastRandom::Generator.thread_state, SecureRandom.random_bytes(1 << 20)]
    end.value
    done << true
    assert_equal buffered_a, a.value, "A's buffer was not A's next output"
    refute_equal state_a[:generator], state_b[:generator]
    refute_equal state_a[:fingerprint], state_b[:fingerprint]
    [buffered_a[0, 32], next_refill_a[0, 32]].each do |window|
      refute_includes output_b, window, "thread B handed out thread A's bytes"
    end
  end

  def test_fibers_alive_together_have_their_own_generators
    # Fibers alive at the same time never share a generator (JRuby 10 runs
    # each on a virtual thread, 9.4 on a pooled thread; a finished fiber's
    # pooled thread, and its generator, may serve a later fiber).
    own, generators = TestHelper.fiber_thread do |fibers|
      TestHelper.own_generator
      own = FastRandom::Generator.thread_state[:generator]
      fibers.concat(Array.new(3) { Fiber.new { SecureRandom.uuid; Fiber.yield FastRandom::Generator.thread_state[:generator] } })
      generators = fibers.map(&:resume)
      fibers.each(&:resume)
      [own, generators]
    end
    refute_includes generators, own
    assert_equal 3, generators.uniq.size
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
      TestHelper.own_generator
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

  # The seeding tree: reseed! makes the primary take a fresh OS seed at once
  # (one OS seed, generator 0 in the SeedLog), and a shared generator reseeds
  # from it before its next output, which a copy taken before no longer predicts.
  def test_reseed_bang_reseeds_the_primary_from_the_os_and_reaches_shared_generators
    TestHelper.wait_for_warm_up
    predicted, actual, log, os_seeds = Thread.new do
      shared = ThreadGenerators.forCall # a fresh thread's first call: a shared generator
      assert shared.isShared
      shared.nextBytes(Java::byte[shared.buffered].new) # drained: a copy predicts the next refill
      copy = GeneratorFaults.copyOfDrbg(shared)
      before = FastRandom.stats[:seeds]
      log, actual = TestHelper.recording_seeds do
        FastRandom.reseed!
        out = Java::byte[48].new
        shared.nextBytes(out)
        String.from_java_bytes(out)
      end
      [generate(copy, 48), actual, log, FastRandom.stats[:seeds] - before]
    end.value
    refute_equal predicted, actual, "the shared generator went on from its old state"
    assert_equal 1, os_seeds, "reseed! takes one OS seed, for the primary"
    assert_equal [0, :reseed], [log.first[:generator], log.first[:event]], "the primary reseeds first"
    refute_empty log.drop(1).select { |entry| entry[:generator] != 0 && entry[:event] == :reseed }, "the shared generator reseeded"
  end

  def test_generators_take_their_seeds_from_the_primary_not_the_os
    FastRandom.reseed! # the primary's seed is fresh: no 60 s reseed comes due below
    log, = TestHelper.recording_seeds do
      before = FastRandom.stats[:seeds]
      Array.new(8) { Thread.new { TestHelper.own_generator; SecureRandom.uuid } }.each(&:join)
      assert_equal before, FastRandom.stats[:seeds], "a new generator read the OS"
    end
    children = log.reject { |entry| entry[:generator].zero? }
    assert_equal 8, children.count { |entry| entry[:event] == :instantiate }
    assert_equal log.size, log.map { |entry| entry[:seed] }.uniq.size, "two seedings took the same seed"
  end

  def test_the_default_policy_is_64_mib_and_60_seconds
    assert_equal 64 << 20, ReseedPolicy::DEFAULT_MAX_BYTES
    assert_equal 60_000_000_000, ReseedPolicy::DEFAULT_MAX_AGE_NANOS
  end

  def test_the_state_fingerprint_is_a_digest_not_the_state
    drbg = Java::FastrandomRandom::CtrDrbg.new
    drbg.instantiate(Java::byte[48].new, nil)
    copy = drbg.copy
    assert_equal drbg.stateFingerprint, copy.stateFingerprint
    assert_equal 32, String.from_java_bytes(drbg.stateDigest).bytesize
    generate(copy, 16)
    refute_equal drbg.stateFingerprint, copy.stateFingerprint, "generating from the copy moved the original"
  end

  def test_handed_out_bytes_are_zeroed_in_the_buffer
    in_fresh_thread do
      SecureRandom.random_bytes(10)
      generator = ThreadGenerators.own
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

  private

  # In a fresh thread, after its generator's first output: copies the DRBG
  # (buffer drained), runs the block, then returns what the copy predicts,
  # what the generator actually made next, and how many seeds it took meanwhile.
  def prediction_after
    in_fresh_thread do
      SecureRandom.uuid
      copy = drained_copy
      seeds = FastRandom::Generator.thread_state[:seeds]
      yield
      [generate(copy, 48), SecureRandom.random_bytes(48), FastRandom::Generator.thread_state[:seeds] - seeds]
    end
  end

  # Hands out what the calling thread's generator has buffered, then copies
  # its DRBG: the copy's output is what the next refill would be.
  def drained_copy
    SecureRandom.random_bytes(FastRandom::Generator.thread_state[:buffered])
    assert_equal 0, FastRandom::Generator.thread_state[:buffered]
    GeneratorFaults.copyOfDrbg(ThreadGenerators.own)
  end

  def generate(drbg, length)
    bytes = Java::byte[length].new
    drbg.generate(bytes, 0, length, nil)
    String.from_java_bytes(bytes)
  end

  # The calling thread's buffered bytes, not handed out yet (by reflection).
  def unread_buffer
    generator = ThreadGenerators.own
    buffer = field(:buffer).get(generator)
    position = field(:position).get(generator)
    String.from_java_bytes(buffer)[position..]
  end

  def field(name)
    BufferedRandom.java_class.to_java.getDeclaredField(name.to_s).tap { |f| f.setAccessible(true) }
  end
end
