# frozen_string_literal: true

# TLS handshakes per second: `openssl s_time -new` (a fresh full handshake
# per connection, one at a time) against an OpenSSL::SSL::SSLServer in this
# process, with an RSA-2048 and a P-256 certificate (self-signed, on the
# benchmark keys), TLS 1.3 and 1.2. s_time runs in its own process (the
# other core); each round's rate is its connections over the round's wall
# time. On JRuby the server is JSSE: fast_random changes it only with its
# JVM-wide provider (FAST_RANDOM_JCA=1).
#   ruby bench/tls.rb
#   BENCH_VARIANT=fast_random FAST_RANDOM_JCA=1 bin/jruby bench/tls.rb
require_relative "support/harness"
require_relative "support/tls_certs"
require "open3"
require "socket"

require "openssl"
Bench.load_subject

module Bench
  module TLS
    VERSIONS = { "1.3" => "-tls1_3", "1.2" => "-tls1_2" }.freeze
    CASES = [["RSA-2048", "1.3"], ["P-256", "1.3"], ["RSA-2048", "1.2"]].freeze

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
      CASES.map { |label, version| measure(label, version) }
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

notes = { "jca_provider" => defined?(FastRandom) && FastRandom.jca_provider_installed? }
Bench.write_entries(Bench::TLS.measure_all, notes)
