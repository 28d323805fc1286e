# frozen_string_literal: true

require_relative "format"
require_relative "svg"

module Bench
  # The report as one SVG picture: for each single-thread call (SecureRandom,
  # the request id, RSA and elliptic curves), a bar per JRuby implementation with its speed-up
  # against MRI on a log scale (bars go right of the 1x line when faster,
  # left when slower); for threads, a line per implementation of total calls
  # per second at 1, 2, 4 and 8 threads.
  class Chart
    include Format

    WIDTH = 1200
    MARGIN = 20
    COLUMN_GAP = 30
    LABEL_WIDTH = 170
    VALUE_WIDTH = 48
    BAR = 9
    BAR_GAP = 2
    GROUP_GAP = 10
    LINE_CHART_HEIGHT = 300
    LEGEND_TOP = 84
    CHARACTER_WIDTH = 7.2 # of the 12 px font, roughly
    SMALL_CHARACTER_WIDTH = 5.4 # of the 9 px font

    COLORS = {
      "mri" => "#c0392b",
      "10.1-stock" => "#8a8a8a",
      "10.1-fast_random" => "#1f5fa8",
      "10.1-rdrand" => "#7d3c98",
      "10.1-rsa_gmp" => "#2e8b3e",
      "10.1-rsa_java" => "#d4860b",
      "10.1-jca" => "#16a085",
      "9.4-stock" => "#c8c8c8",
      "9.4-fast_random" => "#79aee0",
    }.freeze
    # Only in the targets table: left out of the picture.
    LEFT_OUT = ["10.1-os_seeds"].freeze
    # The thread-scaling line panels: [workload, calls (one panel each), thread counts].
    LINE_ROWS = [["threads", ["uuid", "random_bytes(4096)"], [1, 2, 4, 8]],
                 ["rsa_threads", ["sign 2048", "verify 2048"], [1, 2, 4]],
                 ["ec_threads", ["sign P-256", "derive P-256"], [1, 2]],
                 ["uuid_jvm", ["UUID.randomUUID"], [1, 2, 4]]].freeze

    def initialize(results)
      @results = results
    end

    def svg
      left = bar_groups(%w[secure_random cold request_id])
      right = bar_groups(%w[rsa ec tls x509 https])
      column = (WIDTH - 2 * MARGIN - COLUMN_GAP) / 2
      layout = legend_layout
      bars_top = layout.map(&:last).max + 36
      bars_height = [panel_height(left), panel_height(right)].max
      threads_top = bars_top + bars_height + 60
      rows = LINE_ROWS.select { |workload, _, _| @results.keys(workload).any? }
      height = threads_top + rows.size * (LINE_CHART_HEIGHT + 60)

      svg = SVG.new(WIDTH, height)
      heading(svg)
      legend(svg, layout)
      bar_panel(svg, MARGIN, bars_top, column, "SecureRandom and a Rails request id: speed-up vs MRI, one thread", left)
      bar_panel(svg, MARGIN + column + COLUMN_GAP, bars_top, column, "RSA, elliptic curves, TLS, X.509, HTTPS: speed-up vs MRI", right)
      rows.each_with_index do |(workload, calls, counts), row|
        top = threads_top + row * (LINE_CHART_HEIGHT + 60)
        calls.each_with_index do |call, i|
          line_panel(svg, MARGIN + i * (column + COLUMN_GAP), top, column, workload, call, counts)
        end
      end
      svg.to_s
    end

    private

    def heading(svg)
      data = @results.data
      run = @results.quick? ? "--quick run (rough numbers)" : "full run"
      load = data["load_before"]&.first
      svg.text(MARGIN, 30, "fast_random benchmarks: JRuby, stock and with fast_random, against #{@results.label("mri")}",
               font_size: 18, font_weight: "bold")
      svg.text(MARGIN, 52, "#{data["date"]}, #{run}; #{data.dig("machine", "cpu")}, #{data.dig("machine", "cores")} cores" \
                           "#{", load average #{format("%.1f", load)} at the start" if load}; benchmark-ips. Log scales.",
               fill: "#555555")
    end

    # [[key, x, y], ...]: the legend's entries, wrapped to the width.
    def legend_layout
      x = MARGIN
      y = LEGEND_TOP
      (@results.implementations.map { |impl| impl["key"] } - LEFT_OUT).map do |key|
        width = 16 + @results.label(key).length * CHARACTER_WIDTH + 18
        if x + width > WIDTH - MARGIN
          x = MARGIN
          y += 18
        end
        [key, x, y].tap { x += width }
      end
    end

    def legend(svg, layout)
      layout.each do |key, x, y|
        svg.rect(x, y - 10, 12, 12, fill: color(key))
        svg.text(x + 16, y, @results.label(key))
      end
    end

    def color(key)
      COLORS.fetch(key, "#444444")
    end

    # [[workload, call, [[key, ratio or nil], ...]], ...]
    def bar_groups(workloads)
      workloads.flat_map do |workload|
        keys = @results.keys(workload) - ["mri"] - LEFT_OUT
        @results.cases(workload).map do |name|
          mri = @results.ips(workload, "mri", name)
          [workload, name, keys.map { |key| [key, divide(@results.ips(workload, key, name), mri)] }]
        end
      end
    end

    def panel_height(groups)
      groups.sum { |_, _, bars| bars.size * (BAR + BAR_GAP) + GROUP_GAP } + 40
    end

    def bar_panel(svg, left, top, width, title, groups)
      svg.text(left, top - 12, title, font_size: 14, font_weight: "bold")
      return svg.text(left, top + 16, "not run", fill: "#777777") if groups.empty?

      plot_left = left + LABEL_WIDTH
      plot_width = width - LABEL_WIDTH - VALUE_WIDTH
      ratios = groups.flat_map { |_, _, bars| bars.map(&:last) }.compact
      scale = LogScale.new([*ratios, 1.0].min / 1.4, [*ratios, 1.0].max * 1.4, plot_left, plot_left + plot_width)
      bottom = top + panel_height(groups) - 40

      scale.ticks.each do |tick|
        x = scale.at(tick)
        svg.line(x, top, x, bottom, stroke: tick == 1 ? "#333333" : "#e2e2e2", stroke_width: tick == 1 ? 1.5 : 1)
        svg.text(x, bottom + 16, format("%gx", tick.round(6)), text_anchor: "middle", fill: "#555555", font_size: 11)
      end
      svg.text(scale.at(1), bottom + 32, "MRI = 1x", text_anchor: "middle", fill: "#333333", font_size: 11)

      y = top
      groups.each do |workload, name, bars|
        group_height = bars.size * (BAR + BAR_GAP)
        svg.text(left, y + group_height / 2.0 + 4, short_label(workload, name), font_size: 11)
        if @results.ips(workload, "mri", name)
          bars.each_with_index { |(key, value), i| bar(svg, scale, y + i * (BAR + BAR_GAP), key, value, workload, name) }
        else
          note(svg, scale, y + group_height / 2.0, "no MRI number: #{@results.absence(workload, "mri", name).compact.last}")
        end
        y += group_height + GROUP_GAP
      end
    end

    # A grey line of text where a bar would be, cut to the panel's width.
    def note(svg, scale, y, text)
      room = ((scale.right + VALUE_WIDTH - scale.at(1) - 4) / SMALL_CHARACTER_WIDTH).floor
      svg.text(scale.at(1) + 4, y + BAR - 1, truncate(text, room), font_size: 9, fill: "#888888", font_style: "italic")
    end

    def bar(svg, scale, y, key, value, workload, name)
      one = scale.at(1)
      unless value
        short, reason = @results.absence(workload, key, name)
        return note(svg, scale, y, "#{@results.label(key)}: #{reason || short}")
      end

      x = scale.at(value)
      svg.rect([x, one].min, y, (x - one).abs.clamp(1, Float::INFINITY), BAR, fill: color(key))
      svg.title("#{@results.label(key)}, #{name}: #{ratio(value)} MRI")
      text_x = value >= 1 ? x + 3 : one + 3
      svg.text(text_x, y + BAR - 1, ratio(value), font_size: 9, fill: "#333333")
    end

    # 100 k, 1 M, 10 M: a power of ten of calls per second.
    def tick_rate(value)
      value >= 1e6 ? "#{(value / 1e6).round} M" : value >= 1e3 ? "#{(value / 1e3).round} k" : value.round.to_s
    end

    def truncate(text, length)
      text.length > length ? "#{text[0, length - 1]}…" : text
    end

    def short_label(workload, name)
      case workload
      when "request_id" then name.sub("request, ", "request: ").sub("Rack app with RequestId's steps", "Rack app (RequestId's steps)")
      when "rsa" then "RSA #{name}"
      when "https" then name.sub(/\ANet::HTTP GET 64 MiB/, "HTTPS GET").sub(/\A(send|receive) 128 MiB, [^,]+/, 'TLS \1')
      else name
      end
    end

    def line_panel(svg, left, top, width, workload, call, threads)
      svg.text(left, top - 12, "Threads: #{call}, total calls/s at #{threads.join(", ")} threads", font_size: 14, font_weight: "bold")
      keys = @results.keys(workload) - LEFT_OUT
      series = keys.to_h do |key|
        [key, threads.map { |n| @results.ips(workload, key, "#{call}, #{n} thread#{"s" unless n == 1}") }]
      end
      values = series.values.flatten.compact
      return svg.text(left, top + 16, "not measured", fill: "#777777") if values.empty?

      plot_left = left + 70
      plot_right = left + width - 10
      bottom = top + LINE_CHART_HEIGHT - 30
      y_scale = LogScale.new(values.min / 1.5, values.max * 1.5, bottom, top)
      x_at = ->(i) { plot_left + i * (plot_right - plot_left) / (threads.size - 1.0) }

      y_scale.ticks(with_halves: false).each do |tick|
        y = y_scale.at(tick)
        svg.line(plot_left, y, plot_right, y, stroke: "#e2e2e2")
        svg.text(plot_left - 6, y + 4, tick_rate(tick), text_anchor: "end", fill: "#555555", font_size: 11)
      end
      threads.each_with_index do |n, i|
        svg.line(x_at.(i), top, x_at.(i), bottom, stroke: "#f0f0f0")
        svg.text(x_at.(i), bottom + 16, "#{n} thread#{"s" unless n == 1}", text_anchor: "middle", fill: "#555555", font_size: 11)
      end
      series.each do |key, points|
        known = points.each_with_index.select { |value, _| value }.map { |value, i| [x_at.(i), y_scale.at(value)] }
        next if known.empty?

        svg.polyline(known, stroke: color(key), stroke_width: 2)
        known.zip(points.compact).each do |(x, y), value|
          svg.circle(x, y, 3.5, fill: color(key))
          svg.title("#{@results.label(key)}: #{rate(value)} calls/s")
        end
      end
    end

    # Maps values to pixels logarithmically, between +low+ and +high+.
    class LogScale
      def initialize(low, high, from, to)
        @low = Math.log10(low)
        @high = Math.log10(high)
        @from = from
        @to = to
      end

      def right
        [@from, @to].max
      end

      def at(value)
        @from + (Math.log10(value) - @low) / (@high - @low) * (@to - @from)
      end

      # 0.1, 0.3, 1, 3, 10, ... (or 1, 10, 100, ... without halves) inside the range.
      def ticks(with_halves: true)
        multipliers = with_halves ? [1, 3] : [1]
        (@low.floor..@high.ceil).flat_map { |power| multipliers.map { |m| m * 10.0**power } }
                                 .select { |tick| Math.log10(tick).between?(@low, @high) }
      end
    end
  end
end
