# frozen_string_literal: true

# Shared by the scripts that run inside one Ruby (MRI, stock JRuby, or JRuby
# with fast_random): what to load, how long to measure, where to write.
# bench/run.rb sets these environment variables; each script can also be run
# by hand, e.g.
#   BENCH_VARIANT=fast_random bin/jruby bench/secure_random.rb
module Bench
  VARIANTS = %w[mri stock fast_random rdrand].freeze

  module_function

  # mri         MRI's own SecureRandom
  # stock       JRuby's SecureRandom, nothing else loaded
  # fast_random JRuby with fast_random, default :drbg backend
  # rdrand      JRuby with fast_random, :rdrand backend
  def variant
    @variant ||= ENV.fetch("BENCH_VARIANT") { RUBY_ENGINE == "jruby" ? "fast_random" : "mri" }.tap do |name|
      abort "BENCH_VARIANT must be one of #{VARIANTS.join(", ")}" unless VARIANTS.include?(name)
    end
  end

  def load_subject
    require "securerandom"
    return unless %w[fast_random rdrand].include?(variant)

    require "fast_random"
    FastRandom.backend = :rdrand if variant == "rdrand"
  end

  def quick?
    ENV["BENCH_QUICK"] == "1"
  end

  # Where Debian's ruby-benchmark-ips puts the library.
  DEBIAN_IPS_DIR = "/usr/lib/ruby/vendor_ruby"

  # benchmark-ips comes from Debian's ruby-benchmark-ips; bench/run.rb passes
  # its directory so JRuby can load it too. The directory is appended, so it
  # shadows nothing JRuby ships.
  def load_ips
    dirs = ENV.fetch("BENCH_IPS_PATH", "").split(File::PATH_SEPARATOR)
    dirs << DEBIAN_IPS_DIR if dirs.empty? && File.exist?(File.join(DEBIAN_IPS_DIR, "benchmark/ips.rb"))
    dirs.each { |dir| $LOAD_PATH.push(dir) unless $LOAD_PATH.include?(dir) }
    require "benchmark/ips"
  end

  def ips_times
    quick? ? { warmup: 1, time: 1 } : { warmup: 2, time: 3 }
  end

  def runtime
    info = { "engine" => RUBY_ENGINE, "ruby_version" => RUBY_VERSION, "variant" => variant }
    if RUBY_ENGINE == "jruby"
      info["jruby_version"] = JRUBY_VERSION
      info["java_version"] = ENV_JAVA["java.version"]
      if defined?(FastRandom)
        info["fast_random"] = FastRandom::VERSION
        info["backend"] = FastRandom.backend.to_s
      end
    end
    info
  end

  def clock
    Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end

  # Writes the result where bench/run.rb asked (BENCH_OUTPUT), else prints it.
  def emit(result)
    require "json"
    json = JSON.pretty_generate(result.merge("runtime" => runtime))
    if (path = ENV["BENCH_OUTPUT"])
      File.write(path, json)
    else
      puts json
    end
  end
end
