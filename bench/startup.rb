# frozen_string_literal: true

# Process start to the first SecureRandom.uuid, in fresh processes: `ruby`,
# stock `jruby` and `jruby` with fast_random, each running
#   require LIBRARY; puts SecureRandom.uuid
# with LIBRARY "securerandom", or "fast_random" for fast_random (the same as
# `jruby -rfast_random`, but timed from inside too). Two times per process:
# - first_uuid: from just before spawning the process (the JVM itself, not
#   bin/jruby's shell script) to the moment the uuid line arrives on its
#   stdout, on this process's monotonic clock;
# - require_and_uuid: measured inside the process with its monotonic clock,
#   from before the require to after the first uuid: what the library itself
#   adds (the startup target of bench/targets.yml compares it paired, per
#   round).
# Then, in the same process, a cold path that benchmark-ips in one process
# per implementation measures too noisily to judge (thread start dwarfs the
# call, and processes minutes apart see different machines):
# - fresh_thread: fresh threads per second, each making one uuid and ending,
#   timed for FRESH_SECONDS after as long a warm-up. A target of
#   bench/targets.yml compares it paired, per round.
# Every command runs once untimed (builds, page cache), then `--runs` rounds
# run each command once, the order rotating from round to round so drift hits
# all alike. Unlike the other workloads this one is not benchmark-ips: it times
# whole processes, and bench/run.rb runs it with MRI.
#   ruby bench/startup.rb [--jruby 10.1,9.4] [--runs 10] [--fresh-seconds 1.5] [--output PATH]
require "json"
require "open3"
require "optparse"
require_relative "support/implementations"

options = { jrubies: %w[10.1 9.4], runs: 10, fresh_seconds: 1.5, output: nil }
OptionParser.new do |o|
  o.on("--jruby LIST", Array) { |list| options[:jrubies] = list }
  o.on("--runs N", Integer) { |n| options[:runs] = n }
  o.on("--fresh-seconds S", Float) { |seconds| options[:fresh_seconds] = seconds }
  o.on("--output PATH") { |path| options[:output] = path }
end.parse!

PROBE = <<~'RUBY'
  t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  require LIBRARY
  uuid = SecureRandom.uuid
  elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC) - t
  puts uuid
  $stdout.flush
  raise "fast_random is not active" if LIBRARY == "fast_random" && !(defined?(FastRandom) && FastRandom.active?)
  puts elapsed

  def fresh_threads(seconds)
    finish = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
    count = 0
    while Process.clock_gettime(Process::CLOCK_MONOTONIC) < finish
      Thread.new { SecureRandom.uuid }.join
      count += 1
    end
    count
  end
  fresh_threads(FRESH_SECONDS)
  t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  count = fresh_threads(FRESH_SECONDS)
  puts count / (Process.clock_gettime(Process::CLOCK_MONOTONIC) - t)
RUBY

UUID = /\A\h{8}-\h{4}-4\h{3}-[89ab]\h{3}-\h{12}\z/

def clock
  Process.clock_gettime(Process::CLOCK_MONOTONIC)
end

def run_once(command, environment)
  start = clock
  Open3.popen3(environment, *command) do |stdin, stdout, stderr, wait|
    stdin.close
    errors = Thread.new { stderr.read }
    uuid = stdout.gets&.chomp
    first_uuid = clock - start
    rest = stdout.read
    error_output = errors.value
    raise "#{command.last(3).join(" ")} failed: #{error_output}" unless wait.value.success? && uuid&.match?(UUID)

    elapsed, fresh_thread = rest.lines.last(2).map { |line| Float(line) }
    { "first_uuid" => first_uuid, "require_and_uuid" => elapsed, "fresh_thread" => fresh_thread }
  end
end

implementations = Bench::Implementation.all(options[:jrubies]).select { |impl| impl.workloads.include?("startup") }
commands = implementations.to_h do |impl|
  library = impl.fast_random? ? "fast_random" : "securerandom"
  probe = PROBE.gsub("LIBRARY", library.dump).gsub("FRESH_SECONDS", options[:fresh_seconds].to_s)
  [impl.key, impl.direct_command("-e", probe)]
end
environments = implementations.to_h { |impl| [impl.key, impl.environment] }

commands.each { |key, command| run_once(command, environments[key]) }
samples = commands.keys.to_h { |key| [key, []] }
options[:runs].times do |round|
  order = commands.keys.rotate(round % commands.size)
  order.each { |key| samples[key] << run_once(commands[key], environments[key]) }
end

result = {
  "runs" => options[:runs],
  "fresh_seconds" => options[:fresh_seconds],
  "probe" => PROBE,
  "results" => implementations.to_h do |impl|
    [impl.key, { "label" => impl.label,
                 "first_uuid" => samples[impl.key].map { |s| s["first_uuid"] },
                 "require_and_uuid" => samples[impl.key].map { |s| s["require_and_uuid"] },
                 "fresh_thread" => samples[impl.key].map { |s| s["fresh_thread"] } }]
  end,
}
json = JSON.pretty_generate(result)
options[:output] ? File.write(options[:output], json) : puts(json)
