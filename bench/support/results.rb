# frozen_string_literal: true

module Bench
  # One run of bench/run.rb, merged: for every workload and implementation,
  # the entries benchmark-ips wrote (x.json!) with the runtime's notes, or why
  # there are none; the startup samples; the raw RDRAND rate. This is what
  # bench/results/latest.json holds, and what the report, the targets and the
  # chart read.
  class Results
    # One benchmark-ips entry in calls per second.
    Measurement = Struct.new(:ips, :error) do
      def error_percent
        100.0 * error / ips
      end
    end

    attr_reader :data

    def initialize(data)
      @data = data
    end

    def quick?
      data["quick"]
    end

    def implementations
      data["implementations"]
    end

    def implementation(key)
      implementations.find { |impl| impl["key"] == key }
    end

    def label(key)
      implementation(key)&.fetch("label") || key
    end

    def workloads
      data["workloads"].keys
    end

    # The implementations that were asked to run +workload+, in order.
    def keys(workload)
      data["workloads"].fetch(workload, {}).keys
    end

    def run(workload, key)
      data["workloads"].dig(workload, key)
    end

    # The entry names of +workload+ in the order they ran, including those an
    # implementation lacked.
    def cases(workload)
      data["workloads"].fetch(workload, {}).values.flat_map do |run|
        (run["entries"] || []).map { |entry| entry["name"] } + (run.dig("meta", "notes", "missing") || {}).keys
      end.uniq
    end

    def measurement(workload, key, name)
      run = run(workload, key) or return
      entry = (run["entries"] || []).find { |e| e["name"] == name } or return
      Measurement.new(entry["ips"], entry["stddev"])
    end

    def ips(workload, key, name)
      measurement(workload, key, name)&.ips
    end

    # Whether +key+'s row for +name+ belongs in the report: it was measured,
    # or it was meant to be and the reason it was not is known (an
    # implementation that times only some calls has no row for the others).
    def covers?(workload, key, name)
      run = run(workload, key) or return false
      return measurement(workload, key, name) || run.dig("meta", "notes", "missing", name) if run.key?("entries")

      cases = implementation(key)&.fetch("cases", nil)
      workload != "secure_random" || cases.nil? || cases.include?(name)
    end

    # Why there is no number for +name+ on +key+, as [short, reason]: the
    # implementation cannot run here, its process failed, or its Ruby lacks
    # the feature.
    def absence(workload, key, name)
      run = run(workload, key) or return ["not run", nil]
      return [run["unavailable"].split(":").first, run["unavailable"]] if run["unavailable"]
      return ["failed", run["failed"]] if run["failed"]

      reason = run.dig("meta", "notes", "missing", name)
      reason ? ["n/a", reason] : ["not measured", nil]
    end

    def meta(workload, key)
      run(workload, key)&.fetch("meta", nil)
    end

    # The RSA engine that ran (fast_random's notes), e.g. "openssl".
    def rsa_engine(key)
      meta("rsa", key)&.dig("runtime", "rsa_engine")
    end

    def startup
      data["startup"]
    end

    def startup_median(key, metric = "first_uuid")
      samples = startup&.dig("results", key, metric) or return
      Results.median(samples)
    end

    # Median over rounds of (fast_random - stock) for one JRuby, in seconds.
    def startup_paired_difference(jruby, metric = "require_and_uuid")
      startup_paired(jruby, metric) { |fast, stock| fast - stock }
    end

    # Median over rounds of fast_random / stock for one JRuby (a rate: above
    # 1 is faster), or nil when the run has no such samples.
    def startup_paired_ratio(jruby, metric = "fresh_thread")
      startup_paired(jruby, metric) { |fast, stock| fast / stock }
    end

    # Median over rounds of the block's value for (fast_random, stock) of one
    # round, or nil when the run has no such samples.
    def startup_paired(jruby, metric)
      fast = startup&.dig("results", "#{jruby}-fast_random", metric)
      stock = startup&.dig("results", "#{jruby}-stock", metric)
      return unless fast && stock

      Results.median(fast.zip(stock).map { |f, s| yield f, s })
    end

    # The raw RDRAND rate (bench/native/rdrand_rate.c) in bytes per second:
    # the median of the runs around the :rdrand runs.
    def rdrand_raw
      runs = data["rdrand_raw"] or return
      Results.median(runs.map { |run| run["bytes_per_second"] })
    end

    def self.median(values)
      sorted = values.sort
      mid = sorted.size / 2
      sorted.size.odd? ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0
    end
  end
end
