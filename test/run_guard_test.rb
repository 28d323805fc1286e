# frozen_string_literal: true

# Passes main: the guard hooks into each JRuby's minitest (5.x on 9.4, 6.0 on 10.1); no setting changes it.

require_relative "test_helper"
require "tmpdir"

# test/support/run_guard.rb: a test run whose main thread dies before
# minitest's summary fails, and says which test was running.
class RunGuardTest < Minitest::Test
  # A run whose main thread dies mid-test fails, naming the test (before, the
  # job ended with status 0 and no summary).
  def test_a_run_cut_short_fails_and_names_the_test
    Dir.mktmpdir do |dir|
      file = File.join(dir, "cut_short_test.rb")
      File.write(file, <<~RUBY)
        require_relative #{File.join(TestHelper::ROOT, "test/test_helper").inspect}
        class CutShortTest < Minitest::Test
          def test_dies
            Thread.current.kill
          end
        end
      RUBY
      _, err, status = TestHelper.jruby("load #{file.inspect}")
      assert_equal 1, status.exitstatus, err
      assert_includes err, "The test run was cut short during CutShortTest#test_dies"
    end
  end
end
