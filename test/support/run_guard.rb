# frozen_string_literal: true

# Says so when a test run ends before minitest's summary, and fails it.
#
# Minitest runs the tests in an at_exit hook, on the main thread. When JRuby
# 10.1's fiber finalizer killed that thread (see TestHelper.fiber_thread),
# the process ended with status 0, no summary, and no word of which test was
# running; the rest of the at_exit hooks never ran. So the check is a JVM
# shutdown hook, on a thread of its own: when tests began and minitest never
# reported, it names the test that was running and halts with status 1.
module RunGuard
  @current = nil
  @reported = false

  class << self
    # "Class#test_name" of the test running now, or nil before the first.
    attr_accessor :current
    # Whether minitest reached its report (the summary).
    attr_accessor :reported
  end

  # Follows the run: the test starting, and the report at the end.
  class Reporter < Minitest::AbstractReporter
    def prerecord(klass, name)
      RunGuard.current = "#{klass}##{name}"
    end

    def report
      RunGuard.reported = true
    end
  end
end

java.lang.Runtime.getRuntime.addShutdownHook(java.lang.Thread.new do
  next if RunGuard.reported || RunGuard.current.nil?

  java.lang.System.out.flush
  java.lang.System.err.println("\nThe test run was cut short during #{RunGuard.current}: minitest never reached " \
                               "its summary (its thread was killed, or a test exited the process).")
  java.lang.Runtime.getRuntime.halt(1)
end)

module Minitest
  def self.plugin_fast_random_run_guard_init(_options)
    reporter << RunGuard::Reporter.new
  end
end
Minitest.extensions << "fast_random_run_guard"
