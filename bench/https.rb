# frozen_string_literal: true

# HTTPS and TLS 1.3 bulk throughput, MB/s, one connection at a time, the Ruby
# under test always the TLS client, on OpenSSL::SSL::SSLSocket's data path
# (sysread, sysread_nonblock, syswrite; jruby-openssl's SSLEngine on JRuby):
#   - Net::HTTP GET of a 64 MiB file from C OpenSSL's `openssl s_server -WWW`,
#     TLS 1.3 with TLS_AES_128_GCM_SHA256 and with TLS_AES_256_GCM_SHA384
#     (s_server's -ciphersuites), the body read with read_body in chunks and
#     counted, never kept; timed from connect to the body's last byte.
#   - 128 MiB each way between this Ruby and an MRI peer process
#     (bench/support/tls_peer.rb on /usr/bin/ruby), TLS 1.3 with
#     TLS_AES_128_GCM_SHA256: "send" writes 16 KiB strings (ssl.write) until
#     the peer has read them all and said so; "receive" reads
#     readpartial(16384) while the peer writes 16 KiB strings. Timed after
#     the handshake.
# The certificate is the benchmark RSA-2048 one (support/tls_certs.rb),
# verified as real clients do. Warm-up passes over every row first (JRuby's
# JIT needs about 64 MiB of traffic), then rounds that run each row once,
# in rotating order; each row's figure is the median of its rounds. Where
# fast_random serves the SSLSocket data path (FastRandom::TLS), its
# installed? and stats go to the notes. So does each row's MB per CPU-second
# of this process, which other work on the machine moves less than MB/s.
#
# By hand (prints each round's MB/s; rows: get-aes128 get-aes256 send receive,
# all by default; BENCH_QUICK=1 for a short run):
#   BENCH_VARIANT=fast_random bin/jruby bench/https.rb receive
#   bin/jruby --bare bench/https.rb get-aes128        # stock JRuby
#   ruby bench/https.rb                                # MRI
require_relative "support/harness"
require_relative "support/tls_certs"
require "net/http"
require "socket"
require "tmpdir"

require "openssl"
Bench.load_subject

module Bench
  module HTTPS
    PEER_RUBY = "/usr/bin/ruby"
    PEER = File.expand_path("support/tls_peer.rb", __dir__)
    CERT = "RSA-2048"
    MIB = 1 << 20
    CHUNK = ("\xa5".b * 16_384).freeze
    FILE_NAME = "64MiB.bin"
    AES128 = "TLS_AES_128_GCM_SHA256"
    AES256 = "TLS_AES_256_GCM_SHA384"

    # key: the name to pick it by hand; kind: :get, :send or :receive.
    Row = Struct.new(:key, :name, :kind, :suite, :bytes)
    ROWS = [
      Row.new("get-aes128", "Net::HTTP GET 64 MiB, AES-128-GCM", :get, AES128, 64 * MIB),
      Row.new("get-aes256", "Net::HTTP GET 64 MiB, AES-256-GCM", :get, AES256, 64 * MIB),
      Row.new("send", "send 128 MiB, write(16 KiB), AES-128-GCM", :send, AES128, 128 * MIB),
      Row.new("receive", "receive 128 MiB, readpartial(16384), AES-128-GCM", :receive, AES128, 128 * MIB),
    ].freeze

    # Warm-up: at least this many passes over the rows and, on JRuby (whose
    # JIT it is for), this many seconds. Then the rounds, fewer if they take
    # longer than max_seconds (at least min_rounds), so that a slow
    # implementation stays under 3 minutes.
    FULL = { warmup_passes: 3, warmup_seconds: 10, rounds: 11, min_rounds: 3, max_seconds: 90 }.freeze
    QUICK = { warmup_passes: 2, warmup_seconds: 0, rounds: 3, min_rounds: 2, max_seconds: 10 }.freeze

    module_function

    def settings
      Bench.quick? ? QUICK : FULL
    end

    def clock
      Process.clock_gettime(Process::CLOCK_MONOTONIC)
    end

    def by_hand?
      Bench.output_prefix.nil?
    end

    def rows(keys)
      return ROWS if keys.empty?

      unknown = keys - ROWS.map(&:key)
      abort "unknown row #{unknown.join(", ")} (use #{ROWS.map(&:key).join(", ")})" unless unknown.empty?
      ROWS.select { |row| keys.include?(row.key) }
    end

    # The certificate and key, made by MRI's OpenSSL if this is the first
    # run (bench/run.rb makes them before; by hand on JRuby, the peer's MRI).
    def certificate
      cert, key = TLSCerts.files(CERT)
      unless File.exist?(cert) && File.exist?(key)
        system(PEER_RUBY, "-r", File.expand_path("support/tls_certs", __dir__), "-e", "Bench::TLSCerts.generate",
               exception: true)
      end
      [cert, key]
    end

    # Runs +rows+: warm-up, then the rounds. Returns [entries, notes].
    def measure(rows)
      @negotiated = {}
      servers = { pids: [] }
      Dir.mktmpdir("fast_random-https") do |dir|
        start_servers(dir, rows, servers)
        runner = ->(row) { run(row, servers) }
        warmup = warm_up(rows, runner)
        seconds = Hash.new { |hash, key| hash[key] = [] }
        cpu = Hash.new { |hash, key| hash[key] = [] }
        started = clock
        rounds = 0
        while rounds < settings[:rounds] && (rounds < settings[:min_rounds] || clock - started < settings[:max_seconds])
          rows.rotate(rounds).each do |row|
            before = cpu_seconds
            seconds[row] << runner.call(row)
            cpu[row] << cpu_seconds - before
            say(row, seconds[row].last, "round #{rounds + 1}", cpu[row].last)
          end
          rounds += 1
        end
        entries = rows.map { |row| entry(row, seconds[row]) }
        [entries, notes(rows, seconds, cpu, warmup, rounds)]
      ensure
        stop_servers(servers)
      end
    end

    def warm_up(rows, runner)
      started = clock
      passes = 0
      seconds = RUBY_ENGINE == "jruby" ? settings[:warmup_seconds] : 0
      while passes < settings[:warmup_passes] || clock - started < seconds
        rows.each { |row| say(row, runner.call(row), "warm-up #{passes + 1}") }
        passes += 1
      end
      { "passes" => passes, "seconds" => (clock - started).round(1) }
    end

    # The CPU time of this process's threads (JRuby's JIT and GC too), from
    # Linux's per-thread nanoseconds (a thread that ends takes its share
    # along); elsewhere Process.times, in 10 ms ticks.
    def cpu_seconds
      tasks = Dir.glob("/proc/self/task/*/schedstat")
      return tasks.sum { |task| File.read(task).to_i rescue 0 } / 1e9 unless tasks.empty? # rubocop:disable Style/RescueModifier

      times = Process.times
      times.utime + times.stime
    end

    def say(row, seconds, what, cpu = nil)
      return unless by_hand?

      per_cpu = cpu&.positive? ? format(", %8.1f MB per CPU-second", row.bytes / cpu / 1e6) : ""
      warn format("%-52s %-12s %8.1f MB/s%s", row.name, what, row.bytes / seconds / 1e6, per_cpu)
    end

    def entry(row, seconds)
      rates = seconds.map { |s| row.bytes / s }
      Bench.entry(row.name, rates, median(rates), calls: row.bytes * seconds.size, seconds: seconds.sum)
    end

    def median(values)
      sorted = values.sort
      mid = sorted.size / 2
      sorted.size.odd? ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0
    end

    def run(row, servers)
      case row.kind
      when :get then get(row, servers.fetch(row.suite))
      when :send then send_loop(row, servers.fetch(:peer))
      when :receive then receive_loop(row, servers.fetch(:peer))
      end
    end

    # --- the servers: one s_server per GET suite, one MRI peer for the loops

    # Starts what +rows+ need, into +servers+: row suite => port, :peer => port,
    # and what stop_servers ends.
    def start_servers(dir, rows, servers)
      cert, key = certificate
      if rows.any? { |row| row.kind == :get }
        write_file(File.join(dir, FILE_NAME), 64 * MIB)
        rows.select { |row| row.kind == :get }.map(&:suite).uniq.each do |suite|
          servers[suite] = start_s_server(dir, suite, cert, key, servers[:pids])
        end
      end
      servers[:peer] = start_peer(cert, key, AES128, servers) if rows.any? { |row| row.kind != :get }
    end

    # The file s_server serves: a random MiB, repeated.
    def write_file(path, bytes)
      block = Random.new(42).bytes(MIB)
      File.open(path, "wb") { |file| (bytes / MIB).times { file.write(block) } }
    end

    def start_s_server(dir, suite, cert, key, pids)
      log = File.join(dir, "s_server-#{suite}.log")
      pids << (pid = Process.spawn("openssl", "s_server", "-accept", "127.0.0.1:0", "-WWW", "-tls1_3",
                                   "-ciphersuites", suite, "-cert", cert, "-key", key,
                                   chdir: dir, in: File::NULL, out: log, err: log))
      deadline = clock + 20
      loop do
        port = File.exist?(log) && File.read(log)[/^ACCEPT .*:(\d+)$/, 1]
        return Integer(port) if port
        raise "openssl s_server did not start:\n#{File.read(log) if File.exist?(log)}" if clock > deadline || Process.waitpid(pid, Process::WNOHANG)

        sleep 0.02
      end
    end

    def start_peer(cert, key, suite, servers)
      abort "#{PEER_RUBY} (MRI, the peer) is missing" unless File.executable?(PEER_RUBY)
      io = IO.popen([PEER_RUBY, PEER, cert, key, suite], "r")
      servers[:peer_io] = io
      line = io.gets or raise "bench/support/tls_peer.rb did not start"
      Integer(line[/\APORT (\d+)/, 1] || raise("tls_peer.rb said #{line.inspect}"))
    end

    def stop_servers(servers)
      servers[:pids].each do |pid|
        Process.kill("TERM", pid)
        Process.wait(pid)
      rescue SystemCallError
        nil
      end
      io = servers[:peer_io] or return
      Process.kill("TERM", io.pid)
      io.close
    rescue SystemCallError
      nil
    end

    # --- the rows

    def get(row, port)
      http = Net::HTTP.new("localhost", port)
      http.ipaddr = "127.0.0.1"
      http.use_ssl = true
      http.ca_file = certificate.first
      http.verify_mode = OpenSSL::SSL::VERIFY_PEER
      bytes = 0
      started = clock
      http.start do
        http.request_get("/#{FILE_NAME}") do |response|
          raise "GET: HTTP #{response.code}" unless response.code == "200"

          response.read_body { |chunk| bytes += chunk.bytesize }
        end
        check(row, http.instance_variable_get(:@socket).io)
      end
      seconds = clock - started
      raise "GET: #{bytes} bytes, not #{row.bytes}" unless bytes == row.bytes

      seconds
    end

    def client_context
      @client_context ||= OpenSSL::SSL::SSLContext.new.tap { |context| context.set_params(ca_file: certificate.first) }
    end

    def connect(port)
      tcp = TCPSocket.new("127.0.0.1", port)
      tcp.setsockopt(Socket::IPPROTO_TCP, Socket::TCP_NODELAY, 1) # as Net::HTTP does
      ssl = OpenSSL::SSL::SSLSocket.new(tcp, client_context)
      ssl.sync_close = true
      ssl.hostname = "localhost"
      ssl.connect
      ssl.post_connection_check("localhost")
      ssl
    end

    def send_loop(row, port)
      ssl = connect(port)
      started = clock
      ssl.write("recv #{row.bytes}\n")
      (row.bytes / CHUNK.bytesize).times { ssl.write(CHUNK) }
      reply = ssl.gets
      seconds = clock - started
      raise "the peer answered #{reply.inspect}" unless reply&.start_with?("ok ")

      check(row, ssl)
      seconds
    ensure
      ssl&.close
    end

    def receive_loop(row, port)
      ssl = connect(port)
      started = clock
      ssl.write("send #{row.bytes}\n")
      left = row.bytes
      left -= ssl.readpartial(16_384).bytesize while left.positive?
      seconds = clock - started
      raise "received #{row.bytes - left} bytes, not #{row.bytes}" unless left.zero?

      check(row, ssl)
      seconds
    ensure
      ssl&.close
    end

    # That the connection ran the row's suite on TLS 1.3 (the client's view).
    def check(row, ssl)
      suite = Array(ssl.cipher).first
      protocol = ssl.ssl_version
      raise "#{row.name}: negotiated #{suite} #{protocol}, not #{row.suite} TLSv1.3" unless suite == row.suite && protocol == "TLSv1.3"

      @negotiated[row.name] = "#{suite}, #{protocol}"
    end

    # --- what goes with the numbers

    def notes(rows, seconds, cpu, warmup, rounds)
      {
        "unit" => "i/s is bytes per second (MB/s = i/s / 10^6); each row's figure is the median of its rounds",
        "rounds" => rounds,
        "warmup" => warmup,
        "rounds_mb_per_s" => rows.to_h { |row| [row.name, seconds[row].map { |s| (row.bytes / s / 1e6).round(1) }] },
        # The client's own cost, less moved by other processes than MB/s:
        # bytes over this process's CPU seconds (all its threads), median of
        # the rounds, in MB.
        "mb_per_cpu_second" => rows.to_h { |row| [row.name, per_cpu_second(row, cpu[row])] },
        "negotiated" => @negotiated,
        "s_server" => `openssl version`.strip,
        "peer" => peer_version,
        "fast_random_tls" => fast_random_tls,
      }.compact
    end

    def per_cpu_second(row, cpu)
      rates = cpu.select(&:positive?).map { |c| row.bytes / c / 1e6 }
      rates.empty? ? nil : median(rates).round(1)
    end

    def peer_version
      out = IO.popen([PEER_RUBY, "-ropenssl", "-e", "print RUBY_DESCRIPTION, ', ', OpenSSL::OPENSSL_LIBRARY_VERSION"], &:read)
      "#{PEER_RUBY}: #{out}"
    rescue SystemCallError => e
      e.message
    end

    # FastRandom::TLS's word on whether it served the SSLSocket data path, once
    # the rows have run; nil where fast_random is not loaded.
    def fast_random_tls
      return unless defined?(FastRandom)
      # Defined on first use (FastRandom's const_missing), so `defined?` says nil before; MRI's inactive gem has none.
      return { "defined" => false } unless FastRandom.active?

      { "defined" => true, "installed" => FastRandom::TLS.installed?, "stats" => plain(FastRandom::TLS.stats) }
    rescue StandardError => e
      { "defined" => true, "error" => "#{e.class}: #{e.message}" }
    end

    # A value JSON can hold (stats may be a Ruby or a Java map).
    def plain(value)
      case value
      when Hash then value.to_h { |k, v| [k.to_s, plain(v)] }
      when Array then value.map { |v| plain(v) }
      when Numeric, String, true, false, nil then value
      when Symbol then value.to_s
      else value.respond_to?(:to_h) ? plain(value.to_h) : value.to_s
      end
    end

    def print_summary(entries, notes)
      entries.each do |e|
        warn format("%-52s %8.1f MB/s median (±%.1f%%), %s MB per CPU-second", e["name"], e["ips"] / 1e6,
                    100.0 * e["stddev"] / e["ips"], notes.dig("mb_per_cpu_second", e["name"]) || "-")
      end
      warn "fast_random TLS: #{notes["fast_random_tls"].inspect}" if notes.key?("fast_random_tls")
    end
  end
end

entries, notes = Bench::HTTPS.measure(Bench::HTTPS.rows(ARGV))
if Bench::HTTPS.by_hand?
  Bench::HTTPS.print_summary(entries, notes)
else
  Bench.write_entries(entries, notes)
end
