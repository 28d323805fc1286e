# frozen_string_literal: true

# How `rake quality` (test/quality/battery.rb) reads dieharder's and
# rngtest's output and decides pass or fail. Plain Ruby with no
# dependencies, so the normal suite tests it too (test/quality/rules_test.rb).
#
# The rules, as the report states them:
#
# * dieharder: a fair generator shows a WEAK result (p < 0.005 or
#   p > 0.995) in about one test in a hundred, and `dieharder -a` has more
#   than a hundred, so one WEAK is expected. A WEAK test is run once more,
#   on fresh output, with twice the p-samples (at least
#   MIN_RERUN_PSAMPLES): PASSED there, the test
#   passes; WEAK or FAILED twice, it fails. A FAILED result (p < 1e-6 or
#   p > 1 - 1e-6, dieharder's own threshold) fails at once.
# * rngtest: a fair source fails the FIPS 140-2 tests on about 0.08% of its
#   20,000-bit blocks (RNGTEST_BLOCK_FAILURE_RATE), so 256 MB show about 86
#   failed blocks. The count must lie within the Poisson bounds a fair
#   source leaves with probability 1e-6 on either side, taken at the low and
#   high end of the rate's range. Too few failures fail too (output that
#   is too regular is not random either).
# * Tests that dieharder's own list (`dieharder -l`) marks "Do Not Use"
#   (NOT_JUDGED) are run and reported, beside the same test on
#   /dev/urandom, but neither rerun nor judged.
module QualityRules
  DieharderRow = Struct.new(:test, :ntup, :tsamples, :psamples, :p_value, :assessment) do
    def key
      [test, ntup]
    end

    def label
      ntup.zero? ? test : "#{test} (ntup #{ntup})"
    end
  end

  RngtestResult = Struct.new(:bits, :successes, :failures, :by_test) do
    def blocks
      successes + failures
    end
  end

  # What one dieharder row came to after the rules: :pass, :fail or
  # :not_judged, why, and the rerun row (nil when there was none).
  Judgement = Struct.new(:row, :rerun, :verdict, :reason)

  # Per-block FIPS 140-2 failure probability of a fair source: monobit
  # ~1e-4, poker ~1e-4, runs ~3e-4, long run (26 or more equal bits in
  # 20,000) 20000 * 2**-26 = 3e-4; measured 0.078% on /dev/urandom here
  # (see the report). The bounds use the whole range.
  RNGTEST_BLOCK_FAILURE_RATE = (0.0007..0.0009)
  # Probability that a fair source lands outside the accepted range, per side.
  RNGTEST_TAIL = 1e-6

  # dieharder's Kolmogorov-Smirnov test over 1 or 2 p-samples is
  # degenerate (/dev/urandom gives p = 1.0, FAILED, for dab_filltree2 with
  # -p 2), and -a runs the dab_* tests with one; so a rerun takes at least
  # this many.
  MIN_RERUN_PSAMPLES = 10

  # Test name => why its result is reported but not judged.
  NOT_JUDGED = {
    "diehard_sums" => "dieharder lists it as \"Do Not Use\": its statistic is known to be wrong, and its " \
                      "p-values run low for good sources too"
  }.freeze

  ROW = /\A\s*(\w+)\|\s*(\d+)\|\s*(\d+)\|\s*(\d+)\|\s*([0-9.]+)\|\s*(PASSED|WEAK|FAILED)\s*\z/

  module_function

  # The result rows of dieharder's default table output, in order.
  def parse_dieharder(text)
    text.each_line.filter_map do |line|
      match = ROW.match(line.chomp) or next
      DieharderRow.new(match[1], Integer(match[2]), Integer(match[3]), Integer(match[4]), Float(match[5]), match[6])
    end
  end

  # rngtest's statistics (it prints them to stderr when its input ends).
  def parse_rngtest(text)
    number = lambda do |label|
      value = text[/^rngtest: #{Regexp.escape(label)}: (\d+)$/, 1] or raise ArgumentError, "no '#{label}' in rngtest's output:\n#{text}"
      Integer(value)
    end
    by_test = text.scan(/^rngtest: FIPS 140-2\([\d-]+\) ([\w ]+): (\d+)$/).to_h { |name, count| [name, Integer(count)] }
    RngtestResult.new(number.("bits received from input"), number.("FIPS 140-2 successes"),
                      number.("FIPS 140-2 failures"), by_test)
  end

  # The failed-block counts a fair source stays within for +blocks+ blocks.
  def rngtest_bounds(blocks)
    low = poisson_lower_quantile(RNGTEST_BLOCK_FAILURE_RATE.begin * blocks, RNGTEST_TAIL)
    high = poisson_upper_quantile(RNGTEST_BLOCK_FAILURE_RATE.end * blocks, RNGTEST_TAIL)
    low..high
  end

  # [:pass or :fail, explanation]
  def rngtest_verdict(result)
    bounds = rngtest_bounds(result.blocks)
    expected = ((RNGTEST_BLOCK_FAILURE_RATE.begin + RNGTEST_BLOCK_FAILURE_RATE.end) / 2 * result.blocks).round
    detail = "#{result.failures} of #{result.blocks} blocks failed (a fair source: about #{expected}, " \
             "#{bounds.begin}..#{bounds.end} accepted)"
    [bounds.cover?(result.failures) ? :pass : :fail, detail]
  end

  # The rows to run again: WEAK ones (FAILED ones fail without a rerun).
  def needs_rerun?(row)
    row.assessment == "WEAK" && !NOT_JUDGED.key?(row.test)
  end

  # How many p-samples the rerun of a WEAK row takes.
  def rerun_psamples(row)
    [2 * row.psamples, MIN_RERUN_PSAMPLES].max
  end

  # Judges each row of a run; +reruns+ maps a row (by identity) to the rows
  # of its rerun, from which the one with the same test, ntup and position
  # among equal keys is taken.
  def judge(rows, reruns = {})
    rows.map do |row|
      next Judgement.new(row, nil, :not_judged, NOT_JUDGED[row.test]) if NOT_JUDGED.key?(row.test)

      case row.assessment
      when "PASSED" then Judgement.new(row, nil, :pass, "passed")
      when "FAILED" then Judgement.new(row, nil, :fail, "FAILED (p = #{row.p_value})")
      else judge_weak(row, rows, reruns.fetch(row.object_id, nil))
      end
    end
  end

  def judge_weak(row, rows, rerun_rows)
    return Judgement.new(row, nil, :fail, "WEAK, and not run again") unless rerun_rows

    index = rows.select { |r| r.key == row.key }.index { |r| r.equal?(row) }
    rerun = rerun_rows.select { |r| r.key == row.key }[index]
    return Judgement.new(row, nil, :fail, "WEAK, and the rerun gave no result for it") unless rerun

    if rerun.assessment == "PASSED"
      Judgement.new(row, rerun, :pass, "WEAK once, PASSED on a rerun with #{rerun.psamples} p-samples")
    else
      Judgement.new(row, rerun, :fail, "WEAK, then #{rerun.assessment} on a rerun with #{rerun.psamples} p-samples")
    end
  end

  # The smallest k with P(X > k) <= tail for X ~ Poisson(mean).
  def poisson_upper_quantile(mean, tail)
    k = 0
    cdf = 0.0
    loop do
      cdf += poisson_pmf(mean, k)
      return k if 1.0 - cdf <= tail

      k += 1
    end
  end

  # The largest k with P(X < k) <= tail for X ~ Poisson(mean).
  def poisson_lower_quantile(mean, tail)
    k = 0
    cdf = 0.0
    loop do
      next_cdf = cdf + poisson_pmf(mean, k)
      return k if next_cdf > tail

      cdf = next_cdf
      k += 1
    end
  end

  def poisson_pmf(mean, k)
    return k.zero? ? 1.0 : 0.0 if mean.zero?

    Math.exp(k * Math.log(mean) - mean - Math.lgamma(k + 1).first)
  end
end
