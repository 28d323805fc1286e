# frozen_string_literal: true

require "etc"
require "rbconfig"

module Bench
  # What the numbers were measured on, as bench/run.rb (MRI) sees it: the
  # CPU, the cores, the load on them, and MRI with its OpenSSL.
  module Machine
    module_function

    # +in_root+: the Implementation class whose root the run is in (whose
    # MRI, OpenSSL and benchmark-ips are the root's), or nil.
    def describe(in_root = nil)
      machine = {
        "cpu" => cpu,
        "cores" => Etc.nprocessors,
        "os" => "#{Etc.uname[:sysname]} #{Etc.uname[:release]}",
        "mri" => RUBY_DESCRIPTION,
        "mri_openssl" => openssl_version,
        "benchmark_ips" => benchmark_ips_version,
      }
      return machine unless in_root

      _, description, openssl, ips = in_root.root_mri
      machine.merge("os" => "#{machine["os"]}, in the #{in_root.root.name} (chroot)", "mri" => description,
                    "mri_openssl" => openssl, "benchmark_ips" => ips)
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
