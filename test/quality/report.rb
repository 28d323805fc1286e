# frozen_string_literal: true

module QualityBattery
  # The Markdown report of a `rake quality` run.
  class Report
    # control: rngtest's result on /dev/urandom; not_judged_control: {test => p-values on /dev/urandom}.
    def initialize(results, control, not_judged_control, started:, finished:, partial:, environment:)
      @results = results
      @control = control
      @not_judged_control = not_judged_control
      @started = started
      @finished = finished
      @partial = partial
      @environment = environment
    end

    def to_markdown
      [header, summary, rules, *@results.map { |result| section(result) }].join("\n")
    end

    private

    def header
      <<~MD
        # fast_random: statistical quality (`rake quality`)

        #{@partial ? "**Partial run** (QUALITY_SUBJECTS / QUALITY_TESTS set): not all subjects or tests ran.\n\n" : ''}\
        Run from #{@started.utc.strftime('%Y-%m-%d %H:%M')} to #{@finished.utc.strftime('%Y-%m-%d %H:%M')} UTC \
        (#{duration(@finished - @started)}), by `rake quality` (`bin/quality`, `test/quality/battery.rb`).

        #{@environment.map { |name, value| "- #{name}: #{value}" }.join("\n")}
      MD
    end

    def summary
      rows = @results.map do |result|
        next "| #{result.subject.title} | skipped: #{result.skipped} | | | |" if result.skipped

        not_judged, judged = result.judgements.partition { |j| j.verdict == :not_judged }
        counts = judged.map { |j| j.row.assessment }.tally
        dieharder = "#{judged.size} results: " +
                    %w[PASSED WEAK FAILED].filter_map { |a| "#{counts[a]} #{a}" if counts[a] }.join(", ")
        reruns = judged.count(&:rerun)
        dieharder += " (#{reruns} WEAK run again: #{judged.select(&:rerun).map { |j| j.rerun.assessment }.join(', ')})" if reruns.positive?
        dieharder += "; not judged: #{not_judged.map { |j| "#{j.row.label} #{j.row.assessment} (p = #{p_value(j.row.p_value)})" }.join(', ')}" if not_judged.any?
        "| #{result.subject.title} | #{result.rngtest_verdict.last} | #{dieharder} | #{gigabytes(result.streamed)} | " \
          "**#{result.verdict.to_s.upcase}** |"
      end
      control, verdict = @control
      <<~MD

        ## Summary

        | subject | rngtest (FIPS 140-2) | dieharder | streamed | verdict |
        |---|---|---|---|---|
        #{rows.join("\n")}

        For comparison, the same rngtest run on the kernel's `/dev/urandom`: #{verdict.last} \
        (#{control.by_test.map { |name, n| "#{name} #{n}" }.join(', ')}).
        #{@not_judged_control.map { |test, ps| "The not-judged #{test} on `/dev/urandom`, #{ps.size} runs: p = #{ps.map { |p| p ? p_value(p) : 'none' }.join(', ')}." }.join("\n")}
      MD
    end

    def rules
      <<~MD

        ## How to read it, and when it fails

        - **dieharder** (`dieharder -g 200` reads raw 32-bit words from stdin; the generator keeps writing as
          long as dieharder reads). Each result is a Kolmogorov-Smirnov p-value over the test's p-samples:
          dieharder calls it WEAK below 0.005 or above 0.995 and FAILED below 1e-6 or above 1 - 1e-6. A fair
          generator shows a WEAK result in about one test in a hundred, and `-a` has over a hundred, so a
          single WEAK does not fail the run: **a WEAK test is run again on fresh output with twice the
          p-samples (at least #{QualityRules::MIN_RERUN_PSAMPLES}: dieharder's KS test over one or two is degenerate);
          PASSED there, it passes; WEAK or FAILED twice, it fails. A FAILED result fails at once.**
        - **Not judged**: #{QualityRules::NOT_JUDGED.map { |test, why| "#{test} (#{why})" }.join('; ')}. Such a test
          runs with the others and its row is shown, but it is neither run again nor counted; the summary
          gives its p-values on `/dev/urandom` for comparison.
        - **rngtest** (rng-tools' FIPS 140-2 tests on 20,000-bit blocks, #{QualityBattery::RNGTEST_BLOCKS} blocks,
          just over 256 MiB). A fair source fails about 0.08% of blocks (monobit and poker about 1e-4 each,
          runs about 3e-4, a run of 26 or more equal bits 20000 * 2^-26 = 3e-4); **the count of failed blocks
          must lie between the Poisson bounds a fair source leaves with probability 1e-6 on each side**, for
          rates from #{percent(QualityRules::RNGTEST_BLOCK_FAILURE_RATE.begin)} to
          #{percent(QualityRules::RNGTEST_BLOCK_FAILURE_RATE.end)}. Too few failures fail too.
        - **UUIDs**: each `SecureRandom.uuid` string is decoded back to its 128 bits, the 4 version and 2 variant
          bits are dropped, and the 122 random bits are packed end to end. That decoding runs in Ruby at about
          18 MB/s, while `dieharder -a` reads over 250 GB (its lagged-sum test alone, 224 GB), so the UUID
          stream gets rngtest and every test of `-a` with `-a`'s parameters, but the lagged sums only up to
          lag 4 (a UUID's 122 bits are about 4 words, so these lags look across neighbouring UUIDs).
      MD
    end

    def section(result)
      return "\n## #{result.subject.title}\n\nSkipped: #{result.skipped}\n" if result.skipped

      rngtest, = result.rngtest
      <<~MD

        ## #{result.subject.title}: #{result.verdict.to_s.upcase}

        #{gigabytes(result.streamed)} streamed in #{duration(result.seconds)}.

        **rngtest**: #{result.rngtest_verdict.last}: **#{result.rngtest_verdict.first.to_s.upcase}**.
        Failures by test: #{rngtest.by_test.map { |name, n| "#{name} #{n}" }.join(', ')}.

        **dieharder** (#{result.dieharder.map { |run| "`#{run.command.sub(/\A.*\| /, '')}`" }.uniq.then { |c| c.size > 3 ? "#{c.size} runs" : c.join(', ') }}):

        | test | ntup | tsamples | psamples | p-value | assessment | verdict |
        |---|---:|---:|---:|---:|---|---|
        #{result.judgements.map { |j| judgement_row(j) }.join("\n")}
      MD
    end

    def judgement_row(judgement)
      row = judgement.row
      verdict = if judgement.verdict == :not_judged
                  "not judged: #{judgement.reason}"
                elsif judgement.verdict == :pass && row.assessment == "PASSED"
                  "pass"
                else
                  "**#{judgement.verdict}**: #{judgement.reason}"
                end
      verdict += " (p = #{p_value(judgement.rerun.p_value)})" if judgement.rerun
      "| #{row.test} | #{row.ntup} | #{row.tsamples} | #{row.psamples} | #{p_value(row.p_value)} | #{row.assessment} | #{verdict} |"
    end

    def p_value(p)
      format("%.8f", p)
    end

    def percent(fraction)
      format("%.2f%%", fraction * 100)
    end

    def gigabytes(bytes)
      format("%.1f GB", bytes / 1e9)
    end

    def duration(seconds)
      hours, rest = seconds.round.divmod(3600)
      minutes, secs = rest.divmod(60)
      hours.positive? ? format("%dh %02dm", hours, minutes) : format("%dm %02ds", minutes, secs)
    end
  end
end
