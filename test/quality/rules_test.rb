# frozen_string_literal: true

# Passes 10.1: the batteries' rules on canned output, plain Ruby that no JRuby or setting changes.

require_relative "../test_helper"
require_relative "rules"

# The pass/fail rules of `rake quality` (test/quality/rules.rb), on canned
# dieharder and rngtest output: the batteries themselves take hours and run
# only under `rake quality`.
class QualityRulesTest < Minitest::Test
  DIEHARDER = <<~OUT
    #=============================================================================#
    #            dieharder version 3.31.1 Copyright 2003 Robert G. Brown          #
    #=============================================================================#
       rng_name    |rands/second|   Seed   |
    stdin_input_raw|  2.38e+06  |1458346974|
    #=============================================================================#
            test_name   |ntup| tsamples |psamples|  p-value |Assessment
    #=============================================================================#
       diehard_birthdays|   0|       100|     100|0.22526159|  PASSED  
              sts_serial|   4|    100000|     100|0.06554499|  PASSED  
              sts_serial|   4|    100000|     100|0.99819392|   WEAK   
          rgb_lagged_sum|   2|   1000000|     100|0.00000001|  FAILED  
  OUT

  RNGTEST = <<~OUT
    rngtest 5
    rngtest: starting FIPS tests...
    rngtest: entropy source drained
    rngtest: bits received from input: 2147500032
    rngtest: FIPS 140-2 successes: 107290
    rngtest: FIPS 140-2 failures: 85
    rngtest: FIPS 140-2(2001-10-10) Monobit: 8
    rngtest: FIPS 140-2(2001-10-10) Poker: 11
    rngtest: FIPS 140-2(2001-10-10) Runs: 34
    rngtest: FIPS 140-2(2001-10-10) Long run: 32
    rngtest: FIPS 140-2(2001-10-10) Continuous run: 0
    rngtest: input channel speed: (min=5445140.212; avg=1867489210.203; max=0.000)bits/s
  OUT

  def rows
    @rows ||= QualityRules.parse_dieharder(DIEHARDER)
  end

  def row(assessment, test: "sts_serial", ntup: 4, p_value: 0.5, psamples: 200)
    QualityRules::DieharderRow.new(test, ntup, 100_000, psamples, p_value, assessment)
  end

  def test_parses_dieharder_rows
    assert_equal 4, rows.size
    assert_equal ["diehard_birthdays", 0, 100, 100, 0.22526159, "PASSED"], rows.first.to_a
    assert_equal %w[PASSED PASSED WEAK FAILED], rows.map(&:assessment)
  end

  def test_passed_passes_and_failed_fails_at_once
    verdicts = QualityRules.judge(rows).map(&:verdict)
    assert_equal %i[pass pass fail fail], verdicts # the WEAK one was not run again
    failed = QualityRules.judge(rows).last
    assert_nil failed.rerun
    assert_match(/FAILED/, failed.reason)
  end

  def test_a_rerun_takes_twice_the_p_samples_and_at_least_ten
    assert_equal 200, QualityRules.rerun_psamples(row("WEAK", psamples: 100))
    assert_equal 10, QualityRules.rerun_psamples(row("WEAK", test: "dab_filltree2", ntup: 1, psamples: 1))
    assert_equal 10, QualityRules.rerun_psamples(row("WEAK", psamples: 5))
  end

  # dieharder -l marks diehard_sums "Do Not Use"; it is reported, never rerun
  # or judged, whatever it says, and judged tests are unaffected.
  def test_do_not_use_tests_are_reported_not_judged
    sums = %w[PASSED WEAK FAILED].map { |a| row(a, test: "diehard_sums", ntup: 0, p_value: 0.0001) }
    judgements = QualityRules.judge(sums + rows)
    assert_equal %i[not_judged not_judged not_judged], judgements.first(3).map(&:verdict)
    assert_match(/Do Not Use/, judgements.first.reason)
    refute(sums.any? { |r| QualityRules.needs_rerun?(r) })
    assert QualityRules.needs_rerun?(rows[2])
    assert_equal %i[pass pass fail fail], judgements.drop(3).map(&:verdict)
  end

  def test_weak_passes_when_its_rerun_passes
    weak = rows[2]
    rerun = [row("WEAK", p_value: 0.999), row("PASSED")] # the second sts_serial ntup-4 result is the one
    judgement = QualityRules.judge(rows, { weak.object_id => rerun })[2]
    assert_equal :pass, judgement.verdict
    assert_equal rerun[1], judgement.rerun
  end

  def test_weak_twice_or_weak_then_failed_fails
    weak = rows[2]
    %w[WEAK FAILED].each do |second|
      rerun = [row("PASSED"), row(second, p_value: 0.9999)]
      judgement = QualityRules.judge(rows, { weak.object_id => rerun })[2]
      assert_equal :fail, judgement.verdict, "WEAK, then #{second}"
      assert_equal "WEAK, then #{second} on a rerun with 200 p-samples", judgement.reason
    end
  end

  def test_a_rerun_without_the_result_fails
    weak = rows[2]
    assert_equal :fail, QualityRules.judge(rows, { weak.object_id => [row("PASSED")] })[2].verdict
  end

  def test_parses_rngtest
    result = QualityRules.parse_rngtest(RNGTEST)
    assert_equal [2_147_500_032, 107_290, 85], [result.bits, result.successes, result.failures]
    assert_equal 107_375, result.blocks
    assert_equal({ "Monobit" => 8, "Poker" => 11, "Runs" => 34, "Long run" => 32, "Continuous run" => 0 }, result.by_test)
    assert_raises(ArgumentError) { QualityRules.parse_rngtest("rngtest: error reading input\n") }
  end

  def test_rngtest_accepts_what_a_fair_source_shows_and_nothing_far_off
    bounds = QualityRules.rngtest_bounds(107_375)
    assert_includes bounds, 86
    assert_includes 30..50, bounds.begin
    assert_includes 130..160, bounds.end
    result = QualityRules.parse_rngtest(RNGTEST)
    assert_equal :pass, QualityRules.rngtest_verdict(result).first
    [0, bounds.begin - 1, bounds.end + 1, 1000].each do |failures|
      skewed = QualityRules::RngtestResult.new(result.bits, result.blocks - failures, failures, {})
      assert_equal :fail, QualityRules.rngtest_verdict(skewed).first, "#{failures} failed blocks"
    end
  end

  def test_poisson_quantiles
    # Poisson(1): P(X > 3) = 0.019, P(X > 4) = 0.0037; P(X < 1) = 0.37.
    assert_equal 4, QualityRules.poisson_upper_quantile(1.0, 0.01)
    assert_equal 0, QualityRules.poisson_lower_quantile(1.0, 0.1)
    assert_equal 1, QualityRules.poisson_lower_quantile(1.0, 0.5)
  end
end
