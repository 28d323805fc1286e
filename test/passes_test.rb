# frozen_string_literal: true

# Passes 10.1: plain Ruby about the suite's own files and plan, which no JRuby or setting changes.

require_relative "test_helper"
require_relative "support/passes"
require_relative "../script/test_runner"
require "tmpdir"

# Every test file says which of bin/test's passes it belongs to
# (test/support/passes.rb), and bin/test's runner runs each file in each of
# its passes exactly once.
class PassesTest < Minitest::Test
  def test_every_test_file_belongs_to_a_pass
    declarations = Passes.test_files.map { |file| Passes.declaration(file) }
    assert_operator declarations.size, :>, 40
    assert_empty declarations.filter_map { |d| "#{d.file}: #{d.problem}" if d.problem }
    assert_empty declarations.select { |d| d.passes.empty? }.map(&:file)
    assert_includes Passes.plan.fetch("10.1"), "test/passes_test.rb"
  end

  def test_every_pass_has_files_and_the_fallback_passes_fewer
    plan = Passes.plan
    assert_equal Passes::NAMES, plan.keys
    Passes::NAMES.each { |name| refute_empty plan.fetch(name), name }
    assert_operator plan.fetch("10.1-fallback").size, :<, plan.fetch("10.1").size
    assert_operator plan.fetch("9.4-fallback").size, :<, plan.fetch("9.4").size
  end

  def test_a_missing_unknown_or_doubled_declaration_is_a_problem
    Dir.mktmpdir do |dir|
      declare = lambda do |text|
        path = File.join(dir, "x_test.rb")
        File.write(path, "# frozen_string_literal: true\n\n#{text}\nrequire 'minitest'\n")
        Passes.declaration(path)
      end
      assert_match(/no '# Passes NAMES: why' line/, declare.("# Runs everywhere.").problem)
      assert_match(/unknown pass 9\.3/, declare.("# Passes 10.1, 9.3: why").problem)
      assert_match(/is not '# Passes NAMES: why'/, declare.("# Passes all").problem)
      assert_match(/2 '# Passes' lines/, declare.("# Passes all: one\n# Passes main: two").problem)
      good = declare.("# Passes main, 10.1-fallback: because.")
      assert_nil good.problem
      assert_equal %w[10.1 9.4 10.1-fallback], good.passes
      assert_equal "because.", good.why
      assert_equal Passes::GROUPS.fetch("all"), declare.("# Passes all: everywhere.").passes
    end
  end

  def test_the_runner_puts_each_file_of_each_pass_into_one_job
    plan = { "10.1" => %w[a b c d e], "9.4-fallback" => %w[a f] }
    times = { %w[10.1 a] => TestRunner::JOB_SECONDS + 50.0, %w[10.1 b] => 100.0, %w[10.1 c] => 100.0,
              %w[10.1 d] => 30.0, %w[9.4-fallback a] => 5.0 }
    jobs = TestRunner.cut_into_jobs(plan, times)
    assert_equal plan.flat_map { |pass, files| files.map { |f| [pass, f] } }.sort,
                 jobs.flat_map { |job| job.files.map { |f| [job.pass.name, f] } }.sort
    assert_equal [["a"]], jobs.select { |job| job.pass.name == "10.1" && job.files.include?("a") }.map(&:files)
    assert_equal jobs.map(&:estimate).sort.reverse, jobs.map(&:estimate), "the longest job first"
    ten = jobs.select { |job| job.pass.name == "10.1" }
    work = ten.sum(&:estimate)
    assert_equal (work / TestRunner::JOB_SECONDS).ceil, ten.size, "as many jobs as JOB_SECONDS of work (#{work} s)"
    assert_operator ten.map(&:estimate).min, :>=, 100.0, "each job has at least one of the 100 s files"
    assert_equal [TestRunner::UNMEASURED_SECONDS + 5.0], jobs.select { |j| j.pass.name == "9.4-fallback" }.map(&:estimate)
  end

  def test_the_aarch64_pass_runs_only_on_request
    assert_nil TestRunner.parse([])[:passes], "a plain bin/test runs Passes::DEFAULT"
    assert_equal Passes::NAMES - %w[aarch64], Passes::DEFAULT
    assert_includes TestRunner.parse(%w[--aarch64-jruby])[:passes], "aarch64"
    assert_equal Passes::DEFAULT, TestRunner.parse(%w[--aarch64-jruby])[:passes] - %w[aarch64], "and everything else"
    assert_equal %w[aarch64], TestRunner.parse(%w[--pass aarch64])[:passes]
    refute_includes TestRunner.parse(%w[--all-jrubies])[:passes], "aarch64"
    assert_equal %w[aarch64], TestRunner.parse(%w[--pass 9.4.8.0 --aarch64-jruby])[:passes], "with that release alone"
    assert_equal %w[test/integration/aarch64_jruby_test.rb], Passes.plan.fetch("aarch64")
  end

  # bin/test --hooks-on: the hook files (the 10.0 pass's) on any release,
  # nothing else unless asked; names that are no release refused.
  def test_hooks_on_runs_the_hook_files_on_any_release
    options = TestRunner.parse(%w[--hooks-on 10.0.6.0,9.4.12])
    assert_equal [%w[10.0.6.0 9.4.12.0], []], options.values_at(:hooks_on, :passes)
    assert_equal Passes::DEFAULT, TestRunner.parse(%w[--hooks-on 10.0.6.0 --pass main,fallback,hooks])[:passes]
    pass = Passes.find("10.0.6.0")
    assert_equal ["10.0.6.0", "10.0.6.0", Passes::TEST_LIBRARY], [pass.name, pass.jruby_version, pass.env["FAST_RANDOM_NATIVE_LIBRARY"]]
    assert_includes Passes.plan.fetch("10.0"), "test/integration/jruby_openssl_releases_test.rb"
    _, err = capture_subprocess_io { assert_raises(SystemExit) { TestRunner.parse(%w[--hooks-on 10.x]) } }
    assert_match(/--hooks-on needs JRuby releases/, err)
    _, err = capture_subprocess_io { assert_raises(SystemExit) { TestRunner.parse(%w[--pass 10.0.6.0]) } }
    assert_match(/no pass 10\.0\.6\.0 .*any other JRuby release: --hooks-on/, err)
  end

  # The end of a run (all a CI tail may show) names each failure again:
  # the test, its file and line, the message, and a job that died.
  def test_the_summary_names_what_failed
    Dir.mktmpdir do |dir|
      log = File.join(dir, "10.1-03.log")
      File.write(log, <<~LOG)
        ..F.E

          1) Failure:
        ArmTest#test_rndr [test/native/aarch64_test.rb:42]:
        Expected true to be falsy.

          2) Error:
        FooTest#test_bar:
        RuntimeError: boom \xff
            test/foo_test.rb:3:in `block'

          3) Skipped:
        FooTest#test_skipped [test/foo_test.rb:9]:
        not here

        5 runs, 9 assertions, 1 failures, 1 errors, 0 skips
      LOG
      pass = Passes.find("10.1")
      jobs = [TestRunner::Job.new(pass: pass, index: 3, log: log, counts: [5, 9, 1, 1, 1], problem: "the JRuby ended with exit 1"),
              TestRunner::Job.new(pass: pass, index: 4, log: File.join(dir, "none.log"), problem: "still running after 900 s: killed")]
      out, = capture_io { TestRunner.report_failures(jobs) }
      lines = out.lines(chomp: true)
      assert_equal "What failed:", lines.first
      assert_includes lines, "  10.1 job 3 (#{log}): 1) Failure:"
      assert_includes lines, "      ArmTest#test_rndr [test/native/aarch64_test.rb:42]:"
      assert_includes lines, "      Expected true to be falsy."
      assert_includes lines, "      RuntimeError: boom \uFFFD"
      assert_includes lines, "  10.1 job 4 (#{dir}/none.log): the run ended without a minitest summary"
      assert_includes lines, "  10.1 job 4 (#{dir}/none.log): still running after 900 s: killed"
      refute lines.any? { |line| line.strip.empty? || line.include?("5 runs") || line.include?("Skipped") }, out
      refute lines.any? { |line| line.include?("exit 1") }, "a job whose tests failed did not die: #{out}"
    end
    out, = capture_io { TestRunner.report_failures([]) }
    assert_empty out, "nothing when nothing failed"
  end
end
