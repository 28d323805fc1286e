# frozen_string_literal: true

require "etc"
require "rbconfig"

module Bench
  # What the numbers were measured on, as bench/run.rb (MRI) sees it: the
  # CPU, the cores, the load on them, and MRI with its OpenSSL.
  module Machine
    module_function

    def describe
      {
        "cpu" => cpu,
        "cores" => Etc.nprocessors,
        "os" => "#{Etc.uname[:sysname]} #{Etc.uname[:release]}",
        "mri" => RUBY_DESCRIPTION,
        "mri_openssl" => openssl_version,
        "benchmark_ips" => benchmark_ips_version,
      }
    end

    def cpu
      File.read("/proc/cpuinfo")[/^model name\s*:\s*(.+)$/, 1] || "unknown CPU"
    rescue SystemCallError
      "unknown CPU"
    end

    # The 1, 5 and 15 minute load averages: other work on the machine makes
    # every number noisier, so the report prints them.
    def load_average
      File.read("/proc/loadavg").split.first(3).map(&:to_f)
    rescue SystemCallError
      nil
    end

    def openssl_version
      require "openssl"
      OpenSSL::OPENSSL_LIBRARY_VERSION
    rescue LoadError
      nil
    end

    def benchmark_ips_version
      require "benchmark/ips"
      Benchmark::IPS::VERSION
    rescue LoadError
      nil
    end
  end
end
