# frozen_string_literal: true

# Passes 10.1: the scripts' handling of JRuby releases, which no JRuby or setting changes.

require_relative "test_helper"
require_relative "../script/jruby_versions"
require "open3"
require "tmpdir"

# bin/jruby, bin/bench and bin/test take any JRuby release by name
# (script/env.sh's fr_jruby_version): the pinned ones by their short names,
# any other release of three or four numbers as itself, fetched from Maven
# Central on first use; a name that is no release, or a release Maven
# Central does not have, is refused with a message that says which (Maven
# stood in for by a script: the suite does not depend on the network's
# answers).
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

  # What Maven prints when Maven Central has no such release: the first
  # time, and once the miss is cached in the local repository (as Maven
  # 3.8 printed them here), and what it prints when it cannot reach it.
  MAVEN_SAYS = {
    first: "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-dependency-plugin:2.8:get (default-cli) on project " \
           "standalone-pom: Couldn't download artifact: Missing:\n[ERROR] Could not find artifact " \
           "org.jruby:jruby-complete:jar:9.9.9.9 in central (https://repo.maven.apache.org/maven2)",
    cached: "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-dependency-plugin:2.8:get (default-cli) on project " \
            "standalone-pom: Couldn't download artifact: org.jruby:jruby-complete:jar:9.9.9.9 was not found in " \
            "https://repo.maven.apache.org/maven2 during a previous attempt.",
    offline: "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-dependency-plugin:2.8:get (default-cli) on project " \
             "standalone-pom: Couldn't download artifact: Could not transfer artifact " \
             "org.jruby:jruby-complete:jar:9.9.9.9 from/to central: Connection refused"
  }.freeze

  # bin/jruby and bin/bench with a stand-in mvn that answers +says+ and
  # fails, and an empty Maven repository: [bin/jruby's stderr, bin/bench's].
  def without_the_release(says)
    Dir.mktmpdir("fast_random-mvn") do |dir|
      File.write(File.join(dir, "mvn"), "#!/bin/sh\ncat <<'EOF'\n#{says}\nEOF\nexit 1\n")
      File.chmod(0o755, File.join(dir, "mvn"))
      env = { "PATH" => "#{dir}:#{ENV.fetch("PATH")}", "FR_M2_REPO" => File.join(dir, "m2") }
      _, jruby_err, jruby_status = Open3.capture3(env, File.join(TestHelper::ROOT, "bin/jruby"), "--jruby", "9.9.9.9", "-e", "1")
      _, bench_err, bench_status = Open3.capture3(env, "ruby", File.join(TestHelper::ROOT, "bench/run.rb"), "--quick",
                                                  "--jruby", "9.9.9.9", "--only", "rsa")
      refute jruby_status.success?
      refute bench_status.success?
      assert_match(%r{bin/bench: no JRuby 9\.9\.9\.9}, bench_err)
      [jruby_err, bench_err]
    end
  end

  def test_a_release_maven_central_does_not_have_is_named_as_such
    %i[first cached].each do |kind|
      without_the_release(MAVEN_SAYS.fetch(kind)).each do |err|
        assert_match(/JRuby 9\.9\.9\.9 is not a release on Maven Central \(no org\.jruby:jruby-complete:9\.9\.9\.9\)/, err, kind)
      end
    end
  end

  def test_a_download_that_fails_otherwise_says_what_maven_said
    without_the_release(MAVEN_SAYS.fetch(:offline)).each do |err|
      assert_match(/the download of jruby-complete 9\.9\.9\.9 failed:\n.*Connection refused/, err)
      refute_match(/not a release/, err)
    end
  end
end
