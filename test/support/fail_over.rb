# frozen_string_literal: true

# Fault injection through OpenSSL::PKey, shared by the RSA and EC engine
# tests. In a child JRuby (TestHelper.jruby, which requires this file by
# FailOver::PATH), FailOver.rounds calls each operation once with a fault
# injected (stock's code must serve it) and once more (the engine again);
# in the test, assert_failed_over checks the child's rows and its one
# warning.
module FailOver
  PATH = File.expand_path(__FILE__)

  module_function

  # One row per operation: [its result with the fault, its result after,
  # fallbacks counted during the first call, during the second, and what
  # the block makes of the stats (middle, after) around the second call].
  # stats: returns the engine's stats hash; inject: injects one fault.
  def rounds(operations, stats:, inject:)
    operations.map do |operation|
      before = stats.call
      inject.call
      failed_over = operation.call
      middle = stats.call
      recovered = operation.call
      after = stats.call
      [failed_over, recovered, middle[:fallbacks] - before[:fallbacks], after[:fallbacks] - middle[:fallbacks],
       yield(middle, after)]
    end
  end

  # Included in a test: the child succeeded, printed +rows+ (`p` of
  # FailOver.rounds) last, and warned once, matching +warning+.
  module Assertions
    def assert_failed_over(out, err, status, rows, warning)
      assert status.success?, err
      assert_equal rows, eval(out.lines.last) # rubocop:disable Security/Eval -- our own child's p output
      warnings = err.lines.grep(/fast_random:/)
      assert_equal 1, warnings.size, err
      assert_match warning, warnings.first
    end
  end
end
