# frozen_string_literal: true

require_relative "calls"
require_relative "format"
require_relative "table"
require_relative "targets"

module Bench
  # The merged report of one bench/run.rb: a header saying when, on what and
  # how to read it, then one table per workload with a row per call x
  # implementation (i/s and error from benchmark-ips, MB/s where the call
  # returns random bytes, speed-up against the same JRuby's stock and
  # against MRI), the startup table and the targets (bench/targets.yml).
  # Printed as text on the terminal and written as Markdown.
  class Report
    include Format

    TITLES = {
      "secure_random" => "SecureRandom, one thread (bench/secure_random.rb)",
      "threads" => "Threads: total calls/s of N long-lived threads at once (bench/threads.rb)",
      "cold" => "Cold paths: a fresh fiber or thread that asks once (bench/cold.rb)",
      "request_id" => "A Rails request id per request (bench/request_id.rb)",
      "rsa" => "RSA, one thread, PKCS#1 v1.5 with SHA-256 (bench/rsa.rb)",
      "rsa_threads" => "RSA-2048 in N long-lived threads: total operations/s (bench/rsa_threads.rb)",
      "ec" => "Elliptic curves, one thread: ECDSA and ECDH (bench/ec.rb)",
      "ec_threads" => "P-256 in N long-lived threads: total operations/s (bench/ec_threads.rb)",
      "keys" => "Keys and certificates, one thread: key generation, Web Push, Certificate#verify (bench/keys.rb)",
      "crypto" => "The rest of a Rails request's crypto, one thread: ciphers, MessageEncryptor, PBKDF2 (bench/crypto.rb)",
      "crypto_threads" => "AES in N long-lived threads: total messages/s (bench/crypto_threads.rb)",
      "uuid_jvm" => "java.util.UUID.randomUUID in N long-lived threads: total UUIDs/s (bench/uuid_jvm.rb)",
      "tls" => "TLS handshakes/s: openssl s_time -new against OpenSSL::SSL::SSLServer, and Net::HTTP GETs on new " \
               "connections from openssl s_server -WWW (bench/tls.rb)",
      "https" => "HTTPS and TLS 1.3 bulk transfers, MB/s: Net::HTTP from openssl s_server, 16 KiB writes and reads " \
                 "with an MRI peer (bench/https.rb)",
      "x509" => "X.509 certificate signing, one thread (bench/x509.rb)",
      "startup" => "Startup and fresh threads, in paired processes (bench/startup.rb)",
    }.freeze

    def initialize(results)
      @results = results
    end

    def markdown
      parts = ["# fast_random benchmarks\n", header.join("\n") + "\n"]
      sections.each do |title, intro, table, notes|
        parts << "## #{title}\n"
        parts << intro.join("\n") + "\n" unless intro.empty?
        parts << table.markdown
        parts << notes.map { |note| "- #{note}" }.join("\n") + "\n" unless notes.empty?
      end
      parts.join("\n")
    end

    def text
      parts = ["fast_random benchmarks", "", *header.map { |line| line.delete("*`") }, ""]
      sections.each do |title, intro, table, notes|
        parts << "== #{title}"
        parts.concat(intro) << "" unless intro.empty?
        parts << table.text
        parts.concat(notes.map { |note| "  #{note}" }) << "" unless notes.empty?
      end
      parts.join("\n")
    end

    # [title, intro lines, Table, notes] for each section with something in it.
    def sections
      @sections ||= [
        (["At a glance: calls per second, one thread", [glance_intro], glance_table, []] if glance_rows.any?),
        (section("secure_random", []) { |notes| calls_table("secure_random", notes) } if ran?("secure_random")),
        (section("threads", threads_intro) { |notes| threads_table(notes, "threads") } if ran?("threads")),
        (section("cold", cold_intro) { |notes| calls_table("cold", notes) } if ran?("cold")),
        (section("request_id", request_intro) { |notes| calls_table("request_id", notes) } if ran?("request_id")),
        (section("rsa", rsa_intro) { |notes| calls_table("rsa", notes) } if ran?("rsa")),
        (section("rsa_threads", threads_intro) { |notes| threads_table(notes, "rsa_threads") } if ran?("rsa_threads")),
        (section("ec", ec_intro) { |notes| calls_table("ec", notes) } if ran?("ec")),
        (section("ec_threads", threads_intro) { |notes| threads_table(notes, "ec_threads") } if ran?("ec_threads")),
        (section("keys", []) { |notes| calls_table("keys", notes) } if ran?("keys")),
        (section("crypto", crypto_intro) { |notes| calls_table("crypto", notes) } if ran?("crypto")),
        (section("crypto_threads", threads_intro) { |notes| threads_table(notes, "crypto_threads") } if ran?("crypto_threads")),
        (section("uuid_jvm", [jvm_intro, *threads_intro]) { |notes| threads_table(notes, "uuid_jvm") } if ran?("uuid_jvm")),
        (section("tls", [tls_intro]) { |notes| calls_table("tls", notes) } if ran?("tls")),
        (section("https", https_intro) { |notes| https_table(notes) } if ran?("https")),
        (section("x509", [x509_intro]) { |notes| calls_table("x509", notes) } if ran?("x509")),
        ([TITLES["startup"], startup_intro, startup_table, []] if @results.startup),
        ["Targets (bench/targets.yml)", [], Targets.new(@results).table, []],
      ].compact
    end

    private

    # A workload's section: the block builds the table, collecting into
    # +absences+ why numbers are missing, which go under the table as notes.
    def section(workload, intro)
      absences = Hash.new { |hash, key| hash[key] = [] }
      table = yield absences
      notes = absences.map { |(short, reason), labels| "#{short}: #{labels.uniq.join("; ")}: #{reason}" }
      [TITLES[workload], intro, table, notes]
    end

    def ran?(workload)
      @results.keys(workload).any?
    end

    def header
      data = @results.data
      machine = data["machine"]
      load = [data["load_before"], data["load_after"]].map { |l| l ? l.map { |v| format("%.1f", v) }.join(" ") : "?" }
      [
        "#{data["date"]}, #{@results.quick? ? "**--quick run** (short warm-up and measurement: rough numbers)" : "full run"}, " \
        "#{(data["elapsed_seconds"] / 60.0).round(1)} minutes.",
        "Machine: #{machine["cpu"]}, #{machine["cores"]} cores, #{machine["os"]}; load average (1/5/15 min) " \
        "#{load[0]} at the start, #{load[1]} at the end.",
        "Versions: #{versions.join("; ")}.",
        "",
        "i/s is benchmark-ips's mean of its ~100 ms samples, with their standard deviation (±) as benchmark-ips " \
        "reports it; each workload ran in a fresh process per implementation. \"vs stock\" divides by the same " \
        "JRuby's stock row (MRI's row by JRuby 10.1 stock), \"vs MRI\" by MRI's row; above 1x is faster. " \
        "Produced by `bin/bench` (bench/run.rb).",
      ]
    end

    def versions
      list = ["#{@results.data.dig("machine", "mri")} with #{@results.data.dig("machine", "mri_openssl")}"]
      jruby_runtimes.each do |runtime|
        text = "JRuby #{runtime["jruby_version"]} on #{runtime["java_vm"]}"
        text += ", #{runtime["openssl_library"]}" if runtime["openssl_library"]
        list << text
      end
      fast_random = all_runtimes.find { |r| r["fast_random"] }
      libcrypto = all_runtimes.filter_map { |r| r["fast_random_libcrypto"] }.first
      list << "fast_random #{fast_random["fast_random"]}#{" on #{libcrypto}" if libcrypto}" if fast_random
      list << "benchmark-ips #{@results.data.dig("machine", "benchmark_ips")}"
      list
    end

    def all_runtimes
      @results.workloads.flat_map { |w| @results.keys(w).map { |k| @results.meta(w, k)&.fetch("runtime") } }.compact
    end

    # One runtime description per JRuby version, preferring one from the RSA
    # run (which knows jruby-openssl's version).
    def jruby_runtimes
      all_runtimes.select { |r| r["jruby_version"] }
                  .sort_by { |r| r["openssl_library"] ? 0 : 1 }
                  .uniq { |r| r["jruby_version"] }
                  .sort_by { |r| Gem::Version.new(r["jruby_version"]) }.reverse
    end

    GLANCE_WORKLOADS = %w[secure_random request_id rsa ec].freeze
    HEADLINE = "10.1-fast_random"

    # The fast_random row the glance compares: JRuby 10.1's, else the first JRuby's that ran (bin/bench --jruby 9.4).
    def headline
      keys = @results.implementations.map { |impl| impl["key"] }
      keys.include?(HEADLINE) ? HEADLINE : keys.find { |key| key.end_with?("-fast_random") } || HEADLINE
    end

    def headline_stock = headline.sub(/-fast_random\z/, "-stock")

    def glance_intro
      "One column per implementation (RSA: fast_random's default engine); the last two columns compare " \
      "#{@results.label(headline)} with #{@results.label(headline_stock)} and with MRI. The per-workload tables " \
      "have every configuration, with benchmark-ips's error."
    end

    # The implementations that ran every call of the main workloads' columns.
    def glance_keys
      @results.implementations.map { |impl| impl["key"] }.select do |key|
        key == "mri" || key.end_with?("-stock", "-fast_random", "-rdrand")
      end
    end

    def glance_rows
      GLANCE_WORKLOADS.flat_map { |workload| @results.cases(workload).map { |name| [workload, name] } }
    end

    def glance_table
      keys = glance_keys
      table = Table.new(["call", *keys.map { |key| ">#{@results.label(key)}" }, ">fast_random vs stock", ">vs MRI"])
      glance_rows.each do |workload, name|
        cells = keys.map { |key| @results.run(workload, key) ? rate(@results.ips(workload, key, name)) : "" }
        fast = @results.ips(workload, headline, name)
        table << [workload == "rsa" ? "RSA #{name}" : name, *cells,
                  ratio(divide(fast, @results.ips(workload, headline_stock, name))),
                  ratio(divide(fast, @results.ips(workload, "mri", name)))]
      end
      table
    end

    def calls_table(workload, absences)
      bytes = workload == "secure_random"
      table = Table.new(["call", "implementation", ">i/s", ">±", *(">MB/s" if bytes), ">vs stock", ">vs MRI"])
      @results.cases(workload).each do |name|
        @results.keys(workload).each do |key|
          next unless @results.covers?(workload, key, name)

          table << [name, row_label(workload, key), *measured_cells(workload, key, name, absences),
                    *(megabytes(bytes_per_second(workload, key, name)) if bytes), *ratio_cells(workload, key, name)]
        end
      end
      table
    end

    def row_label(workload, key)
      label = @results.label(key)
      engine = @results.rsa_engine(key)
      workload == "rsa" && key.end_with?("-fast_random") && engine ? "#{label} (RSA :#{engine}, the default)" : label
    end

    # The i/s and error cells; where there is no number, why in short, the
    # reason in full going to +absences+ (for the notes under the table).
    def measured_cells(workload, key, name, absences)
      m = @results.measurement(workload, key, name)
      return [rate(m.ips), error(m)] if m

      short, reason = @results.absence(workload, key, name)
      absences[[short, reason]] << @results.label(key) if reason
      [short, ""]
    end

    def ratio_cells(workload, key, name)
      ips = @results.ips(workload, key, name)
      stock_key = @results.implementation(key)&.fetch("stock_key")
      [ratio(divide(ips, @results.ips(workload, stock_key, name))), ratio(divide(ips, @results.ips(workload, "mri", name)))]
    end

    def bytes_per_second(workload, key, name)
      bytes = Calls::ALL[name.split(",").first]&.bytes or return
      ips = @results.ips(workload, key, name)
      ips && ips * bytes
    end

    def threads_intro
      ["Each thread count has its threads started once, before timing (a server's pool); each timed block " \
       "shares its calls among them and waits for all. i/s: calls per second, summed over the threads. " \
       "\"vs 1 thread\" is the same implementation's 1-thread row."]
    end

    def cold_intro
      costs = @results.keys("cold").filter_map do |key|
        cost = @results.meta("cold", key)&.dig("notes", "10,000 one-call fibers")
        "#{@results.label(key)}: #{cost["os_seeds"]} OS seeds, #{cost["generators"]} generators" if cost && !cost.empty?
      end
      first_calls = @results.keys("cold").filter_map do |key|
        micros = @results.meta("cold", key)&.dig("notes", "first uuid, microseconds") or next
        "#{@results.label(key)}: #{micros["thread"]} µs in a thread, #{micros["fiber"]} µs in a fiber"
      end
      ["Each iteration starts a fiber (JRuby 10: a virtual thread) or a thread, makes one SecureRandom.uuid " \
       "in it and waits for it to end: what a fiber-per-request server or a thread per job pays.",
       *("The first uuid alone, timed inside 2,000 fresh threads and fibers (median): #{first_calls.join("; ")}." unless first_calls.empty?),
       *("10,000 fibers that each ask once took: #{costs.join("; ")} (FastRandom.stats)." unless costs.empty?)]
    end

    def threads_table(absences, workload)
      table = Table.new(["call, threads", "implementation", ">i/s", ">±", ">MB/s", ">vs 1 thread", ">vs stock", ">vs MRI"])
      @results.cases(workload).each do |name|
        single = name.sub(/\d+ threads?\z/, "1 thread")
        @results.keys(workload).each do |key|
          next unless @results.covers?(workload, key, name)

          ips = @results.ips(workload, key, name)
          table << [name, @results.label(key), *measured_cells(workload, key, name, absences),
                    megabytes(bytes_per_second(workload, key, name)),
                    ratio(divide(ips, @results.ips(workload, key, single))), *ratio_cells(workload, key, name)]
        end
      end
      table
    end

    def request_intro
      stacks = @results.keys("request_id").flat_map { |k| @results.meta("request_id", k)&.dig("notes", "stacks")&.to_a || [] }.uniq
      ["Both middlewares wrap an app that answers 200 \"ok\"; each request is a fresh copy of one GET / env. " \
       "The Rack row takes RequestId's steps (request object, X-Request-Id lookup, SecureRandom.uuid, response " \
       "header) with Rack alone; it is not Rails. Where ActionDispatch does not load, its row says why.",
       *stacks.map { |name, stack| "- #{name}: #{stack}" }]
    end

    def rsa_intro
      public_ops = @results.keys("rsa").filter_map do |key|
        how = @results.meta("rsa", key)&.dig("runtime", "rsa_public_exponentiation")
        "#{@results.label(key)}: #{how == "ifma" ? "AVX-512 IFMA" : "OpenSSL's BN_mod_exp_mont"}" if how && !how.empty?
      end
      ["Same keys everywhere (made by MRI's OpenSSL, read from PEM). fast_random's engines: :openssl " \
       "(libcrypto through JNI: fast_random's blinded constant-time CRT for private operations, a PKCS#1 v1.5 signature or " \
       "verification in one native call), :gmp (jnagmp + bouncycastle-rsa), :java (jruby-openssl's own code, " \
       "through fast_random's hook).",
       *("Public operations (verify, public_encrypt) ran on #{public_ops.uniq.join("; ")}." unless public_ops.empty?)]
    end

    def ec_intro
      engines = @results.keys("ec").filter_map do |key|
        engine = @results.meta("ec", key)&.dig("runtime", "ec_engine")
        "#{@results.label(key)}: :#{engine}" if engine && !engine.empty?
      end
      ["Keys read from PEM (the same everywhere, made by MRI's OpenSSL), two per curve (the second is the ECDH peer); " \
       "\"P-256 generated\": keys made by OpenSSL::PKey::EC.generate in the process. Signatures use SHA-256, " \
       "SHA-384 and SHA-512 for P-256, P-384 and P-521.",
       *("fast_random's EC engine: #{engines.uniq.join("; ")}." unless engines.empty?)]
    end

    def crypto_intro
      stacks = @results.keys("crypto").flat_map { |k| @results.meta("crypto", k)&.dig("notes", "stacks")&.to_a || [] }.uniq
      ["A new OpenSSL::Cipher per message, with the steps ActiveSupport::MessageEncryptor takes (encrypt or " \
       "decrypt, key, IV, empty auth_data for GCM, update, final, the tag); the same key, IV and messages " \
       "everywhere, checked against MRI's bytes. MessageEncryptor: aes-256-gcm with JSON, on a small session hash.",
       *stacks.map { |name, stack| "- #{name}: #{stack}" }]
    end

    def jvm_intro
      "The JVM's own randomness and signatures. \"JCA provider\" is fast_random with its JVM-wide " \
        "provider installed (FAST_RANDOM_JCA=1); without it, fast_random leaves them to the JDK."
    end

    def x509_intro
      "jruby-openssl signs certificates through the JVM's providers; fast_random's Certificate#sign signs through " \
        "its engines. \"JCA provider\" is fast_random with its JVM-wide provider installed (FAST_RANDOM_JCA=1) as well."
    end

    def tls_intro
      "#{jvm_intro} \"OpenSSL TLS engine\" is fast_random with FAST_RANDOM_TLS=openssl: handshakes on BoringSSL " \
        "(docs/tls.md). Server rows: each connection is a full handshake (no resumption), one at a time, by s_time " \
        "in its own process on the other core. Client rows: Net::HTTP GET of 1 KB on a new connection per request, " \
        "the certificate verified, from openssl s_server -WWW (single-threaded C, its own process). The " \
        "certificates are self-signed on the benchmark keys. i/s: connections per second of wall time, from " \
        "one-second rounds after a warm-up of every case."
    end

    def https_intro
      notes = @results.keys("https").filter_map { |key| [key, @results.meta("https", key)&.fetch("notes", nil)] }
                      .reject { |_, n| n.nil? }
      negotiated = notes.flat_map { |_, n| n["negotiated"]&.map { |row, suite| "#{row}: #{suite}" } || [] }.uniq
      tls = notes.filter_map do |key, n|
        status = n["fast_random_tls"] or next
        text = if !status["defined"] then "no FastRandom::TLS (stock jruby-openssl served)"
               elsif status["error"] then status["error"]
               else "installed? #{status["installed"]}, stats #{status["stats"].inspect}"
               end
        "#{@results.label(key)}: #{text}"
      end
      rounds = notes.map do |key, n|
        passes = n.dig("warmup", "passes")
        "#{@results.label(key)} #{n["rounds"]} after #{passes} warm-up pass#{"es" unless passes == 1} (#{n.dig("warmup", "seconds")} s)"
      end
      peer = notes.filter_map { |_, n| n["peer"] }.first
      ["The Ruby under test is the TLS client, one connection at a time, on the benchmark RSA-2048 certificate " \
       "(verified). GET: Net::HTTP#request_get with read_body in chunks, from C OpenSSL's `openssl s_server -WWW` " \
       "with the suite as its only TLS 1.3 -ciphersuites, timed from connect to the last byte. send: `write` of a " \
       "16 KiB string until an MRI peer process has read 128 MiB and answered; receive: `readpartial(16384)` while " \
       "the peer writes 16 KiB strings; both timed after the handshake. MB/s is the median of rounds that run every " \
       "row once in rotating order, after warm-up passes; ± is the rounds' standard deviation. \"MB per CPU-s\": " \
       "the bytes over the client process's own CPU time (all its threads; the median of the rounds), which other " \
       "processes on the machine move less than MB/s.",
       *("Peer: #{peer}." if peer),
       *("Rounds: #{rounds.join("; ")}." unless rounds.empty?),
       *("Negotiated (the client's view): #{negotiated.join("; ")}." unless negotiated.empty?),
       *("fast_random's SSLSocket data path (FastRandom::TLS): #{tls.join("; ")}." unless tls.empty?)]
    end

    # i/s in bench/https.rb's entries is bytes per second.
    def https_table(absences)
      table = Table.new(["transfer", "implementation", ">MB/s", ">±", ">vs stock", ">vs MRI", ">MB per CPU-s"])
      @results.cases("https").each do |name|
        @results.keys("https").each do |key|
          next unless @results.covers?("https", key, name)

          m = @results.measurement("https", key, name)
          cells = m ? [megabytes(m.ips), error(m)] : measured_cells("https", key, name, absences)
          per_cpu = @results.meta("https", key)&.dig("notes", "mb_per_cpu_second", name)
          table << [name, @results.label(key), *cells, *ratio_cells("https", key, name), per_cpu ? format("%.0f", per_cpu) : "-"]
        end
      end
      table
    end

    def startup_intro
      startup = @results.startup
      ["Each process runs `require LIBRARY; puts SecureRandom.uuid` (LIBRARY: securerandom, or fast_random for " \
       "fast_random); JRuby is started as `java -jar jruby-complete.jar`, without bin/jruby's shell script. " \
       "Medians of #{startup["runs"]} rounds, one process per implementation per round, in rotating order. " \
       "\"require + uuid\" is timed inside the process; the speed-ups compare process start to first uuid. " \
       "Then each process starts threads that make one uuid each and end, one at a time, for " \
       "#{startup["fresh_seconds"]} s after as long a warm-up: \"fresh thread + uuid\" is their rate, and " \
       "\"paired\" the median over rounds of fast_random's rate divided by stock's in the same round."]
    end

    def startup_table
      table = Table.new(["implementation", ">process start to first uuid", ">min - max", ">require + uuid", ">vs stock", ">vs MRI",
                         ">fresh thread + uuid", ">paired vs stock"])
      @results.startup["results"].each do |key, run|
        first = @results.startup_median(key)
        stock_key = @results.implementation(key)&.fetch("stock_key")
        fresh = @results.startup_median(key, "fresh_thread")
        paired = key.end_with?("-fast_random") ? @results.startup_paired_ratio(key.delete_suffix("-fast_random")) : nil
        table << [run["label"], milliseconds(first),
                  "#{milliseconds(run["first_uuid"].min)} - #{milliseconds(run["first_uuid"].max)}",
                  milliseconds(@results.startup_median(key, "require_and_uuid")),
                  ratio(divide(@results.startup_median(stock_key), first)), ratio(divide(@results.startup_median("mri"), first)),
                  fresh ? "#{rate(fresh)}/s" : "-", paired ? ratio(paired) : ""]
      end
      table
    end
  end
end
