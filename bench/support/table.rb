# frozen_string_literal: true

module Bench
  # A table of strings, printed as aligned text for the terminal or as
  # Markdown. Columns whose head starts with ">" are right-aligned (the ">"
  # is not shown). In text, a first-column cell equal to the one above is
  # left blank, so each group reads as one block.
  class Table
    def initialize(heads)
      @right = heads.map { |head| head.start_with?(">") }
      @heads = heads.map { |head| head.delete_prefix(">") }
      @rows = []
    end

    def <<(row)
      raise ArgumentError, "#{row.size} cells for #{@heads.size} columns" unless row.size == @heads.size

      @rows << row.map(&:to_s)
      self
    end

    def empty?
      @rows.empty?
    end

    def markdown
      escape = ->(cell) { cell.gsub("|", "\\|") }
      lines = ["| #{@heads.map(&escape).join(" | ")} |",
               "|#{@right.map { |right| right ? "---:" : "---" }.join("|")}|"]
      @rows.each { |row| lines << "| #{row.map(&escape).join(" | ")} |" }
      lines.join("\n") + "\n"
    end

    def text
      rows = @rows.each_with_index.map do |row, i|
        i.positive? && row.first == @rows[i - 1].first ? [""] + row.drop(1) : row
      end
      widths = @heads.each_index.map { |c| ([@heads[c]] + rows.map { |row| row[c] }).map(&:length).max }
      line = lambda do |cells|
        cells.each_with_index.map { |cell, c| @right[c] ? cell.rjust(widths[c]) : cell.ljust(widths[c]) }.join("  ").rstrip
      end
      ([line.(@heads), widths.map { |w| "-" * w }.join("  ")] + rows.map(&line)).join("\n") + "\n"
    end
  end
end
