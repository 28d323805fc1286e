# frozen_string_literal: true

# Runs test-unit files in this JRuby and writes each test's outcome as it
# ends, one JSON line each, so that a run that dies or hangs still tells
# which tests ran (test/support/peer_ssl_suites.rb starts it, stock or with
# -rfast_random):
#
#   jruby peer_ssl_driver.rb RESULTS.jsonl [--only=NAME,...] FILE... [-- TEST-UNIT-ARGS...]
#
# --only runs the tests named (Class#method) and the test cases named (Class)
# alone. Lines, appended to RESULTS.jsonl:
#   {"planned": ["Class#method", ...]}      the tests about to run
#   {"started": "Class#method"}             a test starts
#   {"test": "Class#method", "outcome": "pass|fail|error|skip|hung", "seconds": 1.5, "message": "..."}
#   {"run": {"jruby": ..., "jruby_openssl": ..., "fast_random": ..., "tls_installed": ...}}  the end
# A test still running after PEER_SSL_TEST_DEADLINE seconds (60) gets an
# exception raised in it; if it is still running 10 s later, it is written
# down as hung and the process exits at once (status 3), for the caller to
# run the tests not yet run in a new one.
require "json"
require "test/unit"
require "test/unit/ui/console/testrunner"

Test::Unit::AutoRunner.need_auto_run = false

results_path, *arguments = ARGV
separator = arguments.index("--")
files = separator ? arguments[0...separator] : arguments
test_unit_arguments = separator ? arguments[(separator + 1)..] : []
only = files.first&.start_with?("--only=") ? files.shift.delete_prefix("--only=").split(",") : nil

PEER_SSL_RESULTS = File.open(results_path, "a")
PEER_SSL_RESULTS.sync = true
PEER_SSL_TEST_DEADLINE = Float(ENV.fetch("PEER_SSL_TEST_DEADLINE", "60"))

class PeerSslDeadline < StandardError; end

class PeerSslRunner < Test::Unit::UI::Console::TestRunner
  # The worst fault decides: an error over a failure over a skip.
  RANK = { "pass" => 0, "skip" => 1, "fail" => 2, "error" => 3 }.freeze

  def self.name_of(test) = "#{test.class.name}##{test.local_name}"

  def attach_to_mediator
    super
    @mediator.add_listener(Test::Unit::UI::TestRunnerMediator::STARTED) do
      write("planned" => planned(@suite))
    end
    @mediator.add_listener(Test::Unit::TestCase::STARTED_OBJECT) do |test|
      @current = { "test" => self.class.name_of(test), "outcome" => "pass" }
      @started_at = now
      write("started" => @current["test"])
      watch(@current, Thread.current)
    end
    @mediator.add_listener(Test::Unit::TestResult::FAULT) { |fault| note(fault) }
    @mediator.add_listener(Test::Unit::TestCase::FINISHED_OBJECT) do
      write(@current.merge("seconds" => (now - @started_at).round(2))) if @current
      @current = nil
    end
  end

  private

  def planned(suite)
    suite.is_a?(Test::Unit::TestSuite) ? suite.tests.flat_map { |test| planned(test) } : [self.class.name_of(suite)]
  end

  def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

  # At the deadline, raises PeerSslDeadline in the test's thread; 10 s later,
  # if the test has still not ended, writes it down as hung and exits.
  def watch(current, thread)
    Thread.new do
      sleep PEER_SSL_TEST_DEADLINE
      next unless @current.equal?(current)

      thread.raise(PeerSslDeadline, "ran past its deadline of #{PEER_SSL_TEST_DEADLINE.to_i} s")
      sleep 10
      next unless @current.equal?(current)

      write(current.merge("outcome" => "hung", "message" => "did not end #{PEER_SSL_TEST_DEADLINE.to_i + 10} s after it started"))
      exit!(3)
    end
  end

  def note(fault)
    return unless @current

    outcome = case fault
              when Test::Unit::Error then "error"
              when Test::Unit::Failure then "fail"
              when Test::Unit::Pending, Test::Unit::Omission then "skip"
              else return # notifications
              end
    return if RANK.fetch(outcome) < RANK.fetch(@current["outcome"])

    @current["outcome"] = outcome
    @current["message"] = fault.message.to_s.lines.first(3).join.strip[0, 300]
  end

  def write(record)
    PEER_SSL_RESULTS.puts(JSON.generate(record))
  end
end

Test::Unit::AutoRunner.register_runner(:peer_ssl) { PeerSslRunner }
if only
  Test::Unit::AutoRunner.prepare do |auto_runner|
    auto_runner.filters << ->(test) { only.include?(test.class.name) || only.include?(PeerSslRunner.name_of(test)) }
  end
end

files.each { |file| require File.expand_path(file) }
success = Test::Unit::AutoRunner.run(false, nil, ["--runner=peer_ssl", *test_unit_arguments])
run = { "jruby" => JRUBY_VERSION, "jruby_openssl" => defined?(JOpenSSL::VERSION) && JOpenSSL::VERSION }
if defined?(FastRandom)
  run["fast_random"] = FastRandom::VERSION
  run["tls_installed"] = FastRandom::TLS.installed? # defined on first use, as every FastRandom submodule
  run["tls_served"] = FastRandom::TLS.stats.values_at(:read_bytes, :written_bytes).sum
end
PEER_SSL_RESULTS.puts(JSON.generate("run" => run))
PEER_SSL_RESULTS.close
exit(success ? 0 : 1)
