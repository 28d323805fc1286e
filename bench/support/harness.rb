# frozen_string_literal: true

# Shared by the workloads that run inside one Ruby (MRI, stock JRuby, or JRuby
# with fast_random): what to load, how long to measure, where benchmark-ips
# writes its results. bench/run.rb sets the environment variables; each
# workload can also be run by hand and then prints benchmark-ips's own report:
#   bin/jruby bench/secure_random.rb                       # stock JRuby
#   BENCH_VARIANT=fast_random bin/jruby bench/secure_random.rb
#   BENCH_VARIANT=fast_random FAST_RANDOM_BACKEND=rdrand bin/jruby bench/threads.rb
#   ruby bench/secure_random.rb                            # MRI
module Bench
  VARIANTS = %w[mri stock fast_random].freeze

  # Where Debian's ruby-benchmark-ips puts the library.
  DEBIAN_IPS_DIR = "/usr/lib/ruby/vendor_ruby"

  module_function

  # mri         MRI's own SecureRandom
  # stock       JRuby's SecureRandom, fast_random not loaded
  # fast_random JRuby with fast_random; its backend and RSA engine come from
  #             its own FAST_RANDOM_BACKEND and FAST_RANDOM_RSA_ENGINE
  def variant
    @variant ||= ENV.fetch("BENCH_VARIANT") { RUBY_ENGINE == "jruby" ? "stock" : "mri" }.tap do |name|
      abort "BENCH_VARIANT must be one of #{VARIANTS.join(", ")}" unless VARIANTS.include?(name)
      abort "BENCH_VARIANT=#{name} needs JRuby" if name != "mri" && RUBY_ENGINE != "jruby"
    end
  end

  # Yields chunk sizes that add up to n, for a timed loop method to be
  # called with: a method called many times is JIT-compiled and optimized
  # as a running app's hot code is, where one call with a huge n (as
  # benchmark-ips would make) would be measured interpreted or half-optimized.
  def in_chunks(n, chunk)
    full, rest = n.divmod(chunk)
    full.times { yield chunk }
    yield rest
  end

  def load_subject
    require "securerandom"
    require "fast_random" if variant == "fast_random"
  end

  def quick?
    ENV["BENCH_QUICK"] == "1"
  end

  # Seconds of warm-up and of measurement per benchmark-ips entry; bench/run.rb
  # estimates its running time from the same numbers. --quick is a smoke test
  # (bin/bench --quick in under 5 minutes on 2 cores): enough for JRuby's JIT
  # to compile the loops on an idle machine, too short for steady numbers.
  FULL_TIMES = { warmup: 3, time: 5 }.freeze
  QUICK_TIMES = { warmup: 0.3, time: 0.3 }.freeze

  def ips_times
    quick? ? QUICK_TIMES : FULL_TIMES
  end

  # benchmark-ips comes from Debian's ruby-benchmark-ips; bench/run.rb passes
  # its directory so JRuby can load it too. The directory is appended, so it
  # shadows nothing JRuby ships.
  def load_ips
    dirs = ENV.fetch("BENCH_IPS_PATH", "").split(File::PATH_SEPARATOR)
    dirs << DEBIAN_IPS_DIR if dirs.empty? && File.exist?(File.join(DEBIAN_IPS_DIR, "benchmark/ips.rb"))
    dirs.each { |dir| $LOAD_PATH.push(dir) unless $LOAD_PATH.include?(dir) }
    require "benchmark/ips"
  end

  # The path prefix bench/run.rb gave for this run's files, or nil by hand.
  def output_prefix
    ENV["BENCH_OUTPUT"]
  end

  # Runs benchmark-ips over the entries the block adds. Under bench/run.rb its
  # own JSON (x.json!) goes to BENCH_OUTPUT.ips.json, and +notes+ (what the
  # runtime was, anything a reader of the numbers must know) with the
  # runtime's versions to BENCH_OUTPUT.meta.json; bench/run.rb merges both.
  def ips(notes = {})
    load_ips
    report = Benchmark.ips(**ips_times, quiet: !output_prefix.nil?) do |x|
      x.json!("#{output_prefix}.ips.json") if output_prefix
      yield x
    end
    write_meta(notes)
    report
  end

  # benchmark-ips's entry fields for a measurement made some other way:
  # +rates+ the per-sample rates (their standard deviation is the error),
  # +mean+ the overall rate.
  def entry(name, rates, mean, calls:, seconds:)
    stddev = Math.sqrt(rates.sum { |r| (r - mean)**2 } / [rates.size - 1, 1].max)
    { "name" => name, "central_tendency" => mean, "ips" => mean, "error" => stddev.round, "stddev" => stddev.round,
      "microseconds" => seconds * 1e6, "iterations" => calls, "cycles" => rates.size }
  end

  # Writes entries made with Bench.entry where Bench.ips puts benchmark-ips's
  # (bench/run.rb merges both alike), or prints them when run by hand.
  def write_entries(entries, notes = {})
    require "json"
    entries.each do |r|
      warn format("%-32s %14.1f i/s (±%.1f%%)", r["name"], r["ips"], 100.0 * r["stddev"] / r["ips"]) unless output_prefix
    end
    File.write("#{output_prefix}.ips.json", JSON.pretty_generate(entries)) if output_prefix
    write_meta(notes)
  end

  def write_meta(notes)
    return unless output_prefix

    require "json"
    File.write("#{output_prefix}.meta.json", JSON.pretty_generate("runtime" => runtime, "notes" => notes))
  end

  def runtime
    info = { "engine" => RUBY_ENGINE, "ruby_version" => RUBY_VERSION, "description" => RUBY_DESCRIPTION,
             "variant" => variant }
    if RUBY_ENGINE == "jruby"
      info["jruby_version"] = JRUBY_VERSION
      info["java_version"] = ENV_JAVA["java.version"]
      info["java_vm"] = "#{ENV_JAVA["java.vm.name"]} #{ENV_JAVA["java.vm.version"]}"
    end
    if defined?(FastRandom)
      info["fast_random"] = FastRandom::VERSION
      info["backend"] = FastRandom.backend.to_s
    end
    info.merge(openssl_versions)
  end

  # The OpenSSL the workload ran on, when it loaded openssl.
  def openssl_versions
    return {} unless defined?(OpenSSL::VERSION)

    info = { "openssl_gem" => OpenSSL::VERSION, "openssl_library" => OpenSSL::OPENSSL_LIBRARY_VERSION }
    if defined?(FastRandom::RSA) && FastRandom::RSA.installed?
      info["rsa_engine"] = FastRandom::RSA.engine.to_s
      info["rsa_public_exponentiation"] = Java::FastrandomJni::LibCrypto.public_exponentiation.to_s
      info["fast_random_libcrypto"] = FastRandom::RSA.stats[:libcrypto]
    end
    info["fast_random_libcrypto"] ||= FastRandom::EC.stats[:libcrypto] if defined?(FastRandom::EC) && FastRandom::EC.installed?
    info
  end
end
