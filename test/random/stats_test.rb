# frozen_string_literal: true

# Passes all: the stats count by backend, and :rdrand exists only with the CPU's help and the library.

require_relative "../test_helper"

# FastRandom.stats[:calls]: how many calls of each kind each backend served,
# counted in Java by the methods that produce the output, so a caller (the
# RequestId test, an operator) can tell that fast_random made a value
# rather than trusting a method name.
class StatsTest < Minitest::Test
  KINDS = %i[random_bytes hex base64 urlsafe_base64 uuid uuid_v7 alphanumeric random_number openssl].freeze

  def calls(backend = FastRandom.backend)
    FastRandom.stats.fetch(:calls).fetch(backend)
  end

  def counted
    before = calls
    yield
    calls.to_h { |kind, count| [kind, count - before.fetch(kind)] }.reject { |_, delta| delta.zero? }
  end

  def test_every_backend_and_kind_has_a_counter
    assert_equal FastRandom::BACKENDS, FastRandom.stats[:calls].keys
    FastRandom::BACKENDS.each { |backend| assert_equal KINDS, calls(backend).keys }
    assert(FastRandom.stats[:calls].values.flat_map(&:values).all? { |count| count.is_a?(Integer) && count >= 0 })
  end

  def test_each_method_counts_as_its_family
    assert_equal({ uuid: 2 }, counted { SecureRandom.uuid; SecureRandom.uuid_v4 })
    assert_equal({ uuid_v7: 1 }, counted { SecureRandom.uuid_v7 })
    assert_equal({ random_bytes: 4 }, counted { SecureRandom.random_bytes; SecureRandom.random_bytes(3); SecureRandom.bytes(2); SecureRandom.gen_random(1) })
    assert_equal({ hex: 2 }, counted { SecureRandom.hex; SecureRandom.hex(4) })
    assert_equal({ base64: 1, urlsafe_base64: 2 }, counted { SecureRandom.base64; SecureRandom.urlsafe_base64; SecureRandom.urlsafe_base64(8, true) })
    assert_equal({ alphanumeric: 1 }, counted { SecureRandom.alphanumeric(10) })
    assert_equal({ random_number: 4 }, counted { SecureRandom.random_number; SecureRandom.random_number(10); SecureRandom.rand(1.5); SecureRandom.random_number(1..6) })
  end

  def test_openssl_random_counts_as_openssl
    require "openssl"
    assert_equal({ openssl: 2 }, counted { OpenSSL::Random.random_bytes(4); OpenSSL::Random.pseudo_bytes(4) })
  end

  # Arguments the stock methods convert (hex(2.5)) go to them, and the bytes
  # they ask for still come from fast_random, counted where they were made.
  def test_stock_fallbacks_count_the_bytes_they_draw
    assert_equal({ random_bytes: 1 }, counted { SecureRandom.hex(2.5) })
  end

  def test_java_callers_count_too
    assert_equal({ uuid: 1, random_number: 1, random_bytes: 1 }, counted do
      Java::Fastrandom::FastRandom.uuid
      Java::Fastrandom::FastRandom.nextLong(10)
      Java::Fastrandom::FastRandom.nextBytes(Java::byte[8].new)
    end)
  end

  def test_counts_from_many_threads_add_up
    before = calls[:uuid]
    8.times.map { Thread.new { 1000.times { SecureRandom.uuid } } }.each(&:join)
    assert_equal before + 8000, calls[:uuid]
  end

  def test_calls_count_against_the_backend_that_served_them
    skip "RDRAND is not usable in this run: #{FastRandom.rdrand_problem}" unless FastRandom.rdrand_available?

    drbg_before = calls(:drbg)[:uuid]
    rdrand_before = calls(:rdrand)[:uuid]
    TestHelper.with_backend(:rdrand) { 3.times { SecureRandom.uuid } }
    assert_equal [drbg_before, rdrand_before + 3], [calls(:drbg)[:uuid], calls(:rdrand)[:uuid]]
  end
end
