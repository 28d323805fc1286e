# frozen_string_literal: true

# Runs every benchmark on MRI, stock JRuby, JRuby + fast_random (:drbg) and
# JRuby + fast_random (:rdrand), on each supported JRuby, and merges the
# results into one report: bench/results/latest.md (and latest.json beside
# it, not committed). `rake bench` and bin/bench run this with MRI.
#
#   ruby bench/run.rb [--quick] [--jruby 10.1[,9.4]] [--only secure_random,threads,startup,rdrand]
require "fileutils"
require "json"
require "open3"
require "optparse"
require "rbconfig"
require "etc"
require_relative "support/report"

ROOT = File.expand_path("..", __dir__)
RAW = File.join(ROOT, "tmp/bench/raw")
RESULTS = File.join(ROOT, "bench/results")
PARTS = %w[secure_random threads startup rdrand rsa].freeze
RSA_ENGINES = %w[openssl gmp java].freeze
JRUBIES = { "10.1" => "10.1.0.0", "9.4" => "9.4.15.0" }.freeze

options = { quick: false, jrubies: JRUBIES.keys, only: PARTS }
OptionParser.new do |o|
  o.banner = "usage: bin/bench [--quick] [--jruby 10.1,9.4] [--only #{PARTS.join(",")}]"
  o.on("--quick", "short runs, to try the harness (numbers are rough)") { options[:quick] = true }
  o.on("--jruby LIST", Array, "JRuby versions to run (default: all)") do |list|
    unknown = list - JRUBIES.keys
    abort "unknown JRuby #{unknown.join(", ")} (use #{JRUBIES.keys.join(", ")})" unless unknown.empty?
    options[:jrubies] = list
  end
  o.on("--only LIST", Array, "parts to run (default: all)") do |list|
    unknown = list - PARTS
    abort "unknown part #{unknown.join(", ")} (use #{PARTS.join(", ")})" unless unknown.empty?
    options[:only] = list
  end
end.parse!

FileUtils.rm_rf(RAW)
FileUtils.mkdir_p([RAW, RESULTS])

# Where this MRI finds benchmark-ips (Debian: vendor_ruby), for the JRubies.
IPS_PATH = $LOAD_PATH.resolve_feature_path("benchmark/ips")&.last&.delete_suffix("/benchmark/ips.rb") or
  abort "benchmark-ips is not installed (bin/setup installs Debian's ruby-benchmark-ips)"

def log(message)
  warn "[bench #{Time.now.strftime("%H:%M:%S")}] #{message}"
end

# Runs bench/<script>.rb in one Ruby (MRI or a JRuby) for one variant and
# returns its parsed result.
def run_script(script, variant:, jruby: nil, quick:, rsa_engine: nil)
  name = [script, jruby, variant, rsa_engine].compact.join("-")
  output = File.join(RAW, "#{name}.json")
  env = { "BENCH_VARIANT" => variant, "BENCH_OUTPUT" => output, "BENCH_IPS_PATH" => IPS_PATH,
          "BENCH_QUICK" => quick ? "1" : nil, "BENCH_RSA_ENGINE" => rsa_engine }
  command = jruby ? [File.join(ROOT, "bin/jruby"), "--jruby", jruby] : [RbConfig.ruby]
  log "#{script}: #{jruby ? "JRuby #{jruby}" : "MRI"} #{variant}#{" #{rsa_engine}" if rsa_engine}"
  _, err, status = Open3.capture3(env, *command, File.join(ROOT, "bench/#{script}.rb"))
  raise "#{name} failed:\n#{err}" unless status.success? && File.exist?(output)

  JSON.parse(File.read(output))
end

# The raw RDRAND rate of this CPU from a C loop (median of three runs).
def rdrand_rate
  source = File.join(ROOT, "bench/native/rdrand_rate.c")
  binary = File.join(ROOT, "tmp/bench/rdrand_rate")
  unless File.exist?(binary) && File.mtime(binary) >= File.mtime(source)
    FileUtils.mkdir_p(File.dirname(binary))
    system("gcc", "-O2", "-o", binary, source, exception: true)
  end
  log "rdrand: raw rdrand64 loop"
  runs = Array.new(3) do
    out, err, status = Open3.capture3(binary)
    raise "rdrand_rate failed: #{err}" unless status.success?

    JSON.parse(out)
  end
  runs.sort_by { |run| run["bytes_per_second"] }[1]
end

def rdrand_supported?
  File.read("/proc/cpuinfo").match?(/^flags\s*:.*\brdrand\b/)
rescue SystemCallError
  false
end

results = {
  "date" => Time.now.utc.strftime("%Y-%m-%d %H:%M UTC"),
  "quick" => options[:quick],
  "machine" => Bench::Report.machine,
  "secure_random" => {}, "threads" => {}, "startup" => {}, "rsa" => {},
}
variants = %w[stock fast_random]
variants << "rdrand" if rdrand_supported?

results["rdrand_raw"] = [rdrand_rate] if options[:only].include?("rdrand") && rdrand_supported?

%w[secure_random threads].each do |script|
  next unless options[:only].include?(script)

  results[script]["MRI"] = run_script(script, variant: "mri", quick: options[:quick])
  options[:jrubies].each do |jruby|
    variants.each do |variant|
      results[script]["#{jruby} #{variant}"] = run_script(script, variant: variant, jruby: jruby, quick: options[:quick])
    end
  end
end

results["rdrand_raw"] << rdrand_rate if results["rdrand_raw"]

if options[:only].include?("rsa")
  require_relative "support/rsa_keys"
  Bench::RSAKeys.generate
  results["rsa"]["MRI"] = run_script("rsa", variant: "mri", quick: options[:quick])
  options[:jrubies].each do |jruby|
    results["rsa"]["#{jruby} stock"] = run_script("rsa", variant: "stock", jruby: jruby, quick: options[:quick])
    RSA_ENGINES.each do |engine|
      results["rsa"]["#{jruby} #{engine}"] =
        run_script("rsa", variant: "fast_random", jruby: jruby, quick: options[:quick], rsa_engine: engine)
    end
  end
end

if options[:only].include?("startup")
  options[:jrubies].each do |jruby|
    log "startup: JRuby #{jruby}"
    output = File.join(RAW, "startup-#{jruby}.json")
    runs = options[:quick] ? 3 : 10
    system(RbConfig.ruby, File.join(ROOT, "bench/startup.rb"), "--jruby", jruby, "--runs", runs.to_s, "--output", output,
           exception: true)
    results["startup"][jruby] = JSON.parse(File.read(output))
  end
end

report = Bench::Report.new(results, jrubies: options[:jrubies])
File.write(File.join(RESULTS, "latest.json"), JSON.pretty_generate(results))
File.write(File.join(RESULTS, "latest.md"), report.markdown)
puts report.markdown
log "written to bench/results/latest.md"
