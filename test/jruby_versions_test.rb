# frozen_string_literal: true

# Passes 10.1: the scripts' handling of JRuby releases, which no JRuby or setting changes.

require_relative "test_helper"
require_relative "../script/jruby_versions"
require "open3"

# bin/jruby, bin/bench and bin/test take any JRuby release by name
# (script/env.sh's fr_jruby_version): the pinned ones by their short names,
# any other release of three or four numbers as itself, fetched from Maven
# Central on first use; a name that is no release, or a release Maven
# Central does not have, is refused with a message that says which.
class JRubyVersionsTest < Minitest::Test
  def test_names_map_to_releases
    pinned_10_1, pinned_9_4 = JRubyVersions.pinned
    assert_equal [pinned_10_1, "10.0.0.0", pinned_9_4, "9.4.8.0", "9.4.12.0", "10.0.3.0", "11.0.0.0"],
                 %w[10.1 10.0 9.4 9.4.8 9.4.12.0 10.0.3 11.0.0.0].map { |name| JRubyVersions.full(name) }
    assert_nil JRubyVersions.full("9.4.x")
    assert_nil JRubyVersions.full("latest")
  end

  def test_every_release_the_suite_runs_on_is_a_release_name
    (JRubyVersions.pinned + JRubyVersions.older).each do |version|
      assert_equal version, JRubyVersions.full(version)
    end
    assert_equal "10.1.1.0", JRubyVersions.full("10.1"), "the main JRuby (README, Supported versions)"
  end

  def test_bin_jruby_refuses_a_name_that_is_no_release
    _, err, status = Open3.capture3(File.join(TestHelper::ROOT, "bin/jruby"), "--jruby", "9.4.x", "-e", "1")
    refute status.success?
    assert_match(/unknown JRuby version '9\.4\.x' \(use 10\.1, 10\.0, 9\.4, or a release such as/, err)
  end

  # Asks Maven Central (a few seconds): a release it does not have is named
  # as such, the first time and once Maven has cached the miss, and bin/bench
  # stops before running anything.
  def test_a_release_maven_central_does_not_have_is_named
    2.times do
      _, err, status = Open3.capture3(File.join(TestHelper::ROOT, "bin/jruby"), "--jruby", "9.9.9.9", "-e", "1")
      refute status.success?
      assert_match(/JRuby 9\.9\.9\.9 is not a release on Maven Central \(no org\.jruby:jruby-complete:9\.9\.9\.9\)/, err)
    end
    _, err, status = Open3.capture3("ruby", File.join(TestHelper::ROOT, "bench/run.rb"), "--quick", "--jruby", "9.9.9.9", "--only", "rsa")
    refute status.success?
    assert_match(/not a release on Maven Central.*\n.*bin\/bench: no JRuby 9\.9\.9\.9/m, err)
  end
end
