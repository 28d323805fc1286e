# frozen_string_literal: true

require "json"
require "open3"

# Runs a probe script (test/support/mri_probe.rb, bad_input_probe.rb) in
# another Ruby and returns the JSON it prints, or {"error" => why not}:
# * mri: Debian's MRI (`ruby` on PATH, 3.1 here), which bin/setup installs;
# * newer_mri: stock JRuby 10.1 without fast_random, whose securerandom.rb
#   and random/formatter.rb are MRI 3.4's, for what MRI 3.1 lacks
#   (uuid_v4, uuid_v7, alphanumeric's chars:);
# * fast_random: this JRuby with fast_random, in a child process, so a hang
#   or a crash of the JVM shows as a failure instead of stopping the suite.
# Every run has a deadline, after which the process is killed.
module ReferenceRubies
  ROOT = File.expand_path("../..", __dir__)
  DEADLINE = 300 # seconds

  module_function

  def mri(probe, cases:, deadline: DEADLINE)
    ruby = ENV.fetch("PATH", "").split(File::PATH_SEPARATOR).map { |dir| File.join(dir, "ruby") }
              .find { |path| File.file?(path) && File.executable?(path) }
    return { "error" => "MRI's `ruby` is not on PATH; bin/setup installs it (Debian package ruby)" } unless ruby

    # did_you_mean and error_highlight only append lines to messages, and
    # the probes keep only the first line anyway.
    result = run([ruby, "--disable=did_you_mean,error_highlight", probe], deadline)
    return result if result["error"]

    records = Array(result["records"]).size
    unless result["engine"] == "ruby" && records == cases
      return { "error" => "#{ruby} is #{result['engine']} #{result['version']} and gave #{records} records " \
                          "for #{cases} cases; expected MRI (RUBY_ENGINE \"ruby\")" }
    end
    result
  end

  def newer_mri(probe, deadline: DEADLINE)
    run([*TestHelper.jruby_command("10.1"), probe], deadline)
  end

  def fast_random(probe, deadline: DEADLINE)
    run([*TestHelper.jruby_command, "-rfast_random", probe], deadline)
  end

  # The probe's JSON, or {"error" => ...} when it failed, crashed or ran out of time.
  def run(command, deadline)
    out, err, status = capture(command, deadline)
    return { "error" => "#{command.join(' ')} did not finish within #{deadline} s (killed)\n#{err}" } if status.nil?
    return { "error" => "#{command.join(' ')} failed (#{status}):\n#{err}" } unless status.success?

    JSON.parse(out)
  rescue SystemCallError, JSON::ParserError => e
    { "error" => "could not run #{command.join(' ')}: #{e.class}: #{e.message}" }
  end

  # [stdout, stderr, status], status nil when the deadline passed.
  def capture(command, deadline)
    Open3.popen3(*command) do |stdin, stdout, stderr, waiter|
      stdin.close
      out = Thread.new { stdout.read }
      err = Thread.new { stderr.read }
      unless waiter.join(deadline)
        Process.kill("KILL", waiter.pid)
        waiter.join
        return [out.value, err.value, nil]
      end
      [out.value, err.value, waiter.value]
    end
  end
end
