# frozen_string_literal: true

# Runs every workload in bench/ on MRI, stock JRuby and JRuby + fast_random
# (each backend, each RSA engine), on JRuby 10.1 and 9.4, one fresh process
# per workload and implementation, and merges what benchmark-ips wrote in
# each (its x.json! output, see support/harness.rb) into one report: printed
# on the terminal, and written to bench/results/latest.md, latest.svg (the
# chart) and latest.json (the merged data, not committed); a --quick or
# partial (--only, --jruby) run writes them to tmp/bench/results instead, so
# the committed full results stay. `rake bench` and bin/bench run this with MRI.
#
#   ruby bench/run.rb [--quick] [--jruby 10.1,9.4[,10.0,9.4.8,...]] [--only secure_random,threads,cold,request_id,rsa,rsa_threads,ec,ec_threads,keys,crypto,crypto_threads,uuid_jvm,tls,https,x509,startup]
#   ruby bench/run.rb --report-only     # rewrite the report from bench/results/latest.json
#   ruby bench/run.rb --root bullseye --jruby 9.4 --only rsa,ec
#                                       # in the Debian 11 root (script/debian_root.rb): its MRI 2.7
#                                       # and OpenSSL 1.1.1, its Java 17 under the JRubies
require "fileutils"
require "json"
require "open3"
require "optparse"
require_relative "support/chart"
require_relative "support/machine"
require_relative "support/plan"
require_relative "support/report"
require_relative "support/results"
require_relative "support/rsa_keys"
require_relative "support/ec_keys"
require_relative "support/tls_certs"
require_relative "../script/jruby_versions"

ROOT = File.expand_path("..", __dir__)
RAW = File.join(ROOT, "tmp/bench/raw")
RESULTS = File.join(ROOT, "bench/results")
PARTIAL_RESULTS = File.join(ROOT, "tmp/bench/results")
JRUBIES = %w[10.1 9.4].freeze
# Other releases can run side by side (--jruby 10.1,10.0,9.4.12.0): any
# name bin/jruby's --jruby takes (script/env.sh's fr_jruby_version), each
# downloaded from Maven Central before the first run if it is not there.

options = { quick: false, jrubies: JRUBIES, only: Bench::Plan::WORKLOADS, report_only: false, root: nil }
OptionParser.new do |o|
  o.banner = "usage: bin/bench [--quick] [--jruby #{JRUBIES.join(",")}] [--only #{Bench::Plan::WORKLOADS.join(",")}] [--report-only]"
  o.on("--quick", "short runs for a smoke test (rough numbers)") { options[:quick] = true }
  o.on("--jruby LIST", Array, "JRuby versions to run (default: all)") do |list|
    unknown = list.reject { |name| JRubyVersions.full(name) }
    abort "unknown JRuby #{unknown.join(", ")} (use 10.1, 10.0, 9.4 or a release, such as " \
          "#{(JRubyVersions.pinned + JRubyVersions.older).join(", ")})" unless unknown.empty?
    # Fetched now, so that a release Maven Central does not have stops the run before it starts.
    missing = list.reject { |name| JRubyVersions.jar(JRubyVersions.full(name)) }
    abort "bin/bench: no JRuby #{missing.join(", ")} (above)" unless missing.empty?
    options[:jrubies] = list
  end
  o.on("--only LIST", Array, "workloads to run (default: all)") do |list|
    unknown = list - Bench::Plan::WORKLOADS
    abort "unknown workload #{unknown.join(", ")} (use #{Bench::Plan::WORKLOADS.join(", ")})" unless unknown.empty?
    options[:only] = list
  end
  o.on("--report-only", "print and write the report of bench/results/latest.json again") { options[:report_only] = true }
  o.on("--root NAME", "run in a Debian root of the test beds (#{DebianRoot::BENCH.keys.join(", ")}; made by bin/setup)") do |name|
    options[:root] = DebianRoot::BENCH.fetch(name) { abort "no Debian root #{name} for bin/bench (#{DebianRoot::BENCH.keys.join(", ")})" }
  end
end.parse!

if options[:root]
  problem = options[:root].problem
  abort "bin/bench --root: #{problem}" if problem
  options[:only] &= Bench::Implementation::ROOT_WORKLOADS if options[:only] == Bench::Plan::WORKLOADS
  others = options[:only] - Bench::Implementation::ROOT_WORKLOADS
  abort "bin/bench --root runs only #{Bench::Implementation::ROOT_WORKLOADS.join(", ")}, not #{others.join(", ")}" unless others.empty?
  Bench::Implementation.root = options[:root]
end

def log(message)
  warn "[bench #{Time.now.strftime("%H:%M:%S")}] #{message}"
end

def clock
  Process.clock_gettime(Process::CLOCK_MONOTONIC)
end

def minutes(seconds)
  seconds < 90 ? "#{seconds.round} s" : "#{(seconds / 60.0).round} min"
end

# Where this MRI finds benchmark-ips (Debian: vendor_ruby), for the JRubies.
def ips_path
  $LOAD_PATH.resolve_feature_path("benchmark/ips")&.last&.delete_suffix("/benchmark/ips.rb") or
    abort "benchmark-ips is not installed (bin/setup installs Debian's ruby-benchmark-ips)"
end

# Runs one workload in one implementation; returns what goes into the merged
# results for it: benchmark-ips's entries and the notes, or why there are none.
def run_workload(step, quick:)
  impl = step.implementation
  return { "unavailable" => impl.unavailable } if impl.unavailable

  prefix = File.join(RAW, "#{step.workload}--#{impl.key}")
  # In a root, its own benchmark-ips (Debian's ruby-benchmark-ips, which fr_root_packages installs there).
  ips = Bench::Implementation.root ? Bench::Implementation::ROOT_IPS_DIR : ips_path
  env = impl.environment.merge("BENCH_OUTPUT" => prefix, "BENCH_IPS_PATH" => ips, "BENCH_QUICK" => quick ? "1" : nil)
  env["BENCH_CASES"] = impl.cases.join(";") if impl.cases && step.workload == "secure_random"
  out, status = impl.capture(env, File.join(ROOT, "bench/#{step.workload}.rb"))
  File.write("#{prefix}.log", out)
  unless status.success? && File.exist?("#{prefix}.ips.json")
    reason = out.lines.map(&:strip).reject(&:empty?).grep_v(/\A(at |from |org\.|java\.)/).last(1).join
    log "  failed (#{prefix}.log): #{reason}"
    return { "failed" => reason }
  end

  { "entries" => JSON.parse(File.read("#{prefix}.ips.json")), "meta" => JSON.parse(File.read("#{prefix}.meta.json")) }
end

# The raw RDRAND rate of this CPU from a C loop, a few times.
def rdrand_rate
  source = File.join(ROOT, "bench/native/rdrand_rate.c")
  binary = File.join(ROOT, "tmp/bench/rdrand_rate")
  unless File.exist?(binary) && File.mtime(binary) >= File.mtime(source)
    FileUtils.mkdir_p(File.dirname(binary))
    system("gcc", "-O2", "-o", binary, source, exception: true)
  end
  Array.new(Bench::Plan::RDRAND_RUNS) do
    out, err, status = Open3.capture3(binary)
    raise "rdrand_rate failed: #{err}" unless status.success?

    JSON.parse(out)
  end
end

def run_startup(plan, jrubies)
  output = File.join(RAW, "startup.json")
  system(RbConfig.ruby, File.join(ROOT, "bench/startup.rb"), "--jruby", jrubies.join(","),
         "--runs", plan.startup_runs.to_s, "--fresh-seconds", plan.startup_fresh_seconds.to_s,
         "--output", output, exception: true)
  JSON.parse(File.read(output))
end

# A full run's report goes to bench/results (committed); a --quick or
# partial one to tmp/bench/results, leaving the committed one as it was.
def write_report(results, directory)
  report = Bench::Report.new(results)
  FileUtils.mkdir_p(directory)
  File.write(File.join(directory, "latest.json"), JSON.pretty_generate(results.data))
  File.write(File.join(directory, "latest.md"), report.markdown)
  File.write(File.join(directory, "latest.svg"), Bench::Chart.new(results).svg)
  puts report.text
  log "written: #{directory.delete_prefix("#{ROOT}/")}/latest.md, latest.svg, latest.json"
end

full = !options[:quick] && options[:only] == Bench::Plan::WORKLOADS && options[:jrubies] == JRUBIES && !options[:root]
if options[:report_only]
  directory = File.exist?(File.join(RESULTS, "latest.json")) ? RESULTS : PARTIAL_RESULTS
  write_report(Bench::Results.new(JSON.parse(File.read(File.join(directory, "latest.json")))), directory)
  exit
end

plan = Bench::Plan.new(jrubies: options[:jrubies], workloads: options[:only], quick: options[:quick])
FileUtils.rm_rf(RAW)
FileUtils.mkdir_p(RAW)
log "#{options[:quick] ? "quick" : "full"} run: #{plan.steps.size} steps on #{plan.implementations.size} implementations, " \
    "about #{minutes(plan.seconds)} on an idle machine (a busy one takes longer)"

data = {
  "date" => Time.now.utc.strftime("%Y-%m-%d %H:%M UTC"),
  "quick" => options[:quick],
  "machine" => Bench::Machine.describe(options[:root] && Bench::Implementation),
  "load_before" => Bench::Machine.load_average,
  "implementations" => plan.implementations.map do |impl|
    { "key" => impl.key, "label" => impl.label, "jruby" => impl.jruby, "variant" => impl.variant, "stock_key" => impl.stock_key,
      "cases" => impl.cases }
  end,
  "workloads" => {},
}
Bench::RSAKeys.generate if (options[:only] & %w[rsa rsa_threads keys x509]).any?
Bench::ECKeys.generate if (options[:only] & %w[ec ec_threads keys x509]).any?
Bench::TLSCerts.generate if (options[:only] & %w[tls https]).any?

started = clock
planned_done = 0.0
plan.steps.each_with_index do |step, i|
  elapsed = clock - started
  # How much slower (or faster) than planned the machine has been so far.
  pace = planned_done.positive? ? elapsed / planned_done : 1.0
  left = (plan.seconds - planned_done) * pace
  log "[#{i + 1}/#{plan.steps.size}] #{step.name} (about #{minutes(left)} left)"
  case step.kind
  when :ips then (data["workloads"][step.workload] ||= {})[step.implementation.key] = run_workload(step, quick: options[:quick])
  when :rdrand_rate then data["rdrand_raw"] = rdrand_rate
  when :startup then data["startup"] = run_startup(plan, options[:jrubies])
  end
  planned_done += step.seconds
end
data["elapsed_seconds"] = clock - started
data["load_after"] = Bench::Machine.load_average
log "done in #{minutes(data["elapsed_seconds"])}"

write_report(Bench::Results.new(data), full ? RESULTS : PARTIAL_RESULTS)
