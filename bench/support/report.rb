# frozen_string_literal: true

module Bench
  # Turns bench/run.rb's merged results into the Markdown report: one table
  # per benchmark, ratios against stock JRuby and MRI, and the issue targets
  # with what was measured against each.
  class Report
    CASES = ["uuid", "hex(16)", "random_bytes(16)", "random_bytes(4096)", "random_number(1000)", "alphanumeric(20)"].freeze
    BULK = "random_bytes(4096)"
    VARIANT_NAMES = { "stock" => "stock", "fast_random" => "+ fast_random", "rdrand" => "+ fast_random :rdrand" }.freeze

    def self.machine
      cpu = File.read("/proc/cpuinfo")[/^model name\s*:\s*(.+)$/, 1] rescue "unknown CPU"
      { "cpu" => cpu, "cores" => Etc.nprocessors, "mri" => RUBY_VERSION, "os" => RbConfig::CONFIG["host_os"] }
    end

    def initialize(results, jrubies:)
      @results = results
      @jrubies = jrubies
    end

    def markdown
      sections = [header]
      sections << single_thread if @results["secure_random"].any?
      sections << threads if @results["threads"].any?
      sections << rdrand if @results["rdrand_raw"]
      sections << startup if @results["startup"].any?
      sections << rsa if @results["rsa"]&.any?
      sections << targets
      sections.join("\n")
    end

    private

    def header
      m = @results["machine"]
      runtimes = runtime_versions.map { |name, info| "#{name} on Java #{info["java_version"]}" }
      <<~MD
        # fast_random benchmarks

        #{@results["date"]}#{" (--quick: rough numbers)" if @results["quick"]}; #{m["cpu"]}, #{m["cores"]} cores; MRI #{m["mri"]}; #{runtimes.join("; ")}.
        Throughput is calls per second (M = million), from benchmark-ips, one thread unless said;
        byte rates are MB/s (10^6). Produced by `bin/bench` (bench/run.rb).
      MD
    end

    def runtime_versions
      @results.fetch("secure_random", {}).merge(@results.fetch("threads", {})).each_with_object({}) do |(_, run), seen|
        info = run["runtime"]
        seen["JRuby #{info["jruby_version"]}"] ||= info if info["jruby_version"]
      end
    end

    def single_thread
      out = ["## SecureRandom, one thread\n"]
      @jrubies.each do |jruby|
        columns = ["MRI"] + VARIANT_NAMES.keys.map { |v| "#{jruby} #{v}" }.select { |k| @results["secure_random"][k] }
        heads = columns.map { |k| k == "MRI" ? "MRI #{@results["machine"]["mri"]}" : "JRuby #{jruby} #{VARIANT_NAMES[k.split.last]}" }
        out << "| JRuby #{jruby} | #{heads.join(" | ")} | fast_random vs stock | vs MRI |"
        out << "|---|#{"---:|" * (columns.size + 2)}"
        CASES.each do |name|
          cells = columns.map { |k| ips_cell(@results["secure_random"].dig(k, "results", name), rate: name == BULK) }
          fast = @results["secure_random"].dig("#{jruby} fast_random", "results", name, "ips")
          stock = @results["secure_random"].dig("#{jruby} stock", "results", name, "ips")
          mri = @results["secure_random"].dig("MRI", "results", name, "ips")
          out << "| `#{name}` | #{cells.join(" | ")} | #{ratio(fast, stock)} | #{ratio(fast, mri)} |"
        end
        out << ""
      end
      out.join("\n")
    end

    def threads
      out = ["## Threads: 1 vs 2 threads calling at once\n",
             "| runtime | call | 1 thread | 2 threads | scaling |", "|---|---|---:|---:|---:|"]
      @results["threads"].each do |key, run|
        label = key == "MRI" ? "MRI #{@results["machine"]["mri"]}" : "JRuby #{key.split.first} #{VARIANT_NAMES[key.split.last]}"
        run["results"].each do |call, row|
          bulk = call == BULK
          out << "| #{label} | `#{call}` | #{ips_cell(row["threads_1"], rate: bulk)} | #{ips_cell(row["threads_2"], rate: bulk)} | #{format("%.2fx", row["scaling"])} |"
        end
      end
      out << ""
      out.join("\n")
    end

    def rdrand
      raw = raw_rdrand
      out = ["## RDRAND backend against the CPU's raw rate\n",
             "A C loop of `rdrand64` (bench/native/rdrand_rate.c) in the same run: " \
             "#{mb(raw["bytes_per_second"])} MB/s, #{format("%.1f", raw["ns_per_call"])} ns per call (median of #{@results["rdrand_raw"].size} runs).\n",
             "| JRuby | `random_bytes(4096)` with :rdrand | share of raw rate | `uuid` with :rdrand | vs stock |", "|---|---:|---:|---:|---:|"]
      @jrubies.each do |jruby|
        run = @results["secure_random"]["#{jruby} rdrand"] or next
        bytes = run.dig("results", "random_bytes(4096)", "bytes_per_second")
        uuid = run.dig("results", "uuid", "ips")
        stock = @results["secure_random"].dig("#{jruby} stock", "results", "uuid", "ips")
        out << "| #{jruby} | #{bytes ? "#{mb(bytes)} MB/s" : "-"} | #{bytes ? format("%.0f%%", 100.0 * bytes / raw["bytes_per_second"]) : "-"} | " \
               "#{uuid ? millions(uuid) : "-"} | #{ratio(uuid, stock)} |"
      end
      out << ""
      out.join("\n")
    end

    def raw_rdrand
      runs = @results["rdrand_raw"].sort_by { |r| r["bytes_per_second"] }
      runs[runs.size / 2]
    end

    def startup
      out = ["## Startup: `require` plus the first `SecureRandom.uuid`, fresh processes\n",
             "Medians of paired runs (order alternating within each pair).\n",
             "| JRuby | stock `require 'securerandom'` + uuid | `require 'fast_random'` + uuid | paired difference | whole process, stock | whole process, fast_random |",
             "|---|---:|---:|---:|---:|---:|"]
      @results["startup"].each do |jruby, run|
        r = run["results"]["require_and_first_uuid"]
        p = run["results"]["process"]
        out << "| #{jruby} (#{run["runs"]} pairs) | #{ms(r["stock_median"])} | #{ms(r["fast_random_median"])} | #{signed_ms(r["paired_difference_median"])} | " \
               "#{ms(p["stock_median"])} | #{ms(p["fast_random_median"])} |"
      end
      out << ""
      out.join("\n")
    end

    RSA_CASES = ["sign", "verify", "public_encrypt", "private_decrypt"].freeze
    RSA_COLUMNS = { "stock" => "stock", "openssl" => ":openssl", "gmp" => ":gmp", "java" => ":java" }.freeze

    def rsa
      out = ["## RSA (PKCS#1 v1.5, SHA-256), one thread, operations/s\n",
             "Same keys everywhere (made by MRI). `:openssl`, `:gmp`, `:java` are fast_random's engines.\n"]
      @jrubies.each do |jruby|
        columns = RSA_COLUMNS.keys.select { |c| @results["rsa"]["#{jruby} #{c}"] }
        out << "| JRuby #{jruby} | MRI #{@results["machine"]["mri"]} | #{columns.map { |c| RSA_COLUMNS[c] }.join(" | ")} | default vs MRI | default vs stock |"
        out << "|---|#{"---:|" * (columns.size + 3)}"
        default = @results["rsa"].dig("#{jruby} openssl") ? "openssl" : columns.last
        rsa_labels.each do |label|
          mri = @results["rsa"].dig("MRI", "results", label, "ips")
          cells = columns.map { |c| count(@results["rsa"].dig("#{jruby} #{c}", "results", label, "ips")) }
          fast = @results["rsa"].dig("#{jruby} #{default}", "results", label, "ips")
          stock = @results["rsa"].dig("#{jruby} stock", "results", label, "ips")
          out << "| #{label} | #{count(mri)} | #{cells.join(" | ")} | #{ratio(fast, mri)} | #{ratio(fast, stock)} |"
        end
        out << ""
      end
      out.join("\n")
    end

    def rsa_labels
      @results["rsa"].dig("MRI", "results")&.keys || []
    end

    def count(ips)
      return "-" unless ips

      ips >= 10_000 ? format("%.1f k", ips / 1e3) : format("%.0f", ips)
    end

    def targets
      out = ["## Targets\n", "| target | measured | |", "|---|---|---|"]
      sr = @results["secure_random"]
      if (fast = sr.dig("10.1 fast_random", "results", "uuid", "ips"))
        stock = sr.dig("10.1 stock", "results", "uuid", "ips")
        mri = sr.dig("MRI", "results", "uuid", "ips")
        out << target_row("`uuid` on JRuby 10.1 >= 10x stock", fast / stock, 10)
        out << target_row("`uuid` on JRuby 10.1 >= 15x MRI", fast / mri, 15)
      end
      @jrubies.each do |jruby|
        bytes = sr.dig("#{jruby} fast_random", "results", "random_bytes(4096)", "bytes_per_second") or next
        out << "| `random_bytes(4096)` >= 2 GB/s (JRuby #{jruby}) | #{mb(bytes)} MB/s | #{bytes >= 2e9 ? "met" : "**missed**"} |"
      end
      @jrubies.each do |jruby|
        row = @results["threads"].dig("#{jruby} fast_random", "results") or next
        row.each { |call, r| out << target_row("2 threads >= 1.8x 1 thread, `#{call}` (JRuby #{jruby})", r["scaling"], 1.8) }
      end
      @results["startup"].each do |jruby, run|
        r = run["results"]["require_and_first_uuid"]
        met = r["fast_random_median"] <= r["stock_median"]
        out << "| startup <= stock (JRuby #{jruby}) | #{ms(r["fast_random_median"])} vs #{ms(r["stock_median"])} | #{met ? "met" : "**missed**"} |"
      end
      if @results["rdrand_raw"]
        raw = raw_rdrand["bytes_per_second"]
        @jrubies.each do |jruby|
          run = sr["#{jruby} rdrand"] or next
          bytes = run.dig("results", "random_bytes(4096)", "bytes_per_second")
          out << target_row(":rdrand `random_bytes(4096)` >= 80% of raw RDRAND (JRuby #{jruby})", bytes / raw, 0.8, percent: true)
          uuid = run.dig("results", "uuid", "ips")
          stock = sr.dig("#{jruby} stock", "results", "uuid", "ips")
          out << target_row(":rdrand `uuid` >= 5x stock (JRuby #{jruby})", uuid / stock, 5)
        end
      end
      if @results["rsa"]&.any?
        rsa_labels.each do |label|
          fast = @results["rsa"].dig("10.1 openssl", "results", label, "ips") or next
          mri = @results["rsa"].dig("MRI", "results", label, "ips")
          out << target_row("RSA #{label} on JRuby 10.1 (default engine) >= 1.0x MRI", fast / mri, 1.0)
        end
      end
      out << ""
      out.join("\n")
    end

    def target_row(name, value, goal, percent: false)
      shown = percent ? format("%.0f%%", value * 100) : format("%.1fx", value)
      "| #{name} | #{shown} | #{value >= goal ? "met" : "**missed**"} |"
    end

    # With rate: true, the byte rate too (for the bulk call).
    def ips_cell(row, rate: false)
      return "-" unless row

      text = millions(row["ips"])
      text += " (#{mb(row["bytes_per_second"])} MB/s)" if rate
      text
    end

    def millions(ips)
      ips >= 1e6 ? format("%.2f M", ips / 1e6) : format("%.0f k", ips / 1e3)
    end

    def mb(bytes_per_second)
      format("%.0f", bytes_per_second / 1e6)
    end

    def ms(seconds)
      format("%.0f ms", seconds * 1000)
    end

    def signed_ms(seconds)
      format("%+.0f ms", seconds * 1000)
    end

    def ratio(a, b)
      a && b ? format("%.1fx", a / b) : "-"
    end
  end
end
