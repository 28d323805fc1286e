# frozen_string_literal: true

require "yaml"
require_relative "calls"
require_relative "format"
require_relative "table"

module Bench
  # The performance targets of bench/targets.yml (what each measure means is
  # written there), each with what this run measured against it: met,
  # missed, reported, or not measured.
  class Targets
    include Format

    FILE = File.expand_path("../targets.yml", __dir__)
    MEASURES = %w[ratio ratios bytes_per_second rdrand_share startup paired_ratio os_seeds].freeze

    def initialize(results, data = YAML.load_file(FILE))
      @results = results
      @data = data
    end

    def table
      table = Table.new(%w[area target measured verdict])
      rows.each { |row| table << row }
      table
    end

    def rows
      @data.fetch("targets").flat_map do |area, targets|
        targets.flat_map { |target| expand(target) }.map { |target| row(area, target) }
      end
    end

    private

    # One target per combination of its each: values, substituted.
    def expand(target)
      each = target.fetch("each", {})
      combinations = each.values.inject([[]]) { |done, values| done.product(values).map { |prefix, value| prefix + [value.to_s] } }
      combinations.map { |combination| substitute(target.except("each"), each.keys.zip(combination).to_h) }
    end

    def substitute(value, vars)
      case value
      when String then value.gsub(/%\{(\w+)\}/) { vars.fetch(Regexp.last_match(1), Regexp.last_match(0)) }
      when Array then value.map { |item| substitute(item, vars) }
      when Hash then value.transform_values { |item| substitute(item, vars) }
      else value
      end
    end

    def row(area, target)
      measure = MEASURES.find { |name| target.key?(name) } or raise ArgumentError, "no measure in #{target.inspect}"
      measured, value = send("measure_#{measure}", target[measure], target)
      verdict = if measured.nil? then "not measured"
                elsif target.key?("at_least") then value >= target["at_least"] ? "met" : "**missed**"
                elsif target.key?("at_most") then value <= target["at_most"] ? "met" : "**missed**"
                else "reported"
                end
      [area, text(target), measured || "-", verdict]
    end

    def text(target)
      engine = @results.rsa_engine(target["ratio"].to_s.split(" ")[1])
      substitute(target["text"], "engine" => engine ? " (:#{engine})" : "", "past" => rate(past(target["over_past"])))
    end

    def past(name)
      name && @data.fetch("past").fetch(name)
    end

    # "WORKLOAD IMPLEMENTATION CALL" => calls per second, or nil.
    def ips(operand)
      @results.ips(*operand.split(" ", 3))
    end

    # The operand's bytes per second: +per_call+ bytes a call, else the
    # random bytes the call returns (support/calls.rb).
    def bytes(operand, per_call = nil)
      ips(operand)&.*(per_call || Calls::ALL.fetch(operand.split(" ", 3).last).bytes)
    end

    # Each measure: [what the report shows, or nil if not measured; the value the goal is compared with].
    def measure_ratio(operand, target)
      over = target["over_past"] ? past(target["over_past"]) : Array(target["over"]).filter_map { |o| ips(o) }.max
      value = divide(ips(operand), over)
      [value && ratio(value), value]
    end

    def measure_ratios(operand, target)
      list = target["calls"].filter_map do |call|
        value = divide(ips("#{operand} #{call}"), ips("#{target["over"]} #{call}"))
        "#{call} #{ratio(value)}" if value
      end
      [(list.join(", ") unless list.empty?), nil]
    end

    def measure_bytes_per_second(operand, target)
      value = bytes(operand, target["bytes"])
      [value && "#{megabytes(value)} MB/s", value]
    end

    def measure_rdrand_share(operand, _target)
      value = bytes(operand)
      share = divide(value, @results.rdrand_raw)
      [share && "#{percent(share)} (#{megabytes(value)} of #{megabytes(@results.rdrand_raw)} MB/s)", share]
    end

    def measure_startup(jruby, _target)
      difference = @results.startup_paired_difference(jruby) or return [nil, nil]
      fast = @results.startup_median("#{jruby}-fast_random", "require_and_uuid")
      stock = @results.startup_median("#{jruby}-stock", "require_and_uuid")
      ["#{milliseconds(fast)} vs #{milliseconds(stock)}; paired difference #{signed_milliseconds(difference)} " \
       "(median of #{@results.startup["runs"]})", difference]
    end

    def measure_paired_ratio(jruby, _target)
      value = @results.startup_paired_ratio(jruby, "fresh_thread")
      [value && ratio(value), value]
    end

    def measure_os_seeds(operand, _target)
      workload, key, note = operand.split(" ", 3)
      costs = @results.meta(workload, key)&.dig("notes", note)
      return [nil, nil] unless costs&.key?("os_seeds")

      ["#{costs["os_seeds"]} OS seeds, #{costs["generators"]} generators", costs["os_seeds"]]
    end
  end
end
