# frozen_string_literal: true

# Passes main: argument handling, the same on every generator; each JRuby converts arguments its own way.

require_relative "../test_helper"
require_relative "../support/bad_input_probe"
require_relative "../support/reference_rubies"

# Bad input for every public SecureRandom method and for
# OpenSSL::Random.random_bytes (test/support/bad_input_probe.rb: nil,
# negatives, zero, Floats, NaN, infinities, huge Integers, Strings, Symbols,
# plain objects, wrong arity, keyword typos): whatever MRI raises,
# fast_random raises the same exception class (and where MRI returns, the
# same kind of result). The expectations come from a live MRI (and, for
# what MRI 3.1 lacks, MRI 3.4's securerandom.rb on stock JRuby 10.1).
# fast_random runs the cases in a child JRuby with a deadline, so a hang or
# a JVM crash fails these tests instead of stopping the suite; each case must
# also finish within CASE_SECONDS and raise no Java exception.
class BadInputTest < Minitest::Test
  PROBE = File.expand_path("../support/bad_input_probe.rb", __dir__)
  CASE_SECONDS = 5

  class << self
    # The three runs go on in parallel (each is a process), started by the first test that needs one.
    def runs
      @runs ||= {
        mri: Thread.new { ReferenceRubies.mri(PROBE, cases: BadInputProbe::CASES.size) },
        newer_mri: Thread.new { ReferenceRubies.newer_mri(PROBE) },
        fast_random: Thread.new { ReferenceRubies.fast_random(PROBE) }
      }
    end

    def mri = runs[:mri].value
    def newer_mri = runs[:newer_mri].value
    def fast_random = runs[:fast_random].value
  end

  def self.comparable(record)
    record.reject { |key, _| %w[message seconds].include?(key) }
  end

  BadInputProbe::CASES.each_with_index do |kase, index|
    define_method(format("test_%03d_%s", index, kase.label)) do
      mine = self.class.fast_random
      flunk mine["error"] if mine["error"]
      record = mine["records"].fetch(index)
      refute_match(/\AJava::|Exception\z/, record["raises"].to_s, "#{kase.label}: a Java exception (#{record['message']})")
      assert_operator record["seconds"], :<, CASE_SECONDS, "#{kase.label} took #{record['seconds']} s"

      if kase.unbounded
        # MRI never returns here; fast_random must, with a Ruby answer.
        expected = kase.unbounded[:raises]
        assert_equal expected, record["raises"], "#{kase.label}: #{kase.unbounded[:reason]}" if expected
        return
      end

      reference = self.class.mri
      flunk reference["error"] if reference["error"]
      source = "MRI #{reference['version']}"
      if kase.needs && !reference["features"].fetch(kase.needs)
        reference = self.class.newer_mri
        flunk reference["error"] if reference["error"]
        source = "MRI 3.4's securerandom.rb on stock JRuby 10.1 (MRI #{self.class.mri['version']} has no #{kase.needs})"
      end
      expected = reference["records"].fetch(index)
      assert_equal self.class.comparable(expected), self.class.comparable(record),
                   "#{kase.label}: #{source} (expected: #{expected['message']}) vs fast_random on JRuby #{JRUBY_VERSION} " \
                   "(#{record['message']})"
    end
  end

  def test_requests_the_heap_cannot_hold_raise_no_memory_error
    # Sizes a String can have but a 256 MB heap cannot: NoMemoryError (as MRI
    # raises when malloc fails), never Java's OutOfMemoryError, and the
    # process goes on working.
    out, err, status = TestHelper.jruby(<<~RUBY, env: { "FAST_RANDOM_JAVA_OPTS" => "-Xmx256m" })
      require "fast_random"
      require "openssl"
      calls = [
        -> { SecureRandom.random_bytes(300_000_000) }, -> { SecureRandom.bytes(300_000_000) },
        -> { SecureRandom.gen_random(300_000_000) }, -> { SecureRandom.hex(100_000_000) },
        -> { SecureRandom.base64(150_000_000) }, -> { SecureRandom.urlsafe_base64(150_000_000, true) },
        -> { SecureRandom.alphanumeric(300_000_000) }, -> { SecureRandom.alphanumeric(100_000_000, chars: %w[é ü]) },
        -> { OpenSSL::Random.random_bytes(300_000_000) }
      ]
      raised = calls.map { |call| begin; call.call.class.name; rescue Exception => e; e.class.name; end }
      p [raised.uniq, SecureRandom.uuid.size]
    RUBY
    assert status.success?, err
    assert_equal '[["NoMemoryError"], 36]', out.lines.last.strip
  end

  def test_the_probe_covers_every_public_method_with_every_kind_of_value
    methods = BadInputProbe::CASES.select { |c| c.receiver == :secure_random }.map(&:method).uniq
    assert_equal FastRandom::SecureRandomMethods.public_instance_methods.sort,
                 methods.sort
    %i[bytes gen_random random_bytes hex base64 urlsafe_base64 alphanumeric random_number rand].each do |name|
      values = BadInputProbe::CASES.select { |c| c.method == name && c.args.size == 1 && c.kwargs.empty? && c.receiver == :secure_random }
      assert_empty BadInputProbe::VALUES - values.map { |c| c.args.first }, "#{name} gets every value"
    end
  end
end
