# frozen_string_literal: true

# Passes main: formats and lengths, the same on every generator; each JRuby implements a Ruby of its own.

require_relative "../test_helper"

# What SecureRandom returns once fast_random is loaded: formats, lengths,
# encodings, and that the methods really are fast_random's.
class SecureRandomTest < Minitest::Test
  UUID_V4 = /\A\h{8}-\h{4}-4\h{3}-[89ab]\h{3}-\h{12}\z/
  UUID_V7 = /\A\h{8}-\h{4}-7\h{3}-[89ab]\h{3}-\h{12}\z/

  def test_every_formatter_method_is_served_by_fast_random
    %i[bytes gen_random random_bytes hex base64 urlsafe_base64 uuid uuid_v4 uuid_v7
       alphanumeric random_number rand].each do |name|
      assert_equal FastRandom::SecureRandomMethods, SecureRandom.method(name).owner, name
    end
  end

  def test_random_bytes
    assert_equal 16, SecureRandom.random_bytes.bytesize
    [0, 1, 15, 16, 17, 4096, 65_535, 65_536, 65_537, 1 << 20, (1 << 20) + 3].each do |n|
      bytes = SecureRandom.random_bytes(n)
      assert_equal n, bytes.bytesize
      assert_equal Encoding::BINARY, bytes.encoding
    end
    assert_equal 5, SecureRandom.bytes(5).bytesize
    assert_equal 5, SecureRandom.gen_random(5).bytesize
    refute_equal SecureRandom.random_bytes(32), SecureRandom.random_bytes(32)
  end

  def test_large_requests_are_not_stuck_on_a_pattern
    bytes = SecureRandom.random_bytes(3 << 16) # three whole 64 KiB Generate requests
    chunks = bytes.scan(/.{65536}/m)
    assert_equal 3, chunks.uniq.size
    assert_operator bytes.count("\0"), :<, 2 * bytes.bytesize / 256 # about 1/256 zero bytes
  end

  def test_hex
    assert_match(/\A\h{32}\z/, SecureRandom.hex)
    assert_match(/\A[0-9a-f]{10}\z/, SecureRandom.hex(5))
    assert_equal "", SecureRandom.hex(0)
    assert_equal Encoding::US_ASCII, SecureRandom.hex.encoding
  end

  def test_base64_and_urlsafe_base64
    assert_match(%r{\A[A-Za-z0-9+/]{22}==\z}, SecureRandom.base64)
    assert_equal 8, SecureRandom.base64(5).size
    assert_match(/\A[A-Za-z0-9_-]{22}\z/, SecureRandom.urlsafe_base64)
    assert_match(/\A[A-Za-z0-9_-]{22}==\z/, SecureRandom.urlsafe_base64(16, true))
    assert_match(/\A[A-Za-z0-9_-]{22}\z/, SecureRandom.urlsafe_base64(nil, false))
    assert_equal Encoding::US_ASCII, SecureRandom.base64.encoding
    assert_equal Encoding::US_ASCII, SecureRandom.urlsafe_base64.encoding
    many = Array.new(2000) { SecureRandom.urlsafe_base64(30) }.join
    assert_includes many, "-"
    assert_includes many, "_"
  end

  def test_uuid_v4
    uuids = Array.new(1000) { SecureRandom.uuid }
    uuids.each { |u| assert_match UUID_V4, u }
    assert_equal 1000, uuids.uniq.size
    assert_equal Encoding::US_ASCII, uuids.first.encoding
    assert_match UUID_V4, SecureRandom.uuid_v4
    # Each of the 4 variant values and every hex digit of the random part occurs.
    assert_equal %w[8 9 a b], uuids.map { |u| u[19] }.uniq.sort
    assert_equal 16, uuids.map { |u| u[0] }.uniq.size
  end

  def test_uuid_v7_carries_the_time
    before = (Time.now.to_r * 1000).floor
    uuid = SecureRandom.uuid_v7
    after = (Time.now.to_r * 1000).floor
    assert_match UUID_V7, uuid
    millis = uuid.delete("-")[0, 12].to_i(16)
    assert_operator millis, :>=, before
    assert_operator millis, :<=, after
  end

  def test_uuid_v7_extra_timestamp_bits
    # The order they give: test/random/uuid_v7_order_test.rb.
    (0..12).each { |bits| assert_match UUID_V7, SecureRandom.uuid_v7(extra_timestamp_bits: bits) }
    assert_raises(ArgumentError) { SecureRandom.uuid_v7(extra_timestamp_bits: 13) }
    assert_raises(ArgumentError) { SecureRandom.uuid_v7(extra_timestamp_bits: -1) }
    assert_raises(ArgumentError) { SecureRandom.uuid_v7(bits: 1) }
  end

  def test_alphanumeric
    assert_match(/\A[A-Za-z0-9]{16}\z/, SecureRandom.alphanumeric)
    assert_match(/\A[A-Za-z0-9]{100}\z/, SecureRandom.alphanumeric(100))
    assert_equal "", SecureRandom.alphanumeric(0)
    assert_equal "", SecureRandom.alphanumeric(-3)
    assert_equal Encoding::US_ASCII, SecureRandom.alphanumeric.encoding
    assert_match(/\A[ab]{50}\z/, SecureRandom.alphanumeric(50, chars: %w[a b]))
    assert_equal "zzz", SecureRandom.alphanumeric(3, chars: ["z"])
    utf8 = SecureRandom.alphanumeric(10, chars: ["é", "ü"])
    assert_equal Encoding::UTF_8, utf8.encoding
    assert_equal 10, utf8.length
    assert_equal "xyxy".size, SecureRandom.alphanumeric(2, chars: %w[xy]).size
    assert_raises(ArgumentError) { SecureRandom.alphanumeric(3, chars: []) }
  end

  def test_random_number_forms
    assert_kind_of Float, SecureRandom.random_number
    assert_kind_of Float, SecureRandom.random_number(nil)
    assert_kind_of Float, SecureRandom.random_number(0)
    assert_kind_of Float, SecureRandom.random_number(-5)
    assert_includes 0...10, SecureRandom.random_number(10)
    assert_includes 0...10, SecureRandom.rand(10)
    assert_includes 0...(2**100), SecureRandom.random_number(2**100)
    assert_includes 0.0...2.5, SecureRandom.random_number(2.5)
    assert_includes 1..6, SecureRandom.random_number(1..6)
    assert_includes(-3..-1, SecureRandom.random_number(-3..-1))
    assert_includes (2**64)..(2**65), SecureRandom.random_number((2**64)..(2**65))
    assert_includes 1.0..2.0, SecureRandom.random_number(1.0..2.0)
    assert_equal 1.0, SecureRandom.random_number(1.0..1.0)
    assert_kind_of Float, SecureRandom.random_number(5..1) # empty: MRI falls back to [0, 1)
    assert_equal 2, SecureRandom.random_number(2..2)
    assert_raises(Errno::EDOM) { SecureRandom.random_number(Float::NAN) }
    assert_raises(Errno::EDOM) { SecureRandom.random_number(1..) }
    assert_raises(ArgumentError) { SecureRandom.random_number("a") }
  end

  def test_code_that_extends_random_formatter_keeps_working
    formatter = Object.new
    formatter.extend(Random::Formatter)
    calls = 0
    formatter.define_singleton_method(:bytes) { |n| calls += 1; "\x01".b * n }
    assert_equal "01" * 4, formatter.hex(4)
    assert_equal 1, calls
    assert_equal 0, Random.new(42).rand(1) # Random itself is untouched
  end

  def test_secure_random_captured_before_require_still_works
    out, err, status = TestHelper.jruby(<<~RUBY)
      require "securerandom"
      held = SecureRandom
      require "fast_random"
      p [held.equal?(SecureRandom), held.method(:uuid).owner, held.uuid.size]
    RUBY
    assert status.success?, err
    assert_equal "[true, FastRandom::SecureRandomMethods, 36]", out.lines.last.strip
  end

  # require "fast_random" alone does not load stock's securerandom.rb (a
  # default gem: 10 to 20 ms of a cold start); SecureRandom is the same
  # module (extended by Random::Formatter, with its VERSION on JRuby 10),
  # and loading the file later, as Rails does, keeps fast_random's methods.
  def test_stock_securerandom_loads_only_when_asked_for
    out, err, status = TestHelper.jruby(<<~'RUBY')
      require "fast_random"
      before = $LOADED_FEATURES.grep(%r{/securerandom\.rb\z}).size
      shape = [SecureRandom.class, SecureRandom.singleton_class.include?(Random::Formatter), SecureRandom.uuid.size]
      version = defined?(SecureRandom::VERSION) && SecureRandom::VERSION
      loaded = require("securerandom") | $LOADED_FEATURES.grep(%r{/securerandom\.rb\z}).any?
      owners = %i[uuid bytes gen_random random_bytes hex random_number].map { |m| SecureRandom.method(m).owner }.uniq
      p [before, shape, version, loaded, owners, SecureRandom.hex(3.5).size]
    RUBY
    assert status.success?, err
    expected_version = RUBY_VERSION >= "3.4" ? Gem::Specification.find_by_name("securerandom").version.to_s : nil
    assert_equal "[0, [Module, true, 36], #{expected_version.inspect}, true, [FastRandom::SecureRandomMethods], 6]",
                 out.lines.last.strip
  end

  def test_java_entry_point
    assert_match UUID_V4, Java::Fastrandom::FastRandom.uuid
    assert_match UUID_V7, Java::Fastrandom::FastRandom.uuidV7
    bytes = Java::byte[33].new
    Java::Fastrandom::FastRandom.nextBytes(bytes)
    refute_equal [0] * 33, bytes.to_a
    assert_includes 0...7, Java::Fastrandom::FastRandom.nextLong(7)
  end

  def test_backend_and_version
    assert_equal :drbg, FastRandom.backend
    assert_match(/\A\d+\.\d+\.\d+/, FastRandom::VERSION)
    assert FastRandom.active?
  end
end
