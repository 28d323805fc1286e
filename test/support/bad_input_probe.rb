# frozen_string_literal: true

# Bad input for every public SecureRandom method and OpenSSL::Random's:
# test/random/bad_input_test.rb runs this file in MRI (the expectations), in stock
# JRuby 10.1 for what MRI 3.1 lacks (MRI 3.4's securerandom.rb), and in a
# child JRuby with fast_random, and compares what each case did: the
# exception's class, or the result's class, encoding, sizes and shape.
#
#   ruby --disable=did_you_mean,error_highlight test/support/bad_input_probe.rb
#
# Each run limits its own address space (MEMORY_LIMIT), so on MRI too a
# request for more memory than that fails at once with NoMemoryError
# instead of depending on the machine, and times every case.
require_relative "mri_probe"

module BadInputProbe
  # A plain object with a fixed inspect, so case labels are the same in
  # every process (error messages are not compared here).
  class Plain
    def inspect
      "Object.new"
    end
  end

  VALUES = [nil, -1, 0, 2.5, -2.5, 1e20, Float::NAN, Float::INFINITY, -Float::INFINITY, 2**31, 2**64, 2**200, -2**200,
            "3", "x", :sym, Plain.new, [], {}].freeze

  # receiver: :secure_random or :openssl; needs: as in MriProbe::FEATURES;
  # unbounded: nil, or why the reference Rubies are not asked (they never
  # return) and what fast_random does instead: {reason:, raises:} (raises:
  # nil for "any Ruby result or exception"); expect: where a numeric
  # result must lie (recorded as in_range, compared like the rest).
  Case = Struct.new(:receiver, :method, :args, :kwargs, :needs, :unbounded, :expect) do
    def label
      parts = args.map(&:inspect) + kwargs.map { |k, v| "#{k}: #{v.inspect}" }
      "#{receiver == :openssl ? 'OpenSSL::Random' : 'SecureRandom'}.#{method}(#{parts.join(', ')})"
    end
  end

  def self.c(method, *args, receiver: :secure_random, needs: nil, unbounded: nil, expect: nil, **kwargs)
    Case.new(receiver, method, args, kwargs, needs, unbounded, expect)
  end

  # alphanumeric(n) builds its string piece by piece (MRI's choose), so for
  # a huge or infinite n MRI grows it until its memory runs out.
  def self.alphanumeric_length(n)
    return unless n.is_a?(Numeric) && n > 2**30

    { reason: "MRI grows the string until its memory runs out", raises: "NoMemoryError" }
  end

  # MRI 3.3 and 3.4's choose loops forever on a source of fewer than two
  # elements (`limit * size <= 2**32` never fails); MRI 3.5 raises
  # ArgumentError for an empty one and returns source.first * n for one
  # element, as fast_random does (for an Array of one String: that String
  # repeated).
  def self.alphanumeric_source(chars)
    return unless chars.respond_to?(:size) && chars.size < 2

    raises = if chars.empty? then "ArgumentError"
             elsif !chars.respond_to?(:first) then "NoMethodError"
             end
    { reason: "MRI 3.3 and 3.4 loop forever on fewer than two characters", raises: raises }
  end

  CASES = [
    *VALUES.flat_map do |v|
      [c(:bytes, v), c(:gen_random, v), c(:random_bytes, v), c(:hex, v), c(:base64, v), c(:urlsafe_base64, v),
       c(:urlsafe_base64, v, true), c(:urlsafe_base64, 3, v),
       c(:alphanumeric, v, unbounded: alphanumeric_length(v)),
       c(:alphanumeric, 5, chars: v, needs: "alphanumeric(chars:)", unbounded: alphanumeric_source(v)),
       c(:uuid_v7, extra_timestamp_bits: v, needs: "uuid_v7"),
       c(:random_number, v), c(:rand, v),
       c(:random_bytes, v, receiver: :openssl)]
    end,
    # A single element that is not a String.
    *[[nil], [1], [:a], [Plain.new], [[]], [:a, :b]].map do |chars|
      c(:alphanumeric, 5, chars: chars, needs: "alphanumeric(chars:)", unbounded: alphanumeric_source(chars))
    end,
    # Wrong arity.
    c(:bytes), c(:gen_random), c(:bytes, 1, 2), c(:gen_random, 1, 2), c(:random_bytes, 1, 2), c(:hex, 1, 2),
    c(:base64, 1, 2), c(:urlsafe_base64, 1, true, 3), c(:uuid, 1), c(:uuid, nil), c(:uuid_v4, 1, needs: "uuid_v4"),
    c(:uuid_v7, 1, needs: "uuid_v7"), c(:uuid_v7, 1, 2, needs: "uuid_v7"), c(:alphanumeric, 1, 2),
    c(:random_number, 1, 2), c(:rand, 1, 2, 3),
    c(:random_bytes, receiver: :openssl), c(:random_bytes, 1, 2, receiver: :openssl),
    # Empty ranges whose span overflows: MRI returns a Float in [0, 1).
    c(:random_number, 0...-(2**63), expect: 0.0...1.0), c(:random_number, 0..-(2**63) - 1, expect: 0.0...1.0),
    c(:random_number, Float::MAX..-Float::MAX, expect: 0.0...1.0),
    c(:random_number, Float::MAX...-Float::MAX, expect: 0.0...1.0),
    c(:random_number, -Float::MAX..Float::MAX, expect: -Float::MAX..Float::MAX),
    # Keyword typos, and keywords where there are none.
    c(:uuid_v7, extra_timestamp_bit: 1, needs: "uuid_v7"), c(:uuid_v7, extra_timestamp_bits: 1, x: 2, needs: "uuid_v7"),
    c(:alphanumeric, 5, char: %w[a b], needs: "alphanumeric(chars:)"), c(:alphanumeric, 5, chars: %w[a], n: 3, needs: "alphanumeric(chars:)"),
    c(:uuid, foo: 1), c(:uuid_v4, version: 4, needs: "uuid_v4"), c(:hex, n: 5), c(:random_bytes, size: 5),
    c(:bytes, n: 3), c(:random_number, max: 5), c(:rand, 1, max: 5),
    c(:random_bytes, n: 3, receiver: :openssl)
  ].freeze

  # 1 GiB: far more than any case here needs, far less than the machine has.
  MEMORY_LIMIT = 1 << 30

  def self.receiver(kase)
    kase.receiver == :openssl ? OpenSSL::Random : SecureRandom
  end

  # MriProbe's record of the case, and how long it took (seconds).
  def self.record(kase)
    return { "skipped" => kase.unbounded[:reason] } if kase.unbounded && !defined?(FastRandom)

    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    record = MriProbe.record(MriProbe::Case.new(kase.method, kase.args, kase.kwargs, kase.expect, kase.needs), receiver(kase))
    record.merge("seconds" => Process.clock_gettime(Process::CLOCK_MONOTONIC) - started)
  end

  def self.run
    # MRI: a hard limit, so huge allocations fail at once. A JVM reserves its
    # heap up front, so there the JVM's own -Xmx is the limit.
    Process.setrlimit(:AS, MEMORY_LIMIT) if RUBY_ENGINE == "ruby"
    { "engine" => RUBY_ENGINE, "version" => RUBY_VERSION, "features" => MriProbe.features,
      "records" => CASES.map { |kase| record(kase) } }
  end
end

if $PROGRAM_NAME == __FILE__
  require "securerandom"
  require "openssl"
  $stdout.write(JSON.generate(BadInputProbe.run))
end
