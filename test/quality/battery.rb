# frozen_string_literal: true

# `rake quality` (through bin/quality): fast_random's output through the
# statistical batteries dieharder (all default tests, `-a`, reading raw
# stdin, `-g 200`) and rngtest (FIPS 140-2), then a Markdown report.
# Runs on MRI (rake's Ruby); the generator side runs in bin/jruby with the
# built gem (test/quality/stream.rb), piped into each battery.
#
# Subjects:
#   drbg    SecureRandom.random_bytes, :drbg backend: rngtest on 256 MB, dieharder -a
#   rdrand  the same with the :rdrand backend, where RDRAND is available
#   uuid    SecureRandom.uuid decoded to its 122 random bits: rngtest on
#           256 MB, dieharder on UUID_DIEHARDER_TESTS (see there why not -a)
#
# Each stream is as long as its battery reads: for dieharder -a, hundreds
# of GB. Pass/fail rules: test/quality/rules.rb. Settings (environment):
#   QUALITY_SUBJECTS=drbg,uuid       only these subjects
#   QUALITY_TESTS=sts_monobit,rgb_bitdist:8   only these dieharder tests (name[:ntup])
#   QUALITY_JRUBY=10.1|9.4           the JRuby that runs the generator (default 10.1)
#   QUALITY_NICE=10                  niceness of the generator and batteries
#   QUALITY_REPORT=path              where the report goes
# A partial run (QUALITY_SUBJECTS or QUALITY_TESTS) writes its report to
# tmp/quality/results.md, so the committed test/quality/results.md always
# holds a full run. Raw battery output goes to tmp/quality/*.log.
require_relative "rules"
require "fileutils"
require "open3"
require "time"

module QualityBattery
  ROOT = File.expand_path("../..", __dir__)
  STREAM = File.join(__dir__, "stream.rb")
  LOG_DIR = File.join(ROOT, "tmp", "quality")
  FULL_REPORT = File.join(__dir__, "results.md")

  # 107,375 blocks of 20,000 bits (just over 256 MiB), plus the 32 bits
  # rngtest takes first to start its continuous-run test.
  RNGTEST_BLOCKS = 107_375
  RNGTEST_BYTES = 4 + RNGTEST_BLOCKS * 2500

  # Runs of each not-judged dieharder test on /dev/urandom, for the report.
  DIEHARDER_CONTROL_RUNS = 10

  # The UUID stream is decoded in Ruby at about 18 MB/s, while `dieharder -a`
  # reads over 250 GB (the RGB lagged-sum test alone 224 GB: 100 p-samples
  # of 1e6 * (lag + 1) words for each lag 0..32). So the UUIDs get every test
  # of -a, with -a's parameters, but the lagged sums only up to lag 4 (one
  # UUID's 122 bits are about 4 words, so those lags see correlations
  # between neighbouring UUIDs): about 23 GB in all. [name, ntup]; nil: as -a runs it.
  UUID_DIEHARDER_TESTS = [
    *%w[diehard_birthdays diehard_operm5 diehard_rank_32x32 diehard_rank_6x8 diehard_bitstream
        diehard_opso diehard_oqso diehard_dna diehard_count_1s_str diehard_count_1s_byt
        diehard_parking_lot diehard_2dsphere diehard_3dsphere diehard_squeeze diehard_sums
        diehard_runs diehard_craps marsaglia_tsang_gcd sts_monobit sts_runs sts_serial].map { |name| [name, nil] },
    *(1..12).map { |n| ["rgb_bitdist", n] },
    *(2..5).map { |n| ["rgb_minimum_distance", n] },
    *(2..5).map { |n| ["rgb_permutations", n] },
    *(0..4).map { |n| ["rgb_lagged_sum", n] },
    *%w[rgb_kstest_test dab_bytedistrib dab_dct dab_filltree dab_filltree2 dab_monobit2].map { |name| [name, nil] }
  ].freeze

  Subject = Struct.new(:name, :mode, :backend, :title, :dieharder_tests, keyword_init: true)

  SUBJECTS = [
    Subject.new(name: "drbg", mode: "bytes", backend: "drbg", dieharder_tests: :all,
                title: "`:drbg` backend, `SecureRandom.random_bytes`"),
    Subject.new(name: "rdrand", mode: "bytes", backend: "rdrand", dieharder_tests: :all,
                title: "`:rdrand` backend, `SecureRandom.random_bytes`"),
    Subject.new(name: "uuid", mode: "uuid", backend: "drbg", dieharder_tests: UUID_DIEHARDER_TESTS,
                title: "`:drbg` backend, `SecureRandom.uuid` (122 random bits each)")
  ].freeze

  # What one battery run gave.
  Outcome = Struct.new(:command, :output, :streamed, :seconds, keyword_init: true)

  # One subject's results.
  Result = Struct.new(:subject, :skipped, :rngtest, :rngtest_verdict, :dieharder, :judgements, :streamed,
                      :seconds, keyword_init: true) do
    def verdict
      return :skipped if skipped

      failed = rngtest_verdict.first == :fail || judgements.any? { |j| j.verdict == :fail }
      failed ? :fail : :pass
    end
  end

  class Runner
    def initialize(env = ENV)
      @jruby = env.fetch("QUALITY_JRUBY", "10.1")
      @nice = ["nice", "-n", env.fetch("QUALITY_NICE", "10")]
      @subjects = env["QUALITY_SUBJECTS"]&.split(",")&.map(&:strip)
      @only_tests = env["QUALITY_TESTS"]&.split(",")&.map { |t| name, ntup = t.strip.split(":"); [name, ntup&.to_i] }
      @partial = !(@subjects.nil? && @only_tests.nil?)
      @report = env.fetch("QUALITY_REPORT") { @partial ? File.join(LOG_DIR, "results.md") : FULL_REPORT }
      FileUtils.mkdir_p(LOG_DIR)
    end

    def run
      started = Time.now
      say "JRuby #{@jruby}: #{jruby_versions}; #{dieharder_version}; rngtest #{rngtest_version}"
      control = rngtest_control
      not_judged_control = dieharder_control
      results = SUBJECTS.filter_map { |subject| run_subject(subject) if @subjects.nil? || @subjects.include?(subject.name) }
      File.write(@report, Report.new(results, control, not_judged_control, started: started, finished: Time.now,
                                                                           partial: @partial, environment: environment).to_markdown)
      say "report: #{@report}"
      failed = results.select { |r| r.verdict == :fail }
      say(failed.empty? ? "quality: PASS" : "quality: FAIL (#{failed.map { |r| r.subject.name }.join(', ')})")
      failed.empty?
    end

    private

    def run_subject(subject)
      if subject.backend == "rdrand" && (problem = rdrand_problem)
        say "#{subject.name}: skipped, RDRAND is not available: #{problem}"
        return Result.new(subject: subject, skipped: "RDRAND is not available here: #{problem}")
      end

      started = Time.now
      say "#{subject.name}: rngtest on #{RNGTEST_BYTES} bytes"
      rngtest = rngtest_on(stream_command(subject, RNGTEST_BYTES), "#{subject.name}-rngtest")
      parsed = QualityRules.parse_rngtest(rngtest.output)
      rngtest_verdict = QualityRules.rngtest_verdict(parsed)
      say "#{subject.name}: rngtest #{rngtest_verdict.join(': ')}"

      runs = dieharder_runs(subject)
      rows = runs.flat_map { |run| QualityRules.parse_dieharder(run.output) }
      # One rerun per test and ntup option: a test that reports several
      # results at once (sts_serial) is run again once for all its WEAK ones.
      rerun_rows = {}
      reruns = rows.select { |row| QualityRules.needs_rerun?(row) }.to_h do |row|
        psamples = QualityRules.rerun_psamples(row)
        say "#{subject.name}: #{row.label} was WEAK (p = #{row.p_value}); running it again with #{psamples} p-samples"
        args = ["-d", row.test, *ntup_option(row.test, row.ntup), "-p", psamples.to_s]
        rerun_rows[args] ||= dieharder(subject, args, "#{subject.name}-rerun-#{row.test}-#{row.ntup}").then do |rerun|
          runs << rerun
          QualityRules.parse_dieharder(rerun.output)
        end
        [row.object_id, rerun_rows[args]]
      end
      Result.new(subject: subject, rngtest: [parsed, rngtest], rngtest_verdict: rngtest_verdict,
                 dieharder: runs, judgements: QualityRules.judge(rows, reruns),
                 streamed: runs.sum(&:streamed) + rngtest.streamed, seconds: Time.now - started)
    end

    # dieharder -a, or one run per selected test.
    def dieharder_runs(subject)
      tests = @only_tests || subject.dieharder_tests
      return [dieharder(subject, ["-a"], "#{subject.name}-dieharder-a")] if tests == :all

      tests.map do |name, ntup|
        dieharder(subject, ["-d", name, *ntup_option(name, ntup)], "#{subject.name}-dieharder-#{name}#{ntup && "-#{ntup}"}")
      end
    end

    # -n selects the one ntuple of the tests that -a runs once per ntuple;
    # the others (sts_serial's 1..16 among them) report all theirs at once.
    def ntup_option(test, ntup)
      return [] if ntup.nil?
      return [] unless %w[rgb_bitdist rgb_minimum_distance rgb_permutations rgb_lagged_sum].include?(test)

      ["-n", ntup.to_s]
    end

    def dieharder(subject, args, log_name)
      command = ["dieharder", "-g", "200", *args]
      say "#{subject.name}: #{command.join(' ')}"
      pipe(stream_command(subject, nil), command, log_name) { |line| say "  #{line.chomp}" if QualityRules::ROW.match?(line.chomp) }
    end

    def rngtest_on(stream, log_name)
      pipe(stream, ["rngtest"], log_name)
    end

    # Reference for the tests that are not judged: each run
    # DIEHARDER_CONTROL_RUNS times on the kernel's /dev/urandom.
    # {test name => [p-values]}
    def dieharder_control
      QualityRules::NOT_JUDGED.keys.to_h do |test|
        say "control: dieharder -d #{test} on /dev/urandom, #{DIEHARDER_CONTROL_RUNS} runs"
        p_values = Array.new(DIEHARDER_CONTROL_RUNS) do |i|
          outcome = pipe(["cat", "/dev/urandom"], ["dieharder", "-g", "200", "-d", test], "urandom-dieharder-#{test}-#{i + 1}")
          QualityRules.parse_dieharder(outcome.output).first&.p_value
        end
        say "control: #{test} on /dev/urandom: p = #{p_values.join(', ')}"
        [test, p_values]
      end
    end

    # Reference: the same rngtest run on the kernel's /dev/urandom.
    def rngtest_control
      say "control: rngtest on #{RNGTEST_BYTES} bytes of /dev/urandom"
      outcome = pipe(["head", "-c", RNGTEST_BYTES.to_s, "/dev/urandom"], ["rngtest"], "urandom-rngtest")
      parsed = QualityRules.parse_rngtest(outcome.output)
      [parsed, QualityRules.rngtest_verdict(parsed)]
    end

    def stream_command(subject, limit)
      [File.join(ROOT, "bin/jruby"), "--jruby", @jruby, "-rfast_random", STREAM, subject.mode, subject.backend, *limit&.to_s]
    end

    # Runs `producer | consumer`, both niced; returns the consumer's output
    # (stdout and stderr) and how many bytes the producer wrote.
    def pipe(producer, consumer, log_name)
      started = Time.now
      data_r, data_w = IO.pipe
      out_r, out_w = IO.pipe
      producer_log = File.join(LOG_DIR, "#{log_name}.stream.log")
      producer_pid = Process.spawn(*@nice, *producer, out: data_w, err: producer_log)
      consumer_pid = Process.spawn(*@nice, *consumer, in: data_r, out: out_w, err: out_w)
      [data_r, data_w, out_w].each(&:close)
      output = +""
      File.open(File.join(LOG_DIR, "#{log_name}.log"), "w") do |log|
        out_r.each_line do |line|
          output << line
          log.write(line)
          log.flush
          yield line if block_given?
        end
      end
      out_r.close
      Process.wait(consumer_pid)
      finish_producer(producer_pid)
      streamed = File.read(producer_log)[/^stream: (\d+) bytes/, 1].to_i
      Outcome.new(command: "#{producer.last(3).join(' ')} | #{consumer.join(' ')}", output: output,
                  streamed: streamed, seconds: Time.now - started)
    end

    # The producer stops on its own once the consumer closes the pipe (or
    # its limit is out); give it a minute, then end it.
    def finish_producer(pid)
      60.times do
        return if Process.wait(pid, Process::WNOHANG)

        sleep 1
      end
      Process.kill("TERM", pid)
      Process.wait(pid)
    end

    def rdrand_problem
      out, = Open3.capture2(File.join(ROOT, "bin/jruby"), "--jruby", @jruby, "-rfast_random", "-e",
                            "print FastRandom.rdrand_available? ? '' : FastRandom.rdrand_problem")
      out.empty? ? nil : out
    end

    def jruby_versions
      @jruby_versions ||= Open3.capture2(File.join(ROOT, "bin/jruby"), "--jruby", @jruby, "-e",
                                         'print "JRuby #{JRUBY_VERSION} on Java #{ENV_JAVA["java.version"]} (#{ENV_JAVA["java.vm.name"]})"').first
    end

    def dieharder_version
      @dieharder_version ||= Open3.capture2e("dieharder", "-l").first[/dieharder version [\d.]+/]
    end

    def rngtest_version
      @rngtest_version ||= Open3.capture2e("rngtest", "-V").first.lines.first.to_s.strip.sub(/\Arngtest /, "")
    end

    def environment
      cpu = File.read("/proc/cpuinfo")[/^model name\s*:\s*(.+)$/, 1] rescue "unknown CPU"
      commit = Open3.capture2("git", "-C", ROOT, "rev-parse", "--short", "HEAD").first.strip
      dirty = Open3.capture2("git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no").first.strip.empty? ? "" : " (with uncommitted changes)"
      { "fast_random" => "#{fast_random_version} at commit #{commit}#{dirty}", "generator" => jruby_versions,
        "dieharder" => dieharder_version.to_s.sub("dieharder version ", ""), "rngtest" => "rng-tools #{rngtest_version}",
        "machine" => "#{cpu}, #{Etc.nprocessors} cores, #{RUBY_PLATFORM}" }
    end

    def fast_random_version
      File.read(File.join(ROOT, "lib/fast_random/version.rb"))[/VERSION = "([^"]+)"/, 1]
    end

    def say(message)
      $stdout.puts "[#{Time.now.strftime('%H:%M:%S')}] #{message}"
      $stdout.flush
    end
  end
end

require_relative "report"
require "etc"

exit(QualityBattery::Runner.new.run ? 0 : 1) if $PROGRAM_NAME == __FILE__
