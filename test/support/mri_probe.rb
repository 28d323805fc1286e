# frozen_string_literal: true

# The cases test/random/mri_compat_test.rb compares, and how one result is recorded.
#
# Shared by both sides: MRI runs this file as a script and prints its records
# as JSON; the JRuby test requires it and records the same cases in-process
# against fast_random's SecureRandom. A record never holds a random value,
# only what must agree: for a String its class, encoding, sizes, frozenness
# and whether it matches the case's shape; for a number its class and whether
# it lies in the case's range; for an exception its class and message.
#
#   ruby --disable=did_you_mean,error_highlight test/support/mri_probe.rb
require "json"

module MriProbe
  # Answers #to_int like an Integer without being one.
  class IntLike
    def initialize(n)
      @n = n
    end

    def to_int
      @n
    end

    def inspect
      "IntLike(#{@n})"
    end
    alias to_s inspect
  end

  # method: SecureRandom's method; args, kwargs: what it gets; expect: a Regexp
  # a String result must match or a Range a numeric result must lie in;
  # needs: the newer-MRI feature (see FEATURES) the case exercises.
  Case = Struct.new(:method, :args, :kwargs, :expect, :needs) do
    def label
      parts = args.map(&:inspect) + kwargs.map { |k, v| "#{k}: #{v.inspect}" }
      "#{method}(#{parts.join(', ')})"
    end
  end

  # Features of newer MRIs (3.3+) that an older MRI's SecureRandom lacks;
  # the probe reports which ones the MRI it runs on has.
  FEATURES = {
    "uuid_v4" => -> { SecureRandom.respond_to?(:uuid_v4) },
    "uuid_v7" => -> { SecureRandom.respond_to?(:uuid_v7) },
    "alphanumeric(chars:)" => -> { SecureRandom.method(:alphanumeric).parameters.include?([:key, :chars]) }
  }.freeze

  BINARY = nil # random bytes: no shape beyond encoding and size
  UNIT = (0.0...1.0)
  UUID_V4 = /\A\h{8}-\h{4}-4\h{3}-[89ab]\h{3}-\h{12}\z/
  UUID_V7 = /\A\h{8}-\h{4}-7\h{3}-[89ab]\h{3}-\h{12}\z/

  def self.hex(bytes) = /\A[0-9a-f]{#{2 * bytes}}\z/
  def self.alnum(n) = /\A[A-Za-z0-9]{#{n}}\z/

  # Base64 of +bytes+ bytes: standard or URL-safe alphabet, with or without "=".
  def self.b64(bytes, urlsafe: false, padding: true)
    chars = urlsafe ? "A-Za-z0-9_-" : "A-Za-z0-9+/"
    full, rest = bytes.divmod(3)
    tail = rest.zero? ? "" : "[#{chars}]{#{rest + 1}}#{'=' * (3 - rest) if padding}"
    /\A[#{chars}]{#{4 * full}}#{tail}\z/
  end

  def self.c(method, *args, expect: nil, needs: nil, **kwargs)
    Case.new(method, args, kwargs, expect, needs)
  end

  # Left out on purpose:
  # * byte counts from 2**31 to 2**63 - 1: MRI really tries to allocate that
  #   much, so what it does (NoMemoryError, or minutes of work and gigabytes
  #   of memory) depends on the machine.
  # * alphanumeric(n, chars: []) and chars: ["z"]: MRI 3.3 and 3.4 loop
  #   forever there (choose's `limit * size <= 2**32` never fails); MRI master
  #   raises or repeats the one character, as fast_random does, and
  #   test/random/secure_random_test.rb checks that.
  CASES = [
    # random_bytes: nil, false and to_int objects are accepted; Floats truncate.
    c(:random_bytes, expect: BINARY),
    c(:random_bytes, nil),
    c(:random_bytes, false),
    c(:random_bytes, 0),
    c(:random_bytes, 5),
    c(:random_bytes, -1),
    c(:random_bytes, 1.5),
    c(:random_bytes, 1.9),
    c(:random_bytes, -0.5),
    c(:random_bytes, "3"),
    c(:random_bytes, IntLike.new(3)),
    c(:random_bytes, 2**63),
    c(:random_bytes, 2**64),
    c(:random_bytes, -2**64),
    c(:random_bytes, 1, 2),
    # bytes and gen_random: Random.urandom's conversions, no nil default.
    c(:bytes),
    c(:bytes, nil),
    c(:bytes, false),
    c(:bytes, 0),
    c(:bytes, 5),
    c(:bytes, -1),
    c(:bytes, 1.0),
    c(:bytes, 1.5), # MRI: NotImplementedError "Unexpected partial read ..."
    c(:bytes, "3"),
    c(:bytes, IntLike.new(3)),
    c(:bytes, 2**64),
    c(:gen_random, nil),
    c(:gen_random, 0),
    c(:gen_random, 5),
    c(:gen_random, -1),
    c(:gen_random, 1.5),
    c(:gen_random, "3"),
    c(:gen_random, 2**64),
    # hex
    c(:hex, expect: hex(16)),
    c(:hex, nil, expect: hex(16)),
    c(:hex, 0, expect: hex(0)),
    c(:hex, 5, expect: hex(5)),
    c(:hex, -1),
    c(:hex, 1.5, expect: hex(1)),
    c(:hex, false, expect: hex(16)),
    c(:hex, "3"),
    c(:hex, IntLike.new(3), expect: hex(3)),
    c(:hex, 2**64),
    c(:hex, 1, 2),
    # base64
    c(:base64, expect: b64(16)),
    c(:base64, nil, expect: b64(16)),
    c(:base64, 0, expect: b64(0)),
    c(:base64, 1, expect: b64(1)),
    c(:base64, 2, expect: b64(2)),
    c(:base64, 3, expect: b64(3)),
    c(:base64, 10, expect: b64(10)),
    c(:base64, -1),
    c(:base64, 2.5, expect: b64(2)),
    c(:base64, "3"),
    c(:base64, 2**70),
    # urlsafe_base64: padding is by truthiness (0 and "" pad too).
    c(:urlsafe_base64, expect: b64(16, urlsafe: true, padding: false)),
    c(:urlsafe_base64, nil, expect: b64(16, urlsafe: true, padding: false)),
    c(:urlsafe_base64, 0, expect: b64(0, urlsafe: true)),
    c(:urlsafe_base64, 10, expect: b64(10, urlsafe: true, padding: false)),
    c(:urlsafe_base64, 10, true, expect: b64(10, urlsafe: true)),
    c(:urlsafe_base64, 10, false, expect: b64(10, urlsafe: true, padding: false)),
    c(:urlsafe_base64, 10, nil, expect: b64(10, urlsafe: true, padding: false)),
    c(:urlsafe_base64, 10, 0, expect: b64(10, urlsafe: true)),
    c(:urlsafe_base64, 11, "", expect: b64(11, urlsafe: true)),
    c(:urlsafe_base64, nil, true, expect: b64(16, urlsafe: true)),
    c(:urlsafe_base64, -1, true),
    c(:urlsafe_base64, "3", true),
    c(:urlsafe_base64, 1, true, 3),
    # uuid, uuid_v4, uuid_v7
    c(:uuid, expect: UUID_V4),
    c(:uuid, 1),
    c(:uuid_v4, expect: UUID_V4, needs: "uuid_v4"),
    c(:uuid_v4, 1, needs: "uuid_v4"),
    c(:uuid_v7, expect: UUID_V7, needs: "uuid_v7"),
    *[0, 1, 6, 11, 12, "12", 7.9].map { |bits| c(:uuid_v7, extra_timestamp_bits: bits, expect: UUID_V7, needs: "uuid_v7") },
    *[13, -1, nil, "x", 2**64].map { |bits| c(:uuid_v7, extra_timestamp_bits: bits, needs: "uuid_v7") },
    c(:uuid_v7, bits: 1, needs: "uuid_v7"),
    c(:uuid_v7, 1, needs: "uuid_v7"),
    # alphanumeric: the n forms MRI 3.1 has, then chars: (3.3+).
    c(:alphanumeric, expect: alnum(16)),
    c(:alphanumeric, nil, expect: alnum(16)),
    c(:alphanumeric, 0, expect: alnum(0)),
    c(:alphanumeric, 10, expect: alnum(10)),
    c(:alphanumeric, 100, expect: alnum(100)),
    c(:alphanumeric, -1, expect: alnum(0)),
    c(:alphanumeric, 1.5, expect: alnum(1)),
    c(:alphanumeric, 7.5, expect: alnum(7)),
    c(:alphanumeric, -1.5, expect: alnum(0)),
    c(:alphanumeric, "3"),
    c(:alphanumeric, IntLike.new(3)),
    c(:alphanumeric, 1, 2),
    c(:alphanumeric, 5, chars: %w[a b], expect: /\A[ab]{5}\z/, needs: "alphanumeric(chars:)"),
    c(:alphanumeric, 0, chars: %w[a b], expect: /\A\z/, needs: "alphanumeric(chars:)"),
    c(:alphanumeric, nil, chars: [*"0".."9"], expect: /\A\d{16}\z/, needs: "alphanumeric(chars:)"),
    c(:alphanumeric, 10, chars: %w[é ü], expect: /\A[éü]{10}\z/, needs: "alphanumeric(chars:)"),
    c(:alphanumeric, 4, chars: %w[ab cd], expect: /\A(ab|cd){4}\z/, needs: "alphanumeric(chars:)"),
    c(:alphanumeric, 2.5, chars: %w[a b], expect: /\A[ab]{2}\z/, needs: "alphanumeric(chars:)"),
    c(:alphanumeric, 5, chars: "ab", needs: "alphanumeric(chars:)"),
    c(:alphanumeric, 5, chars: [1, 2], expect: /\A[12]{5}\z/, needs: "alphanumeric(chars:)"),
    c(:alphanumeric, "3", chars: %w[a b], needs: "alphanumeric(chars:)"),
    # random_number: nil, 0, negatives, non-positive Floats and empty Ranges
    # fall back to a Float in [0, 1); unbounded ranges are EDOM.
    c(:random_number, expect: UNIT),
    c(:random_number, nil, expect: UNIT),
    c(:random_number, 0, expect: UNIT),
    c(:random_number, -5, expect: UNIT),
    c(:random_number, -2**70, expect: UNIT),
    c(:random_number, 1, expect: 0..0),
    c(:random_number, 10, expect: 0...10),
    c(:random_number, 2**64, expect: 0...2**64),
    c(:random_number, 2**100, expect: 0...2**100),
    c(:random_number, 1.5, expect: 0.0...1.5),
    c(:random_number, 0.0, expect: UNIT),
    c(:random_number, -0.0, expect: UNIT),
    c(:random_number, -1.5, expect: UNIT),
    c(:random_number, 1e300, expect: 0.0...1e300),
    c(:random_number, Float::NAN),
    c(:random_number, Float::INFINITY),
    c(:random_number, -Float::INFINITY),
    c(:random_number, 5/2r, expect: 0...2),
    c(:random_number, 1/2r, expect: UNIT),
    c(:random_number, IntLike.new(3), expect: 0...3),
    c(:random_number, 1..6, expect: 1..6),
    c(:random_number, 1...7, expect: 1..6),
    c(:random_number, 2..2, expect: 2..2),
    c(:random_number, -5..-1, expect: -5..-1),
    c(:random_number, 2**64..2**65, expect: 2**64..2**65),
    c(:random_number, 1..2**64, expect: 1..2**64),
    c(:random_number, 1...1, expect: UNIT),
    c(:random_number, 6..1, expect: UNIT),
    c(:random_number, 1..0, expect: UNIT),
    c(:random_number, 2**64...2**64, expect: UNIT),
    c(:random_number, 1.0..2.0, expect: 1.0..2.0),
    c(:random_number, 1.0...2.0, expect: 1.0...2.0),
    c(:random_number, 1.0..1.0, expect: 1.0..1.0),
    c(:random_number, 1.0...1.0, expect: UNIT),
    c(:random_number, 2.0..1.0, expect: UNIT),
    c(:random_number, 1..6.5, expect: 1.0..6.5),
    c(:random_number, 0...0.5, expect: 0.0...0.5),
    c(:random_number, 1.0...2, expect: 1.0...2.0),
    c(:random_number, 1..),
    c(:random_number, nil..5),
    c(:random_number, 1.0..),
    c(:random_number, nil..5.0),
    c(:random_number, 1.0..Float::INFINITY),
    c(:random_number, "1".."3"),
    c(:random_number, "x"),
    c(:random_number, :sym),
    c(:random_number, true),
    c(:random_number, [1]),
    c(:random_number, 1, 2),
    # rand is random_number under another name.
    c(:rand, expect: UNIT),
    c(:rand, nil, expect: UNIT),
    c(:rand, 0, expect: UNIT),
    c(:rand, -5, expect: UNIT),
    c(:rand, 10, expect: 0...10),
    c(:rand, 2**100, expect: 0...2**100),
    c(:rand, 1.5, expect: 0.0...1.5),
    c(:rand, 0.0, expect: UNIT),
    c(:rand, -1.5, expect: UNIT),
    c(:rand, 1..6, expect: 1..6),
    c(:rand, 1...1, expect: UNIT),
    c(:rand, 6..1, expect: UNIT),
    c(:rand, 1.0..2.0, expect: 1.0..2.0),
    c(:rand, 1.0...1.0, expect: UNIT),
    c(:rand, nil..5),
    c(:rand, Float::NAN),
    c(:rand, "x"),
    c(:rand, :sym),
    c(:rand, 1, 2)
  ].freeze

  def self.features
    FEATURES.transform_values(&:call)
  end

  # What calling the case on +receiver+ did, with nothing random in it.
  def self.record(kase, receiver = SecureRandom)
    describe(receiver.public_send(kase.method, *kase.args, **kase.kwargs), kase.expect)
  rescue SignalException, SystemExit
    raise
  rescue Exception => e # rubocop:disable Lint/RescueException -- NoMemoryError, NotImplementedError, Java errors
    # Only the first line: did_you_mean and error_highlight append the rest.
    { "raises" => e.class.name, "message" => e.message.lines.first.to_s.chomp }
  end

  def self.describe(value, expect)
    case value
    when String
      { "class" => "String", "encoding" => value.encoding.name, "bytesize" => value.bytesize,
        "length" => value.length, "valid_encoding" => value.valid_encoding?, "frozen" => value.frozen?,
        "matches" => expect&.match?(value) }
    when Numeric
      { "class" => value.class.name, "in_range" => expect&.cover?(value) }
    else
      { "class" => value.class.name, "inspect" => value.inspect }
    end
  end

  def self.run
    { "engine" => RUBY_ENGINE, "version" => RUBY_VERSION, "features" => features,
      "records" => CASES.map { |kase| record(kase) } }
  end
end

if $PROGRAM_NAME == __FILE__
  require "securerandom"
  $stdout.write(JSON.generate(MriProbe.run))
end
