# frozen_string_literal: true

module Bench
  # How the report and the chart write numbers.
  module Format
    module_function

    # Calls per second: 7.30 M, 636.2 k, 3,817.
    def rate(ips)
      return "-" unless ips

      if ips >= 1e6 then format("%.2f M", ips / 1e6)
      elsif ips >= 1e4 then format("%.1f k", ips / 1e3)
      else ips.round.to_s.reverse.scan(/\d{1,3}/).join(",").reverse
      end
    end

    def error(measurement)
      measurement ? format("±%.1f%%", measurement.error_percent) : "-"
    end

    # Bytes per second in MB/s (10^6).
    def megabytes(bytes_per_second)
      bytes_per_second ? format("%.0f", bytes_per_second / 1e6) : "-"
    end

    # A ratio as a speed-up: 0.62x, 7.2x, 66x.
    def ratio(value)
      return "-" unless value&.finite?

      if value >= 20 then format("%.0fx", value)
      elsif value >= 2 then format("%.1fx", value)
      else format("%.2fx", value)
      end
    end

    def divide(a, b)
      a / b if a && b && b.positive?
    end

    def milliseconds(seconds)
      seconds ? format("%.0f ms", seconds * 1000) : "-"
    end

    def signed_milliseconds(seconds)
      seconds ? format("%+.0f ms", seconds * 1000) : "-"
    end

    def percent(value)
      format("%.0f%%", value * 100)
    end
  end
end
