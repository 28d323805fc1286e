# frozen_string_literal: true

require "open3"
require "socket"
require "timeout"

# The other ends of test/jca/tls_test.rb's handshakes: OpenSSL's command line
# tools (s_server, s_client, verify) and MRI's OpenSSL (Debian's ruby), each
# in its own process with a deadline, so a hang is a failure, not a stuck suite.
module TlsPeers
  DEADLINE = 60 # seconds
  MRI = ENV.fetch("FAST_RANDOM_MRI", "/usr/bin/ruby")
  VERSIONS = { "1.2" => "-tls1_2", "1.3" => "-tls1_3" }.freeze

  module_function

  def free_port
    server = TCPServer.new("127.0.0.1", 0)
    server.addr[1]
  ensure
    server&.close
  end

  # Runs `openssl s_server -www` for one connection with this certificate,
  # requiring a client certificate issued by +ca+; yields the port once it
  # accepts; returns [its output, the block's value].
  def s_server(cert:, key:, version:, ca:)
    port = free_port
    command = ["openssl", "s_server", "-accept", port.to_s, "-cert", cert, "-key", key, VERSIONS.fetch(version),
               "-Verify", "1", "-CAfile", ca, "-verify_return_error", "-www", "-naccept", "1"]
    Open3.popen2e(*command) do |stdin, output, thread|
      stdin.close
      Timeout.timeout(DEADLINE) { nil until output.gets.to_s.start_with?("ACCEPT") }
      value = yield port
      Timeout.timeout(DEADLINE) { thread.value }
      [output.read, value]
    ensure
      Process.kill("KILL", thread.pid) if thread.alive?
    end
  end

  # `openssl s_client` against port: sends "ping", returns everything it printed.
  def s_client(port, version:, ca:)
    run(["openssl", "s_client", "-connect", "127.0.0.1:#{port}", "-servername", "localhost", VERSIONS.fetch(version),
         "-CAfile", ca, "-verify_return_error", "-verify_hostname", "localhost", "-quiet"], "ping\n")
  end

  # MRI's OpenSSL::SSL::SSLSocket against port, verifying the server for
  # "localhost"; returns its output ("TLSv1.3 ok <reply>").
  def mri_client(port, version:, ca:)
    run([MRI, "-ropenssl", "-rsocket", "-e", <<~RUBY])
      context = OpenSSL::SSL::SSLContext.new
      context.ca_file = #{ca.dump}
      context.verify_mode = OpenSSL::SSL::VERIFY_PEER
      context.verify_hostname = true
      context.min_version = context.max_version = OpenSSL::SSL::TLS#{version.tr('.', '_')}_VERSION
      socket = OpenSSL::SSL::SSLSocket.new(TCPSocket.new("127.0.0.1", #{port}), context)
      socket.hostname = "localhost"
      socket.connect
      socket.puts "ping"
      puts [socket.ssl_version, socket.verify_result == OpenSSL::X509::V_OK ? "ok" : "unverified", socket.gets].join(" ")
    RUBY
  end

  # MRI's verdict on each certificate (PEM): its signature under the issuer's
  # key and its chain to the root, as "subject: ok" lines.
  def mri_verify(root:, chain:)
    run([MRI, "-ropenssl", "-e", <<~RUBY])
      root = OpenSSL::X509::Certificate.new(File.read(#{root.dump}))
      store = OpenSSL::X509::Store.new
      store.add_cert(root)
      #{chain.inspect}.each do |leaf, issuer|
        cert = OpenSSL::X509::Certificate.new(File.read(leaf))
        signer = OpenSSL::X509::Certificate.new(File.read(issuer))
        puts "\#{cert.subject}: \#{cert.verify(signer.public_key) && store.verify(cert, [signer]) ? 'ok' : store.error_string}"
      end
    RUBY
  end

  # [output and errors, status] of a command, with stdin; killed at the deadline.
  def run(command, input = "")
    Open3.popen2e(*command) do |stdin, output, thread|
      stdin.write(input)
      stdin.close
      text = Timeout.timeout(DEADLINE) { output.read }
      [text, thread.value]
    ensure
      Process.kill("KILL", thread.pid) if thread.alive?
    end
  end
end
