# frozen_string_literal: true

require "fileutils"
require "json"
require "open3"
require "rbconfig"
require "tmpdir"

# Builds the gems with `rake gem` (once per test process; rake rebuilds them
# only when an input changed) and runs Ruby processes the way a user's would:
# from a directory outside the checkout, with nothing of the checkout on the
# load path and no network.
module Packaging
  ROOT = File.expand_path("../..", __dir__)
  VERSION = FastRandom::VERSION
  JAVA_GEM = File.join(ROOT, "pkg", "fast_random-#{VERSION}-java.gem")
  PLAIN_GEM = File.join(ROOT, "pkg", "fast_random-#{VERSION}.gem")

  # Settings of this test run that a user's process would not have. Set to
  # nil, they are removed from the child's environment.
  CLEARED = (ENV.keys.grep(/\A(FAST_RANDOM_|BUNDLE_|GEM_|RUBY)/) + %w[RUBYLIB RUBYOPT JRUBY_OPTS]).to_h { |key| [key, nil] }.freeze

  # Nothing listens on port 9 of the loopback: a process that tried the
  # network through these would fail at once instead of going out.
  OFFLINE = %w[http_proxy https_proxy HTTP_PROXY HTTPS_PROXY].to_h { |key| [key, "http://127.0.0.1:9"] }.freeze

  BUILD_LOCK = Mutex.new

  module_function

  # [java gem, plain gem], built by `rake gem` (MRI's rake, as bin/setup runs
  # it). bin/test runs two test processes at once, and both may want the
  # gems: a lock file keeps the second out until the first has built them
  # (its rake then finds them up to date).
  def gems
    BUILD_LOCK.synchronize do
      FileUtils.mkdir_p(File.join(ROOT, "tmp"))
      @gems ||= File.open(File.join(ROOT, "tmp", "rake-gem.lock"), File::RDWR | File::CREAT) do |lock|
        lock.flock(File::LOCK_EX)
        out, status = Open3.capture2e("rake", "gem", chdir: ROOT)
        raise "rake gem failed (#{status}):\n#{out}" unless status.success?

        [JAVA_GEM, PLAIN_GEM].each { |gem| raise "rake gem did not make #{gem}:\n#{out}" unless File.file?(gem) }
        [JAVA_GEM, PLAIN_GEM]
      end
    end
  end

  # bin/jruby --bare: the pinned JRuby with nothing added to the load path.
  def jruby_command
    [*TestHelper.jruby_command, "--bare"]
  end

  # Debian's MRI.
  def mri_command
    ruby = TestHelper.executable("ruby")
    raise "MRI's `ruby` is not on PATH; bin/setup installs it (Debian package ruby)" unless ruby

    [ruby]
  end

  # Runs +command+ in +dir+ with a user's environment plus +env+; returns
  # [stdout, stderr, status].
  def run(command, dir:, env: {})
    Open3.capture3(CLEARED.merge(OFFLINE).merge(env), *command, chdir: dir)
  end

  # Installs +gem+ into the empty +gem_home+ with the given Ruby's own
  # `gem install --local` (never the network).
  def install(ruby_command, gem, gem_home)
    out, err, status = run([*ruby_command, "-S", "gem", "install", "--local", "--no-document", "--install-dir", gem_home, gem],
                           dir: File.dirname(gem_home), env: { "GEM_HOME" => gem_home, "GEM_PATH" => gem_home })
    raise "gem install #{File.basename(gem)} failed (#{status}):\n#{out}#{err}" unless status.success?

    out
  end

  # Runs Ruby +code+ that prints one JSON document as its last line; returns
  # it parsed, or fails with what the process said.
  def report(ruby_command, code, dir:, env: {})
    out, err, status = run([*ruby_command, "-e", code], dir: dir, env: env)
    raise "#{ruby_command.first} failed (#{status}):\n#{out}\n#{err}" unless status.success?

    [JSON.parse(out.lines.last.to_s), err]
  end

  # For the tests whose processes start with a user's environment (CLEARED):
  # they run in bin/test's two main passes only, as the other two change
  # nothing but FAST_RANDOM_* settings, which those processes do not see.
  # Each test gets a new temporary directory, @dir.
  module EndToEnd
    def setup
      skip "end-to-end: runs in this JRuby's main bin/test pass, as this pass changes only FAST_RANDOM_* settings, which the processes it starts do not see" unless TestHelper.main_pass?
      @dir = Dir.mktmpdir("fast_random-test-")
    end

    def teardown
      FileUtils.rm_rf(@dir) if @dir
    end
  end
end
