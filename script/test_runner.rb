# frozen_string_literal: true

# bin/test's runner (run by MRI, after bin/setup): the test files of each
# pass (test/support/passes.rb) in JRuby processes, two at a time on this
# 2-core machine, then one summary.
#
#   bin/test [--pass NAME[,NAME]]... [--all-jrubies] [--hooks-on RELEASE[,RELEASE]] [--aarch64-jruby] [--jobs N] [--slow] [--list]
#            [PATH...] [MINITEST_ARGS...]
#
# PATH is a test file or a directory of them; without one, every file runs
# in every pass it belongs to. --pass keeps only the passes named (10.1,
# 9.4, 10.1-fallback, 9.4-fallback, 10.0, jruby-openssl, or main, fallback,
# all, hooks). --all-jrubies adds a pass on each other supported release
# (script/env.sh's FR_JRUBY_OLDER) with its family's main-pass files;
# --pass older runs those alone. --hooks-on runs the hook files (those of
# the 10.0 pass: RSA, EC, AES, PBKDF2, the providers, the openssl hooks) on
# each JRuby release named, any on Maven Central, and nothing else unless
# asked (--pass, --all-jrubies). --aarch64-jruby adds the aarch64 pass,
# which runs JRuby itself in the arm64 root under qemu (--pass aarch64 runs
# it alone); a plain bin/test checks the aarch64 library from plain Java
# only (test/native/aarch64_test.rb). --list prints
# the plan and runs nothing. --slow adds the slow tier (FAST_RANDOM_SLOW=1:
# the tests that take minutes, such as AES streams of 2 GiB and more, which
# skip without it). Everything else goes to minitest (-n /uuid/,
# --seed 42, -v).
#
# Each pass's files are cut into jobs of about JOB_SECONDS by the times of
# the last run on this machine (tmp/test-logs/times.tsv; test/times.tsv,
# committed, for a new clone), the longest first; each job is one JRuby
# process with its own log in tmp/test-logs/, printed whole when it ends.
# At the end: each pass's time, the slowest files, and the last line,
#   N passed, N failed, N skipped
require "fileutils"
$stdout.sync = true
require "set"
require_relative "../test/support/passes"

module TestRunner
  ROOT = Passes::ROOT
  LOGS = File.join(ROOT, "tmp", "test-logs")
  MEASURED = File.join(LOGS, "times.tsv")
  COMMITTED = File.join(ROOT, "test", "times.tsv")
  SUMMARY = /^(\d+) runs, (\d+) assertions, (\d+) failures, (\d+) errors, (\d+) skips/
  # One minitest failure or error report, up to the next one or the summary.
  FAILURE = /^ *\d+\) (?:Failure|Error):\n.*?(?=^ *\d+\) \w+:\n|^\d+ runs, |\z)/m
  # Lines of each failure repeated at the very end, where a CI tail shows them.
  FAILURE_LINES = 12

  # A job's share of the work: long enough that a JRuby's start (some 10 s)
  # is a small part of it, short enough that the two lanes end together.
  JOB_SECONDS = 240
  # What a file not measured yet is assumed to take.
  UNMEASURED_SECONDS = 20
  SLOWEST = 10

  Job = Struct.new(:pass, :files, :estimate, :index, :log, :times, :seconds, :counts, :problem, keyword_init: true)

  module_function

  def main(argv)
    options = parse(argv)
    declarations = Passes.test_files.map { |file| Passes.declaration(file) }
    undeclared = declarations.select(&:problem)
    undeclared.each { |d| warn "bin/test: #{d.file}: #{d.problem}" }

    files = select_files(options[:paths], declarations)
    passes = options[:passes] || Passes::DEFAULT
    passes = passes.reject do |name|
      why = Passes.unavailable(Passes.find(name))
      puts "bin/test: the #{name} pass does not run: #{why}" if why
      why
    end
    plan = passes.to_h { |name| [name, files.select { |d| d.passes.include?(name) }.map(&:file)] }
    options[:older].each do |name|
      pass = Passes.find(name)
      plan[name] = files.select { |d| d.passes.include?(Passes.family(pass)) }.map(&:file)
    end
    options[:hooks_on].each do |version|
      plan[version] ||= files.select { |d| d.passes.include?("10.0") }.map(&:file)
    end
    # The 10.0 pass is 10.0.0.0's hook files; a whole-suite pass there covers them.
    plan.delete("10.0") if plan.key?(Passes.find("10.0").jruby_version)
    plan.reject! { |_, list| list.empty? }
    if plan.empty?
      warn "bin/test: nothing to run: #{describe_selection(options, files)}"
      report([], undeclared.size, 0)
      return false
    end

    jobs = cut_into_jobs(plan, estimates)
    return list(jobs) if options[:list]

    # One download at a time, before two lanes could start the same one.
    (plan.keys - Passes::NAMES).each do |version|
      JRubyVersions.jar(version) or abort "bin/test: no JRuby #{version}"
    end

    FileUtils.mkdir_p(LOGS)
    # The last run's jobs' files go, so that no old log is taken for this run's.
    FileUtils.rm_f(Dir[File.join(LOGS, "*.{log,times,tests}")])
    # MRI's reference keys and results, made once in this run for every pass (test/support/mri_script.rb).
    FileUtils.rm_rf(File.join(LOGS, "mri-cache"))
    ENV["FAST_RANDOM_MRI_CACHE"] = File.join(LOGS, "mri-cache")
    started = now
    ENV["FAST_RANDOM_SLOW"] = "1" if options[:slow]
    run_jobs(jobs, options[:lanes], options[:minitest])
    # Times of a run that minitest's arguments cut short, or the slow tier lengthened, would plan the next runs wrong.
    record_times(jobs) if options[:minitest].empty? && !options[:slow]
    report(jobs, undeclared.size, now - started)
  end

  def parse(argv)
    options = { paths: [], passes: nil, older: [], hooks_on: [], aarch64: false, lanes: 2, list: false, slow: false, minitest: [] }
    older = Passes.older_releases.map(&:name)
    args = argv.dup
    until args.empty?
      arg = args.shift
      case arg
      when "--pass", /\A--pass=/
        value = arg == "--pass" ? args.shift.to_s : arg.split("=", 2).last
        raise ArgumentError, "--pass needs a pass (#{(Passes::NAMES + Passes::GROUPS.keys + %w[older]).join(", ")})" if value.empty?

        words = value.split(",").flat_map { |word| word == "older" ? older : [word] }
        releases, words = words.partition { |word| older.include?(word) } # the other supported releases (--all-jrubies)
        options[:older] |= releases
        unknown = words - Passes::NAMES - Passes::GROUPS.keys
        unless unknown.empty?
          raise ArgumentError, "no pass #{unknown.join(", ")} (passes: #{(Passes::NAMES + Passes::GROUPS.keys + %w[older] + older).join(", ")}; " \
                               "any other JRuby release: --hooks-on)"
        end

        names = words.flat_map { |word| Passes::GROUPS.fetch(word) { [word] } }
        options[:passes] = ((options[:passes] || []) + names).uniq
      when "--jobs", /\A--jobs=/
        value = arg == "--jobs" ? args.shift.to_s : arg.split("=", 2).last
        options[:lanes] = Integer(value, exception: false)
        raise ArgumentError, "--jobs needs a number of processes, 1 or more (not #{value.inspect})" unless options[:lanes]&.positive?
      when "--hooks-on", /\A--hooks-on=/
        value = arg == "--hooks-on" ? args.shift.to_s : arg.split("=", 2).last
        releases = value.split(",").map { |name| [name, JRubyVersions.full(name)] }
        unknown = releases.reject(&:last).map(&:first)
        raise ArgumentError, "--hooks-on needs JRuby releases such as 9.4.12.0,10.0.6.0 (not #{unknown.join(", ")})" if releases.empty? || unknown.any?

        options[:hooks_on] |= releases.map(&:last)
      when "--list"
        options[:list] = true
      when "--slow"
        options[:slow] = true
      when "--all-jrubies"
        options[:older] |= older
        options[:passes] ||= Passes::DEFAULT
      when "--aarch64-jruby"
        options[:aarch64] = true
      else
        path = File.expand_path(arg, ROOT)
        tests = File.join(ROOT, "test")
        if !arg.start_with?("-") && (path == tests || path.start_with?("#{tests}/"))
          raise ArgumentError, "no test file or folder #{arg}" unless File.exist?(path)

          options[:paths] << path
        else
          options[:minitest] << arg
        end
      end
    end
    options[:passes] ||= [] unless options[:older].empty? && options[:hooks_on].empty? # --pass 9.4.8.0 alone: that release alone
    options[:passes] = (options[:passes] || Passes::DEFAULT) | ["aarch64"] if options[:aarch64]
    options[:passes] &&= Passes::NAMES & options[:passes]
    options
  rescue ArgumentError => e
    abort "bin/test: #{e.message}"
  end

  def select_files(paths, declarations)
    return declarations.reject(&:problem) if paths.empty?

    declarations.reject(&:problem).select do |d|
      full = File.join(ROOT, d.file)
      paths.any? { |path| full == path || full.start_with?("#{path}/") }
    end
  end

  def describe_selection(options, files)
    return "no test file under #{options[:paths].join(", ")}" if files.empty?

    hint = files.any? { |d| (d.passes - Passes::ON_REQUEST).empty? } ? "; the aarch64 pass runs on request: --aarch64-jruby" : ""
    files.map { |d| "#{d.file} runs in #{d.passes.join(", ")}" }.join("; ") +
      " (asked for #{(Array(options[:passes] || Passes::DEFAULT) + options[:older]).join(", ")}#{hint})"
  end

  # {[pass, file] => seconds}: this machine's last measured times, over the
  # committed ones.
  def estimates
    [COMMITTED, MEASURED].each_with_object({}) do |path, times|
      next unless File.file?(path)

      File.foreach(path) do |line|
        pass, file, seconds, = line.chomp.split("\t")
        times[[pass, file]] = Float(seconds) if file && seconds =~ /\A[\d.]+\z/
      end
    end
  end

  # Each pass's files into as many jobs as it has JOB_SECONDS of work, each
  # file (longest first) into the job with the least so far; all jobs
  # longest first.
  def cut_into_jobs(plan, times)
    jobs = plan.flat_map do |pass, files|
      sized = files.map { |file| [file, times.fetch([pass, file], UNMEASURED_SECONDS)] }.sort_by { |f, s| [-s, f] }
      count = [(sized.sum(&:last) / JOB_SECONDS).ceil, sized.size].min.clamp(1, nil)
      bins = Array.new(count) { { files: [], seconds: 0.0 } }
      sized.each do |file, seconds|
        bin = bins.min_by { |b| b[:seconds] }
        bin[:files] << file
        bin[:seconds] += seconds
      end
      bins.map { |b| Job.new(pass: Passes.find(pass), files: b[:files], estimate: b[:seconds]) }
    end
    jobs.sort_by { |job| -job.estimate }.each_with_index do |job, i|
      job.index = i + 1
      name = "#{job.pass.name}-#{format("%02d", job.index)}"
      job.log = File.join(LOGS, "#{name}.log")
      job.times = File.join(LOGS, "#{name}.times")
    end
  end

  def list(jobs)
    jobs.map(&:pass).uniq.each { |pass| puts "#{pass.name}: #{pass.proves}" }
    jobs.each do |job|
      puts "job #{job.index}: #{job.pass.name}, about #{job.estimate.round} s"
      job.files.each { |file| puts "  #{file}" }
    end
    true
  end

  # Runs the jobs on +lanes+ threads, each taking the longest job left.
  def run_jobs(jobs, lanes, minitest_args)
    queue = Queue.new
    jobs.each { |job| queue << job }
    queue.close
    output = Mutex.new
    Array.new([lanes, jobs.size].min) do
      Thread.new do
        while (job = queue.pop)
          output.synchronize { puts "--- started: #{describe(job)}" }
          begin
            run_job(job, minitest_args)
          rescue StandardError => e
            job.problem = "bin/test could not run it: #{e.class}: #{e.message}"
          end
          output.synchronize { print_job(job, jobs.size) }
        end
      end
    end.each(&:join)
  end

  # A job that takes this many times its estimate, and ten minutes more,
  # is taken to hang: its processes are killed and it counts as failed.
  HANG_FACTOR = 3
  HANG_MARGIN = 600

  def run_job(job, minitest_args)
    env = job.pass.env.merge("FAST_RANDOM_TEST_TIMES" => job.times, "FAST_RANDOM_TEST_FILES" => job.files.join(" "))
    command = [File.join(ROOT, "bin/jruby"), "--jruby", job.pass.jruby, "--start-archive", "-Itest", "test/run_all.rb",
               *minitest_args]
    started = now
    status = File.open(job.log, "w") do |log|
      log.puts "# #{describe(job)}"
      log.puts "# #{env.map { |k, v| v ? "#{k}=#{v}" : "-u #{k}" }.join(" ")}"
      log.flush
      pid = Process.spawn(env, *command, chdir: ROOT, in: File::NULL, out: log, err: log, pgroup: true)
      wait(pid, job.estimate * HANG_FACTOR + HANG_MARGIN) || begin
        job.problem = "still running after #{(now - started).round} s: killed"
        Process.kill("KILL", -pid)
        Process.wait2(pid).last
      end
    end
    job.seconds = now - started
    # Read as bytes: a failure message may hold any character, whatever the locale.
    job.counts = File.binread(job.log).scan(SUMMARY).last&.map(&:to_i)
    job.problem ||= "the JRuby ended with #{status}" unless status.success?
  end

  # The process's status, or nil once +seconds+ have passed.
  def wait(pid, seconds)
    deadline = now + seconds
    loop do
      _, status = Process.wait2(pid, Process::WNOHANG)
      return status if status
      return nil if now > deadline

      sleep 0.5
    end
  end

  def describe(job)
    "JRuby #{job.pass.name} job #{job.index} (#{job.files.size} file#{"s" if job.files.size > 1}, " \
      "about #{job.estimate.round} s): #{job.files.map { |f| f.delete_prefix("test/") }.join(" ")}"
  end

  def print_job(job, total)
    puts "=== #{job.pass.name} job #{job.index} of #{total}, #{job.seconds.to_i} s (log: #{job.log.delete_prefix("#{ROOT}/")})"
    $stdout.write(File.binread(job.log)) if File.file?(job.log)
    puts "=== #{job.pass.name} job #{job.index}: the run ended without a minitest summary" unless job.counts
    puts "=== #{job.pass.name} job #{job.index}: #{job.problem}" if job.problem
    $stdout.flush
  end

  # Adds this run's times to tmp/test-logs/times.tsv ("PASS FILE SECONDS
  # TESTS", longest first), keeping what other runs measured of the rest
  # that is still planned.
  def record_times(jobs)
    planned = Passes.plan.flat_map { |pass, files| files.map { |file| [pass, file] } }.to_set
    rows = {}
    if File.file?(MEASURED)
      File.foreach(MEASURED) do |line|
        pass, file, seconds, tests = line.chomp.split("\t")
        rows[[pass, file]] = [Float(seconds), tests.to_i] if tests
      end
    end
    measured(jobs).each { |pass, file, seconds, tests| rows[[pass, file]] = [seconds, tests] }
    rows.select! { |key, _| planned.include?(key) }
    lines = rows.sort_by { |(pass, file), (seconds, _)| [-seconds, pass, file] }
                .map { |(pass, file), (seconds, tests)| format("%s\t%s\t%.1f\t%d\n", pass, file, seconds, tests) }
    File.write(MEASURED, lines.join)
  end

  # [[pass, file, seconds, tests]] of this run.
  def measured(jobs)
    jobs.flat_map do |job|
      next [] unless File.file?(job.times)

      File.readlines(job.times, chomp: true).map do |line|
        file, seconds, tests = line.split("\t")
        [job.pass.name, file, Float(seconds), tests.to_i]
      end
    end
  end

  def report(jobs, undeclared, wall)
    passed = failed = skipped = 0
    jobs.each do |job|
      unless job.counts
        failed += 1
        next
      end
      runs, _, failures, errors, skips = job.counts
      passed += runs - failures - errors - skips
      failed += failures + errors
      # A JVM that died or hung after its tests passed is a failure too.
      failed += 1 if job.problem && (failures + errors).zero?
      skipped += skips
    end
    failed += undeclared

    unless jobs.empty?
      puts
      puts "Passes (the time of their jobs; logs in tmp/test-logs/):"
      jobs.group_by(&:pass).each do |pass, list|
        tests = list.sum { |job| job.counts ? job.counts.first : 0 }
        seconds = list.sum { |job| job.seconds.to_f }
        puts format("  %-14s %5d s  %2d job%s  %4d tests", pass.name, seconds, list.size, list.size > 1 ? "s" : " ", tests)
      end
      slowest = measured(jobs).max_by(SLOWEST) { |row| row[2] }
      puts "The #{slowest.size} slowest files:"
      slowest.each { |pass, file, seconds, tests| puts format("  %6.1f s  %-14s %s (%d tests)", seconds, pass, file, tests) }
      puts format("Wall time: %d min %02d s", wall / 60, wall % 60)
      report_failures(jobs)
    end
    puts "#{passed} passed, #{failed} failed, #{skipped} skipped"
    failed.zero?
  end

  # What failed, again, after the summary tables: the head of each minitest
  # failure (its test, file and line, message) and each job's problem, so
  # that the end of a long log names them.
  def report_failures(jobs)
    lines = jobs.flat_map do |job|
      where = "#{job.pass.name} job #{job.index} (#{job.log.delete_prefix("#{ROOT}/")})"
      text = File.file?(job.log) ? File.binread(job.log).force_encoding(Encoding::UTF_8).scrub : ""
      found = text.scan(FAILURE).map do |failure|
        head = failure.lines.first(FAILURE_LINES).map(&:rstrip)
        head.pop while head.last.empty?
        ["#{where}: #{head.first.strip}", *head.drop(1).map { |line| "    #{line}" }]
      end
      found << ["#{where}: the run ended without a minitest summary"] unless job.counts
      # A job whose tests failed ends with status 1: that is no problem of its own.
      found << ["#{where}: #{job.problem}"] if job.problem && (!job.counts || (job.counts[2] + job.counts[3]).zero?)
      found.flatten
    end
    return if lines.empty?

    puts "What failed:"
    lines.each { |line| puts "  #{line}" }
  end

  def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)
end

exit(TestRunner.main(ARGV) ? 0 : 1) if $PROGRAM_NAME == __FILE__
