# frozen_string_literal: true

# What `require 'fast_random'` adds to a process's start: the time from before
# the require to after the first SecureRandom.uuid, against stock JRuby's
# `require 'securerandom'` plus its first uuid, in fresh processes. Runs come
# in pairs (order alternating inside each pair) and the result is the median
# of each side and of the paired differences.
#   ruby bench/startup.rb [--jruby 10.1] [--runs 10]
require "json"
require "open3"
require "optparse"

ROOT = File.expand_path("..", __dir__)

options = { jruby: "10.1", runs: 10, output: nil }
OptionParser.new do |o|
  o.on("--jruby VERSION") { |v| options[:jruby] = v }
  o.on("--runs N", Integer) { |n| options[:runs] = n }
  o.on("--output PATH") { |p| options[:output] = p }
end.parse!

# Prints the seconds from before the require to after the first uuid; the
# uuid is checked so a broken build cannot look fast.
PROBE = <<~'RUBY'
  t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  require LIBRARY
  uuid = SecureRandom.uuid
  elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC) - t
  raise "bad uuid #{uuid}" unless uuid.match?(/\A\h{8}-\h{4}-4\h{3}-[89ab]\h{3}-\h{12}\z/)
  raise "fast_random not active" if LIBRARY == "fast_random" && !FastRandom.active?
  puts elapsed
RUBY

def run_once(jruby, library)
  code = PROBE.gsub("LIBRARY", library.dump)
  start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  out, err, status = Open3.capture3(File.join(ROOT, "bin/jruby"), "--jruby", jruby, "-e", code)
  wall = Process.clock_gettime(Process::CLOCK_MONOTONIC) - start
  raise "startup probe (#{library}) failed: #{err}" unless status.success?
  { "require_and_first_uuid" => Float(out.lines.last), "process" => wall }
end

def median(values)
  sorted = values.sort
  mid = sorted.size / 2
  sorted.size.odd? ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0
end

LIBRARIES = { "stock" => "securerandom", "fast_random" => "fast_random" }.freeze

run_once(options[:jruby], "fast_random") # builds if needed, warms the page cache
samples = LIBRARIES.keys.to_h { |name| [name, []] }
options[:runs].times do |i|
  order = i.even? ? LIBRARIES.keys : LIBRARIES.keys.reverse
  order.each { |name| samples[name] << run_once(options[:jruby], LIBRARIES[name]) }
end

result = { "benchmark" => "startup", "jruby" => options[:jruby], "runs" => options[:runs], "results" => {} }
%w[require_and_first_uuid process].each do |metric|
  stock = samples["stock"].map { |s| s[metric] }
  fast = samples["fast_random"].map { |s| s[metric] }
  result["results"][metric] = {
    "stock_median" => median(stock),
    "fast_random_median" => median(fast),
    "paired_difference_median" => median(fast.zip(stock).map { |f, s| f - s }),
    "stock" => stock,
    "fast_random" => fast,
  }
end

json = JSON.pretty_generate(result)
options[:output] ? File.write(options[:output], json) : puts(json)
