# frozen_string_literal: true

# A minitest plugin of the suite's own: the wall time of every test file.
#
# A file's time is the time its require took (class bodies, constants built
# at load) plus the time of each of its tests, setup and teardown included.
# Tests are attributed to the *_test.rb file whose class body defined their
# class (a class opened by a helper module counts for the test file that
# called it). With FAST_RANDOM_TEST_TIMES set to a path, the report writes
# one line per file there, "FILE<TAB>SECONDS<TAB>TESTS", which bin/test
# merges into its slowest-files table, and one per test beside it; without
# it the plugin stays silent.
module FileTimes
  @class_files = {}
  @load_seconds = Hash.new(0.0)

  class << self
    attr_reader :class_files, :load_seconds

    # The test file a class was defined from, relative to the checkout.
    def file_of(class_name)
      class_files[class_name] || "(unknown)"
    end

    def relative(path)
      root = File.expand_path("../..", __dir__)
      full = File.expand_path(path)
      full.start_with?("#{root}/") ? full[(root.size + 1)..] : path
    end

    # Requires a test file and counts the time toward it (test/run_all.rb).
    def require_timed(path)
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      require File.expand_path(path)
    ensure
      load_seconds[relative(path)] += Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
    end
  end

  # Records, for each new Minitest::Runnable, the test file on the stack.
  module Inherited
    def inherited(klass)
      super
      location = caller_locations.find { |l| l.path.to_s.end_with?("_test.rb") }
      FileTimes.class_files[klass.name] = FileTimes.relative(location.path) if location && klass.name
    end
  end

  # Sums the tests' times per file and writes them at the end of the run.
  class Reporter < Minitest::AbstractReporter
    def initialize(path)
      super()
      @path = path
      @seconds = Hash.new(0.0)
      @tests = Hash.new(0)
      @outcomes = []
    end

    def record(result)
      file = FileTimes.file_of(result.klass)
      @seconds[file] += result.time
      @tests[file] += 1
      @outcomes << format("%s\t%s#%s\t%s\t%.2f\n", file, result.klass, result.name, result.result_code, result.time)
    end

    # Also writes PATH.tests: one line per test, "FILE<TAB>CLASS#NAME<TAB>
    # . S F or E<TAB>SECONDS", to tell which tests ran in which pass.
    def report
      FileTimes.load_seconds.each { |file, seconds| @seconds[file] += seconds }
      lines = @seconds.sort_by { |_, s| -s }.map { |file, s| format("%s\t%.2f\t%d\n", file, s, @tests[file]) }
      File.write(@path, lines.join)
      File.write("#{@path}.tests", @outcomes.sort.join)
    end
  end
end

Minitest::Runnable.singleton_class.prepend(FileTimes::Inherited)

module Minitest
  def self.plugin_fast_random_times_init(_options)
    path = ENV["FAST_RANDOM_TEST_TIMES"]
    reporter << FileTimes::Reporter.new(path) if path && !path.empty?
  end
end
Minitest.extensions << "fast_random_times"
