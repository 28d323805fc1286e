# frozen_string_literal: true

require "digest"
require "fileutils"
require "open3"
require "securerandom"
require "socket"
require "timeout"
require_relative "tls_peers"

# The peers of test/tls/interop_test.rb and what its JRuby end does with
# them: C OpenSSL's s_server and s_client with -quiet, where what comes in on
# stdin goes to the other end and what the other end sends is all that
# stdout prints (so both directions are checked byte for byte), and MRI
# (test/support/tls_interop_peer.rb), each process with a deadline so a hang
# fails. Plain Ruby: a child JRuby (the KeyUpdate case) loads it too.
module TlsInterop
  DEADLINE = TlsPeers::DEADLINE
  MRI = TlsPeers::MRI
  PEER = File.expand_path("tls_interop_peer.rb", __dir__)
  VERSIONS = TlsPeers::VERSIONS

  module_function

  # Self-signed certificates for localhost and 127.0.0.1 made by openssl
  # (P-256 and RSA-2048): dir/ec.pem, ec.key, rsa.pem, rsa.key.
  def certificates(dir)
    { "ec" => %w[-newkey ec -pkeyopt ec_paramgen_curve:P-256], "rsa" => %w[-newkey rsa:2048] }.each do |name, key|
      out, status = Open3.capture2e("openssl", "req", "-x509", *key, "-nodes", "-keyout", File.join(dir, "#{name}.key"),
                                    "-out", File.join(dir, "#{name}.pem"), "-subj", "/CN=localhost", "-days", "2",
                                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1")
      raise "openssl req (#{name}): #{out}" unless status.success?
    end
    dir
  end

  def sha(data) = Digest::SHA256.hexdigest(data)

  # +bytes+ random bytes (fast_random's), the last a newline, so that a
  # reader by lines (gets) reads them all and stops there.
  def payload(bytes)
    data = SecureRandom.random_bytes(bytes)
    data[-1] = "\n"
    data
  end

  # +lines+ lines of 63 random decimal digits: data that a tool's stdin
  # command letters (s_server's Q, q, P, S, K...) never start.
  def digit_lines(lines)
    digits = ("0123456789" * 26)[0, 256]
    SecureRandom.random_bytes(lines * 63).tr("\x00-\xff".b, digits).scan(/.{63}/).map { |line| "#{line}\n" }.join
  end

  def monotonic = Process.clock_gettime(Process::CLOCK_MONOTONIC)

  # A TCP connection to port, tried until the peer listens (a refused
  # connect is no connection the peer accepts), up to the deadline.
  def connect(port)
    deadline = monotonic + DEADLINE
    begin
      TCPSocket.new("127.0.0.1", port)
    rescue Errno::ECONNREFUSED
      raise if monotonic > deadline

      sleep 0.02
      retry
    end
  end

  # An OpenSSL::SSL::SSLContext for a JRuby client verifying +ca+ (or a
  # server with cert and key), TLS +version+ only.
  def context(version: nil, ca: nil, cert: nil, key: nil)
    context = OpenSSL::SSL::SSLContext.new
    context.min_version = context.max_version = OpenSSL::SSL.const_get("TLS#{version.tr('.', '_')}_VERSION") if version
    if ca
      context.ca_file = ca
      context.verify_mode = OpenSSL::SSL::VERIFY_PEER
    end
    context.cert = OpenSSL::X509::Certificate.new(File.read(cert)) if cert
    context.key = OpenSSL::PKey.read(File.read(key)) if key
    context
  end

  # A JRuby client's SSLSocket over a TCP connection to port, connected;
  # +only+: the one cipher suite (JSSE's name) it offers; +sndbuf+: its
  # socket's send buffer.
  def client(port, context, only: nil, sndbuf: nil)
    tcp = connect(port)
    tcp.setsockopt(Socket::SOL_SOCKET, Socket::SO_SNDBUF, sndbuf) if sndbuf
    socket = OpenSSL::SSL::SSLSocket.new(tcp, context)
    socket.sync_close = true
    socket.hostname = "localhost"
    only_suite(socket, only, server: false) if only
    Timeout.timeout(DEADLINE) { socket.connect }
    socket
  end

  # The negotiated suite's name: jruby-openssl's SSLSocket#cipher is that
  # name (JSSE's), MRI's [name, version, bits, algorithm bits].
  def cipher_name(socket)
    cipher = socket.cipher
    cipher.is_a?(Array) ? cipher.first : cipher
  end

  # The next connection an SSLServer (start_immediately false) accepts,
  # handshake done; +only+: the one cipher suite (JSSE's name) it takes.
  def accept(server, only: nil)
    Timeout.timeout(DEADLINE) do
      socket = server.accept
      socket.sync_close = true
      only_suite(socket, only, server: true) if only
      socket.accept
    end
  end

  # Enables one cipher suite alone on the socket's SSLEngine, made now by
  # jruby-openssl's own step (ossl_ssl_setup, which connect and accept then
  # find made): for a suite jruby-openssl's table of OpenSSL names lacks
  # (ECDHE-ECDSA-CHACHA20-POLY1305: SSLContext#ciphers= says "no cipher
  # match"), which JSSE itself offers.
  def only_suite(socket, suite, server:)
    require "jruby"
    java_socket = JRuby.reference(socket)
    setup = java_socket.java_class.to_java.getDeclaredMethods.find { |method| method.getName == "ossl_ssl_setup" }
    raise "jruby-openssl #{JOpenSSL::VERSION} has no SSLSocket#ossl_ssl_setup to make its engine with" unless setup

    setup.setAccessible(true)
    context = JRuby.runtime.getCurrentContext
    engine = setup.getParameterCount == 2 ? setup.invoke(java_socket, context, server) : setup.invoke(java_socket, context)
    engine.setEnabledCipherSuites([suite].to_java(:string))
  end

  # Writes +data+ to +socket+ as +count+ writes of +size+ bytes (the last
  # shorter) by +how+: :write, :syswrite (taking what each call took) or :<<.
  def send_data(socket, data, size, how)
    offset = 0
    while offset < data.bytesize
      piece = data.byteslice(offset, size)
      case how
      when :write then socket.write(piece)
      when :<< then socket << piece
      when :syswrite
        written = 0
        written += socket.syswrite(written.zero? ? piece : piece.byteslice(written..)) while written < piece.bytesize
      else raise ArgumentError, "no way to write #{how.inspect}"
      end
      offset += piece.bytesize
    end
    data.bytesize
  end

  # Reads +total+ bytes from +socket+ by +how+ (:readpartial, :sysread,
  # :read, :gets) in pieces of at most +size+: [bytes, SHA-256].
  def receive_data(socket, total, size, how)
    digest = Digest::SHA256.new
    buffer = String.new
    got = 0
    while got < total
      want = [size, total - got].min
      piece = case how
              when :readpartial then socket.readpartial(want, buffer)
              when :sysread then socket.sysread(want, buffer)
              when :read then socket.read(want)
              when :gets then socket.gets("\n", want)
              else raise ArgumentError, "no way to read #{how.inspect}"
              end
      raise EOFError, "the end after #{got} of #{total} bytes" if piece.nil?

      digest << piece
      got += piece.bytesize
    end
    [got, digest.hexdigest]
  end

  # FastRandom::TLS.stats' change while the block runs, and the block's value.
  def counting
    before = FastRandom::TLS.stats
    value = yield
    after = FastRandom::TLS.stats
    [after.to_h { |name, count| [name, count - before.fetch(name)] }, value]
  end

  # The block's value with SSLSocket's data path +path+: :fast_random
  # (fast_random's, installed) or :stock (jruby-openssl's own); fast_random's again after.
  def on_path(path)
    FastRandom::TLS.uninstall if path == :stock
    raise "FastRandom::TLS is not installed: #{FastRandom::TLS.problem}" if path == :fast_random && !FastRandom::TLS.installed?

    yield
  ensure
    FastRandom::TLS.install if path == :stock
  end

  # A command-line OpenSSL peer (s_server or s_client with -quiet): its stdin
  # is what it sends, its stdout what it received.
  class Tool
    attr_reader :command

    def initialize(command, chdir: Dir.pwd)
      @command = command
      @stdin, @stdout, @stderr, @thread = Open3.popen3(*command, chdir: chdir)
      [@stdin, @stdout].each(&:binmode)
      @errors = quiet_thread { @stderr.read }
    end

    # Writes +data+ to the tool's stdin on a thread of its own (the thread).
    def feed(data)
      quiet_thread { @stdin.write(data) }
    end

    def puts(line)
      @stdin.write("#{line}\n")
      @stdin.flush
    end

    # Reads +bytes+ of the tool's stdout on a thread, whose value is
    # [bytes read, SHA-256] (fewer at its end).
    def drain(bytes)
      quiet_thread do
        digest = Digest::SHA256.new
        got = 0
        buffer = String.new
        while got < bytes
          begin
            @stdout.readpartial([1 << 16, bytes - got].min, buffer)
          rescue EOFError
            break
          end
          digest << buffer
          got += buffer.bytesize
        end
        [got, digest.hexdigest]
      end
    end

    # The line the tool prints next (stdout), within the deadline.
    def gets
      Timeout.timeout(DEADLINE) { @stdout.gets }
    end

    # From now on a thread reads the tool's stdout by lines; #wait_for
    # takes them in turn, and #finish returns them all.
    def read_lines
      @lines = Queue.new
      @reader = quiet_thread do
        all = []
        while (line = @stdout.gets)
          all << line
          @lines << line
        end
        @lines << nil
        all
      end
    end

    # Takes lines (#read_lines) until one matches +pattern+, within the deadline: that line.
    def wait_for(pattern)
      Timeout.timeout(DEADLINE) do
        while (line = @lines.pop)
          return line if line.match?(pattern)
        end
        raise "#{command.first(2).join(' ')} ended before printing #{pattern.inspect}"
      end
    end

    # Waits for the tool's end (stdin closed), killed at the deadline:
    # [exit status, what it printed on stderr, the rest of its stdout
    # (with #read_lines, all of it)].
    def finish(close_stdin: true)
      @stdin.close if close_stdin && !@stdin.closed?
      status = Timeout.timeout(DEADLINE) { @thread.value }
      rest = @reader ? Timeout.timeout(DEADLINE) { @reader.value }.join : @stdout.read
      [status, Timeout.timeout(DEADLINE) { @errors.value }, rest]
    ensure
      kill
    end

    # Ends the tool if it still runs, and closes its pipes.
    def kill
      begin
        Process.kill("KILL", @thread.pid) if @thread.alive?
      rescue Errno::ESRCH
        nil
      end
      @thread.join(DEADLINE)
      ended(@errors, DEADLINE)
      [@stdin, @stdout, @stderr].each { |io| io.close unless io.closed? }
    end

    private

    # A thread whose exception its #value or #join raises, and nothing prints
    # (a tool killed at a failure ends its readers and writers with one).
    def quiet_thread(&block)
      thread = Thread.new(&block)
      thread.report_on_exception = false
      thread
    end

    # Whether +thread+ ended within +seconds+, however it ended.
    def ended(thread, seconds)
      thread.join(seconds)
      !thread.alive?
    rescue StandardError
      true
    end

    public

    # The command and what it printed on stderr (if it ended within 5 s), for a failure's message.
    def describe
      errors = ended(@errors, 5) ? (@errors.value rescue "(stderr: #{$!.message})") : "(still running)"
      "#{command.join(' ')}\n#{errors}"
    end
  end

  # `openssl s_server -quiet` for one connection at TLS +version+, allowing
  # only +suite+: [the tool, its port].
  def s_server(cert:, key:, version:, suite:, extra: [])
    port = TlsPeers.free_port
    [Tool.new(["openssl", "s_server", "-accept", port.to_s, "-cert", cert, "-key", key, VERSIONS.fetch(version),
               *suite_options(version, suite), "-quiet", "-naccept", "1", *extra]), port]
  end

  # `openssl s_client -quiet` to port at TLS +version+, offering only
  # +suite+, verifying the server for "localhost" against +ca+.
  def s_client(port, ca:, version:, suite:, extra: [])
    Tool.new(["openssl", "s_client", "-connect", "127.0.0.1:#{port}", "-servername", "localhost", VERSIONS.fetch(version),
              *suite_options(version, suite), "-CAfile", ca, "-verify_return_error", "-verify_hostname", "localhost",
              "-quiet", *extra])
  end

  # The records an `openssl s_server -msg -msgfile FILE` saw, in order:
  # [direction, kind], direction "<<<" (from the peer) or ">>>" (to it), kind
  # :data (application data) or :key_update (TLS 1.3 KeyUpdate).
  def msg_records(file)
    lines = File.readlines(file)
    lines.each_with_index.filter_map do |line, i|
      if line =~ /\A(<<<|>>>) TLS 1\.3, Handshake \[length \h+\], KeyUpdate/
        [Regexp.last_match(1), :key_update]
      elsif line =~ /\A(<<<|>>>) TLS 1\.\d, InnerContent/ && lines[i + 1].to_s.strip == "17"
        [Regexp.last_match(1), :data]
      end
    end
  end

  def suite_options(version, suite)
    return [] unless suite

    version == "1.3" ? ["-ciphersuites", suite] : ["-cipher", suite]
  end

  # An MRI peer (tls_interop_peer.rb): commands to its stdin, answers from its stdout.
  class Mri < Tool
    def self.server(cert:, key:, version: nil, ciphers: nil)
      new([MRI, PEER, "server", cert, key, version, ciphers].compact)
    end

    def self.client(port, ca:, version: nil, ciphers: nil)
      new([MRI, PEER, "client", port.to_s, ca, version, ciphers].compact)
    end

    def self.http(cert:, key:)
      new([MRI, PEER, "http", cert, key])
    end

    # The port it listens on.
    def port
      line = gets
      raise "the MRI peer printed #{line.inspect}, not its port\n#{describe}" unless line&.start_with?("port ")

      Integer(line.split[1])
    end

    # The answer to +command+: its words after the first, or a failure saying what the peer printed.
    def ask(command)
      puts(command)
      answer
    end

    # Its next answer's words.
    def answer
      line = gets
      raise "the MRI peer ended without an answer\n#{describe}" unless line

      line.split
    end
  end
end
