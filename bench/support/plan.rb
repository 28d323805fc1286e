# frozen_string_literal: true

require_relative "calls"
require_relative "harness"
require_relative "implementations"

module Bench
  # What one bench/run.rb will do, in order, with a guess of how long each
  # step takes (from the benchmark-ips times in support/harness.rb and
  # typical process start times), so the run can say up front how long it
  # will take and, as it goes, how long is left.
  class Plan
    WORKLOADS = %w[secure_random threads cold request_id rsa rsa_threads ec ec_threads keys crypto crypto_threads uuid_jvm tls
                   https x509 startup].freeze
    IPS_WORKLOADS = WORKLOADS - %w[startup]

    # Entries per workload (secure_random: per implementation, see entries).
    ENTRIES = { "threads" => 8, "cold" => 2, "request_id" => 2, "rsa" => 12, "rsa_threads" => 6, "ec" => 12,
                "ec_threads" => 6, "keys" => 9, "crypto" => 14, "crypto_threads" => 8, "uuid_jvm" => 3, "tls" => 5, "https" => 4,
                "x509" => 4 }.freeze
    # Seconds to start a process and load the workload, beyond the entries,
    # on an idle 2-core machine.
    START = { mri: 0.3, jruby: 3.0 }.freeze
    LOADING = { "cold" => { mri: 0.2, jruby: 1.0 }, "request_id" => { mri: 0.5, jruby: 4.0 },
                "rsa" => { mri: 0.2, jruby: 1.5 }, "rsa_threads" => { mri: 0.2, jruby: 1.5 },
                "ec" => { mri: 0.2, jruby: 1.5 }, "ec_threads" => { mri: 0.2, jruby: 1.5 }, "keys" => { mri: 0.3, jruby: 2.0 },
                "crypto" => { mri: 0.5, jruby: 4.0 }, "crypto_threads" => { mri: 0.2, jruby: 1.5 },
                "x509" => { mri: 0.2, jruby: 1.5 } }.freeze
    # Workloads that time themselves in rounds (not benchmark-ips's seconds
    # per entry): seconds beyond START, full and --quick.
    OWN_TIMING = { "https" => { full: { mri: 7, jruby: 35 }, quick: { mri: 2, jruby: 14 } },
                   "tls" => { full: { mri: 75, jruby: 75 }, quick: { mri: 5, jruby: 6 } } }.freeze
    # Per entry beyond warm-up and measurement: benchmark-ips's GC.start calls.
    ENTRY_OVERHEAD = 0.15
    RDRAND_RUNS = 3

    # kind: :ips (a workload in one implementation), :rdrand_rate (the raw
    # RDRAND C loop) or :startup (bench/startup.rb, all implementations).
    Step = Struct.new(:kind, :workload, :implementation, :seconds) do
      def name
        case kind
        when :ips then "#{workload} on #{implementation.label}"
        when :rdrand_rate then "raw rdrand64 C loop (#{RDRAND_RUNS} runs)"
        when :startup then "startup: ruby and jruby processes"
        end
      end
    end

    attr_reader :implementations, :steps

    def initialize(jrubies:, workloads:, quick:)
      @quick = quick
      @implementations = Implementation.all(jrubies)
      @steps = []
      (IPS_WORKLOADS & workloads).each do |workload|
        @implementations.select { |impl| impl.workloads.include?(workload) }.each do |impl|
          @steps << Step.new(:ips, workload, impl, ips_seconds(workload, impl))
          @steps << Step.new(:rdrand_rate, nil, nil, RDRAND_RUNS * 1.1) if workload == "secure_random" && rdrand?(impl)
        end
      end
      @steps << Step.new(:startup, "startup", nil, startup_seconds) if workloads.include?("startup")
    end

    def seconds
      @steps.sum(&:seconds)
    end

    def startup_runs
      @quick ? 3 : 10
    end

    # Seconds of fresh threads per startup process, after as long a warm-up.
    def startup_fresh_seconds
      @quick ? 0.2 : 1.5
    end

    private

    def rdrand?(impl)
      impl.env["FAST_RANDOM_BACKEND"] == "rdrand" && !impl.unavailable
    end

    def ips_seconds(workload, impl)
      return 0.0 if impl.unavailable

      ruby = impl.mri? ? :mri : :jruby
      own = OWN_TIMING.dig(workload, @quick ? :quick : :full, ruby)
      return START[ruby] + own if own

      times = @quick ? Bench::QUICK_TIMES : Bench::FULL_TIMES
      entries = workload == "secure_random" ? (impl.cases || Calls::ALL.keys).size : ENTRIES.fetch(workload)
      START[ruby] + LOADING.dig(workload, ruby).to_f + entries * (times[:warmup] + times[:time] + ENTRY_OVERHEAD)
    end

    def startup_seconds
      commands = @implementations.select { |impl| impl.workloads.include?("startup") }
      per_round = commands.sum { |impl| (impl.mri? ? 0.1 : START[:jruby] * 0.7) + 2 * startup_fresh_seconds }
      (startup_runs + 1) * per_round
    end
  end
end
