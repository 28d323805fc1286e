# frozen_string_literal: true

# Passes main: results and errors against MRI, the same on every generator; each JRuby implements a Ruby of its own.

require_relative "../test_helper"
require_relative "../support/mri_probe"
require_relative "../support/reference_rubies"

# fast_random's SecureRandom against a live MRI (Debian's `ruby`, which
# bin/setup installs), case by case: for every method and argument form in
# MriProbe::CASES, the result's class, encoding, sizes and shape, or the
# exception's class and message, must be what MRI gives. MRI runs once per
# test run (test/support/mri_probe.rb prints its records as JSON); this
# process records the same cases in-process and compares. Cases for methods
# the installed MRI is too old to have are compared with MRI 3.4's own
# securerandom.rb, run by stock JRuby 10.1.
class MriCompatTest < Minitest::Test
  PROBE = File.expand_path("../support/mri_probe.rb", __dir__)

  class << self
    # MRI's answers, or the reason there are none: {"error" => "..."}.
    def mri
      @mri ||= ReferenceRubies.mri(PROBE, cases: MriProbe::CASES.size)
    end

    # For what the installed MRI lacks (MRI 3.1 has no uuid_v4, uuid_v7 or
    # alphanumeric's chars:): stock JRuby 10.1 runs MRI 3.4's own
    # securerandom.rb, so its answers are MRI 3.4's for these methods.
    def newer_mri
      @newer_mri ||= ReferenceRubies.newer_mri(PROBE)
    end
  end

  # MRI's record in the words of the Ruby version this JRuby implements
  # (10.1: 3.4, 9.4: 3.1), for core error messages that changed between
  # Ruby versions, not in SecureRandom:
  # * Ruby 3.3 names the receiver's class in NoMethodError, not its inspect:
  #   "undefined method `to_int' for \"3\":String" became
  #   "undefined method `to_int' for an instance of String".
  # * Ruby 3.4 quotes names as 'name', not `name'.
  def self.in_this_rubys_words(record, mri_version, here: RUBY_VERSION)
    message = record["message"] or return record
    mri = Gem::Version.new(mri_version)
    here = Gem::Version.new(here)
    changed_since = ->(version) { mri < Gem::Version.new(version) && here >= Gem::Version.new(version) }
    if changed_since.("3.3")
      message = message.sub(/\A(undefined method `[^']*') for .*:([A-Z]\w*(?:::\w+)*)\z/) do
        "#{Regexp.last_match(1)} for an instance of #{Regexp.last_match(2)}"
      end
    end
    message = message.gsub(/`([^`']*)'/, "'\\1'") if changed_since.("3.4")
    record.merge("message" => message)
  end

  MriProbe::CASES.each_with_index do |kase, index|
    define_method(format("test_%03d_%s", index, kase.label)) do
      mri = self.class.mri
      flunk mri["error"] if mri["error"]

      version = mri["version"]
      if kase.needs && !mri["features"].fetch(kase.needs)
        newer = self.class.newer_mri
        flunk newer["error"] if newer["error"]
        # JRuby 9.4 words core errors as Ruby 3.1 did; compare in 3.4's words.
        in_34_words = ->(record) { self.class.in_this_rubys_words(record, "3.1", here: "3.4") }
        assert_equal in_34_words.(newer["records"][index]), in_34_words.(MriProbe.record(kase)),
                     "SecureRandom.#{kase.label}: MRI #{newer["version"]}'s securerandom.rb on stock JRuby 10.1 " \
                     "(MRI #{version} has no #{kase.needs}) vs fast_random on JRuby #{JRUBY_VERSION}"
        return
      end

      expected = self.class.in_this_rubys_words(mri["records"][index], version)
      assert_equal expected, MriProbe.record(kase),
                   "SecureRandom.#{kase.label}: MRI #{version} (expected) vs fast_random on JRuby #{JRUBY_VERSION}"
    end
  end
end
