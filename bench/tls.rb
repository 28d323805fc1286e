# frozen_string_literal: true

# TLS handshakes per second, both sides, with an RSA-2048 and a P-256
# certificate (self-signed for localhost, on the benchmark keys):
# - as server: `openssl s_time -new` (a fresh full handshake per connection,
#   one at a time) against an OpenSSL::SSL::SSLServer in this process, TLS
#   1.3 and 1.2; s_time runs in its own process (the other core);
# - as client: Net::HTTP GET of a 1 KB file on a new connection per request
#   (the certificate verified, as a client must) from `openssl s_server -WWW`,
#   TLS 1.3, single-threaded C, in its own process.
# Each round's rate is its connections over the round's wall time. On JRuby
# the handshake is JSSE's unless fast_random's OpenSSL engine serves it
# (FAST_RANDOM_TLS=openssl); its RSA and EC are fast_random's under the
# JVM-wide provider (FAST_RANDOM_JCA=1).
#   ruby bench/tls.rb
#   BENCH_VARIANT=fast_random FAST_RANDOM_TLS=openssl bin/jruby bench/tls.rb
require_relative "support/harness"
require_relative "support/tls_certs"
require "open3"
require "socket"
require "net/http"
require "tmpdir"

require "openssl"
Bench.load_subject

module Bench
  module TLS
    VERSIONS = { "1.3" => "-tls1_3", "1.2" => "-tls1_2" }.freeze
    CASES = [["RSA-2048", "1.3"], ["P-256", "1.3"], ["RSA-2048", "1.2"]].freeze
    CLIENT_CASES = ["RSA-2048", "P-256"].freeze
    BODY = 1024
    # Seconds of GETs before the first client case is measured: JRuby's JIT
    # needs about 30 s of Net::HTTP's Ruby code (and the handshake's Java)
    # to reach its plateau; the later cases share that code (their own
    # warm-up is the usual one). MRI's rate is flat from the start.
    CLIENT_WARMUP = { full: 30, quick: 1 }.freeze

    module_function

    # Serves handshakes on a fresh port until the block returns: each
    # connection is accepted (the handshake), then closed.
    def serve(label)
      cert_path, key_path = TLSCerts.files(label)
      context = OpenSSL::SSL::SSLContext.new
      context.cert = OpenSSL::X509::Certificate.new(File.read(cert_path))
      context.key = OpenSSL::PKey.read(File.read(key_path))
      tcp = TCPServer.new("127.0.0.1", 0)
      server = OpenSSL::SSL::SSLServer.new(tcp, context)
      thread = Thread.new do
        loop do
          server.accept.close
        rescue OpenSSL::SSL::SSLError, SystemCallError
          next # s_time's last connection, cut off when its time is up
        rescue IOError
          break # the listening socket closed under accept: done
        end
      end
      yield tcp.addr[1]
    ensure
      thread&.kill
      tcp&.close
    end

    # One s_time round of +seconds+: handshakes per second of wall time.
    def round(port, version, seconds)
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      out, status = Open3.capture2e("openssl", "s_time", "-connect", "127.0.0.1:#{port}", "-new", VERSIONS.fetch(version),
                                    "-time", seconds.to_s)
      elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
      raise "openssl s_time failed:\n#{out}" unless status.success?

      connections = out[/(\d+) connections in [\d.]+ real seconds/, 1] or raise "no count in s_time's output:\n#{out}"
      [Integer(connections), elapsed]
    end

    # A warm-up round for every case first (JSSE's handshake code is shared
    # by all of them and the JIT needs thousands of handshakes), then each
    # case's entry from one-second rounds for the measurement time.
    def measure_all
      warmup = Bench.ips_times[:warmup]
      CASES.each { |label, version| serve(label) { |port| round(port, version, warmup.ceil) } } if warmup >= 1
      entries = CASES.map { |label, version| measure(label, version) }
      Dir.mktmpdir("fast_random-tls-bench") do |dir|
        File.binwrite(File.join(dir, "1k"), Random.new(42).bytes(BODY))
        first_warmup = CLIENT_WARMUP.fetch(Bench.quick? ? :quick : :full)
        CLIENT_CASES.each_with_index do |label, i|
          s_server(dir, label) { |port| get_round(port, label, i.zero? ? first_warmup : warmup) }
        end
        entries + CLIENT_CASES.map { |label| s_server(dir, label) { |port| measure_gets(port, label) } }
      end
    end

    # An `openssl s_server -WWW` serving +dir+ with +label+'s certificate, TLS 1.3, until the block returns.
    def s_server(dir, label)
      cert_path, key_path = TLSCerts.files(label)
      log = File.join(dir, "s_server.log")
      pid = Process.spawn("openssl", "s_server", "-accept", "127.0.0.1:0", "-WWW", "-tls1_3", "-cert", cert_path,
                          "-key", key_path, chdir: dir, in: File::NULL, out: log, err: log)
      deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 20
      port = nil
      until (port = File.exist?(log) && File.read(log)[/^ACCEPT .*:(\d+)$/, 1])
        raise "openssl s_server did not start:\n#{File.read(log) if File.exist?(log)}" if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline

        sleep 0.02
      end
      yield Integer(port)
    ensure
      if pid
        Process.kill("TERM", pid)
        Process.wait(pid)
      end
      File.delete(log) if log && File.exist?(log)
    end

    # GETs for +seconds+, each on a new connection: [requests, wall seconds].
    def get_round(port, label, seconds)
      ca_file = TLSCerts.files(label).first
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      count = 0
      while Process.clock_gettime(Process::CLOCK_MONOTONIC) - started < seconds
        http = Net::HTTP.new("localhost", port)
        http.use_ssl = true
        http.ca_file = ca_file
        http.verify_mode = OpenSSL::SSL::VERIFY_PEER
        body = http.start { |h| h.get("/1k").body }
        raise "GET /1k returned #{body.bytesize} bytes" unless body.bytesize == BODY

        count += 1
      end
      [count, Process.clock_gettime(Process::CLOCK_MONOTONIC) - started]
    end

    def measure_gets(port, label)
      times = Bench.ips_times
      rounds = Array.new([times[:time].round, 1].max) { get_round(port, label, 1) }
      calls = rounds.sum(&:first)
      seconds = rounds.sum(&:last)
      Bench.entry("TLS 1.3 client, Net::HTTP GET 1 KB, new connection, #{label}", rounds.map { |n, s| n / s }, calls / seconds,
                  calls: calls, seconds: seconds)
    end

    def measure(label, version)
      times = Bench.ips_times
      serve(label) do |port|
        rounds = Array.new([times[:time].round, 1].max) { round(port, version, 1) }
        calls = rounds.sum(&:first)
        seconds = rounds.sum(&:last)
        Bench.entry("TLS #{version} handshake, #{label}", rounds.map { |n, s| n / s }, calls / seconds, calls: calls, seconds: seconds)
      end
    end
  end
end

notes = { "jca_provider" => defined?(FastRandom) && FastRandom.jca_provider_installed?,
          "tls_engine" => defined?(FastRandom::TLS) && FastRandom::TLS.engine.to_s }
Bench.write_entries(Bench::TLS.measure_all, notes)
