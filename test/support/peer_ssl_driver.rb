# frozen_string_literal: true

# Runs test-unit files in this JRuby and writes each test's outcome as it
# ends, one JSON line each, so that a run killed at its deadline still
# tells which tests ran and which one hung (test/support/peer_ssl_suites.rb
# starts it, stock or with -rfast_random):
#
#   jruby peer_ssl_driver.rb RESULTS.jsonl [--only=NAME,...] FILE... [-- TEST-UNIT-ARGS...]
#
# --only runs the tests named (Class#method) and the test cases named (Class)
# alone.
# A line is {"test": "Class#method", "outcome": "pass|fail|error|skip",
# "seconds": 1.5, "message": "..."}; a test that started and has no line
# did not end; the last line says what ran them (JRuby, jruby-openssl and
# fast_random's versions, whether FastRandom::TLS was installed). A
# test still running after PEER_SSL_TEST_DEADLINE seconds (60) gets an
# exception raised in it, an error, and the next test starts.
require "json"
require "test/unit"
require "test/unit/ui/console/testrunner"

Test::Unit::AutoRunner.need_auto_run = false

results_path, *arguments = ARGV
separator = arguments.index("--")
files = separator ? arguments[0...separator] : arguments
test_unit_arguments = separator ? arguments[(separator + 1)..] : []
only = files.first&.start_with?("--only=") ? files.shift.delete_prefix("--only=").split(",") : nil

PEER_SSL_RESULTS = File.open(results_path, "w")
PEER_SSL_RESULTS.sync = true
PEER_SSL_TEST_DEADLINE = Float(ENV.fetch("PEER_SSL_TEST_DEADLINE", "60"))

class PeerSslDeadline < StandardError; end

class PeerSslRunner < Test::Unit::UI::Console::TestRunner
  # The worst fault decides: an error over a failure over a skip.
  RANK = { "pass" => 0, "skip" => 1, "fail" => 2, "error" => 3 }.freeze

  def attach_to_mediator
    super
    @mediator.add_listener(Test::Unit::TestCase::STARTED_OBJECT) do |test|
      @current = { "test" => "#{test.class.name}##{test.local_name}", "outcome" => "pass" }
      @started_at = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      write("started" => @current["test"])
      watch(@current, Thread.current)
    end
    @mediator.add_listener(Test::Unit::TestResult::FAULT) { |fault| note(fault) }
    @mediator.add_listener(Test::Unit::TestCase::FINISHED_OBJECT) do
      if @current
        @current["seconds"] = (Process.clock_gettime(Process::CLOCK_MONOTONIC) - @started_at).round(2)
        write(@current)
      end
      @current = nil
    end
  end

  private

  # Raises PeerSslDeadline in the test's thread once, if the same test is
  # still running at its deadline.
  def watch(current, thread)
    Thread.new do
      sleep PEER_SSL_TEST_DEADLINE
      thread.raise(PeerSslDeadline, "ran past its deadline of #{PEER_SSL_TEST_DEADLINE.to_i} s") if @current.equal?(current)
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
    auto_runner.filters << ->(test) { only.include?(test.class.name) || only.include?("#{test.class.name}##{test.local_name}") }
  end
end

files.each { |file| require File.expand_path(file) }
success = Test::Unit::AutoRunner.run(false, nil, ["--runner=peer_ssl", *test_unit_arguments])
# What ran them: the last line, {"run": {...}}.
run = { "jruby" => JRUBY_VERSION, "jruby_openssl" => defined?(JOpenSSL::VERSION) && JOpenSSL::VERSION }
if defined?(FastRandom)
  run["fast_random"] = FastRandom::VERSION
  run["tls_installed"] = FastRandom::TLS.installed? if FastRandom.const_defined?(:TLS, false)
end
PEER_SSL_RESULTS.puts(JSON.generate("run" => run))
PEER_SSL_RESULTS.close
exit(success ? 0 : 1)
