# frozen_string_literal: true

module Bench
  # A few SVG elements written as text, enough for the benchmark chart.
  class SVG
    def initialize(width, height)
      @width = width
      @height = height
      @elements = []
    end

    def to_s
      <<~SVG
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="#{@width}" height="#{@height}" viewBox="0 0 #{@width} #{@height}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="#ffffff"/>
        #{@elements.join("\n")}
        </svg>
      SVG
    end

    def text(x, y, string, **attributes)
      @elements << "<text #{attributes(x: x, y: y, **attributes)}>#{escape(string)}</text>"
    end

    def rect(x, y, width, height, **attributes)
      @elements << "<rect #{attributes(x: x, y: y, width: width, height: height, **attributes)}/>"
    end

    def line(x1, y1, x2, y2, **attributes)
      @elements << "<line #{attributes(x1: x1, y1: y1, x2: x2, y2: y2, **attributes)}/>"
    end

    def polyline(points, **attributes)
      @elements << "<polyline #{attributes(points: points.map { |x, y| "#{number(x)},#{number(y)}" }.join(" "), fill: "none", **attributes)}/>"
    end

    def circle(x, y, r, **attributes)
      @elements << "<circle #{attributes(cx: x, cy: y, r: r, **attributes)}/>"
    end

    # A tooltip for the element added last (browsers show it on hover).
    def title(string)
      @elements[-1] = @elements[-1].sub(%r{/>\z}) { "><title>#{escape(string)}</title></#{@elements[-1][/\A<(\w+)/, 1]}>" }
    end

    private

    def attributes(**pairs)
      pairs.map { |name, value| %(#{name.to_s.tr("_", "-")}="#{value.is_a?(Float) ? number(value) : escape(value.to_s)}") }.join(" ")
    end

    def number(value)
      format("%.1f", value).sub(/\.0\z/, "")
    end

    def escape(string)
      string.to_s.gsub("&", "&amp;").gsub("<", "&lt;").gsub(">", "&gt;").gsub('"', "&quot;")
    end
  end
end
