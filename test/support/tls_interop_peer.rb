# frozen_string_literal: true

# The MRI end of test/tls/interop_test.rb's connections (Debian's ruby, its
# OpenSSL 3), driven line by line on stdin, each answer a line on stdout;
# the TLS connection carries only the data, so nothing in it is framing.
#
#   ruby tls_interop_peer.rb server CERT KEY [VERSION [CIPHERS]]   prints "port N", accepts one connection
#   ruby tls_interop_peer.rb client PORT CA [VERSION [CIPHERS]]    connects, verifying "localhost" against CA
#   ruby tls_interop_peer.rb http CERT KEY                         an HTTPS server (below)
#
# Once connected it prints "ready VERSION CIPHER" and takes these commands:
#
#   send SIZE COUNT [PAUSE]   COUNT writes of SIZE random bytes, the last a newline (PAUSE s before
#                             each): "sent BYTES SHA256"
#   recv BYTES [DELAY]        waits DELAY s, then reads BYTES by readpartial: "got BYTES SHA256", or
#                             the bytes got before the end or an error, their SHA-256 and the error
#   reply TEXT                writes TEXT and a newline on the connection: "replied"
#   duplex SEND RECV DELAY    sends SEND random bytes and reads RECV at once, in one IO.select loop
#                             on read_nonblock and write_nonblock; reads nothing for DELAY s:
#                             "duplex SENT SHA256 GOT SHA256"
#   finish                    sends close_notify (SSLSocket#stop), reads to the end: "eof BYTES_LEFT"
#
# The http mode answers each POST on its connections with "LENGTH SHA256\n"
# of the request's body (Content-Length or chunked) and each GET /N with N
# random bytes and their SHA-256 in the X-Sha256 header, HTTP/1.1 with
# keep-alive; it prints "port N" and serves until stdin closes.
#
# Each run has a deadline (TLS_INTEROP_DEADLINE seconds, 60 by default):
# past it the process exits, so a connection that hangs fails the test.
require "openssl"
require "socket"
require "digest"

$stdout.sync = true
deadline = Float(ENV.fetch("TLS_INTEROP_DEADLINE", "60"))
Thread.new do
  sleep deadline
  warn "tls_interop_peer: the deadline of #{deadline} s passed"
  exit!(3)
end

CHUNK = 1 << 16

def context_for(version, ciphers)
  context = OpenSSL::SSL::SSLContext.new
  if version
    context.min_version = context.max_version = OpenSSL::SSL.const_get("TLS#{version.tr('.', '_')}_VERSION")
  end
  if ciphers
    version == "1.3" ? context.ciphersuites = ciphers : context.ciphers = ciphers
  end
  context
end

def server_context(cert, key, version = nil, ciphers = nil)
  context = context_for(version, ciphers)
  context.cert = OpenSSL::X509::Certificate.new(File.read(cert))
  context.key = OpenSSL::PKey.read(File.read(key))
  context
end

def listen
  server = TCPServer.new("127.0.0.1", 0)
  # A small receive buffer (inherited by the accepted connection), so a peer's writes fill the socket sooner.
  server.setsockopt(Socket::SOL_SOCKET, Socket::SO_RCVBUF, Integer(ENV["TLS_INTEROP_RCVBUF"])) if ENV["TLS_INTEROP_RCVBUF"]
  puts "port #{server.addr[1]}"
  server
end

# Reads exactly +bytes+ from +socket+: [count, hex SHA-256].
def receive(socket, bytes)
  digest = Digest::SHA256.new
  buffer = +""
  got = 0
  while got < bytes
    socket.readpartial([CHUNK, bytes - got].min, buffer)
    digest << buffer
    got += buffer.bytesize
  end
  [got, digest.hexdigest]
rescue EOFError, OpenSSL::SSL::SSLError, SystemCallError => e
  [got, digest.hexdigest, "#{e.class}:", e.message]
end

def duplex(socket, send_bytes, recv_bytes, delay)
  data = Random.bytes(send_bytes)
  sent = 0
  digest = Digest::SHA256.new
  got = 0
  buffer = +""
  start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  while sent < send_bytes || got < recv_bytes
    reading = got < recv_bytes && Process.clock_gettime(Process::CLOCK_MONOTONIC) - start >= delay
    progress = false
    if reading
      case (result = socket.read_nonblock(CHUNK, buffer, exception: false))
      when :wait_readable, :wait_writable then nil
      when nil then raise EOFError, "the end after #{got} of #{recv_bytes} bytes"
      else
        digest << result
        got += result.bytesize
        progress = true
      end
    end
    if sent < send_bytes
      case (written = socket.write_nonblock(data.byteslice(sent, CHUNK), exception: false))
      when :wait_readable, :wait_writable then nil
      else
        sent += written
        progress = true
      end
    end
    next if progress

    wait = reading ? [socket] : []
    IO.select(wait, sent < send_bytes ? [socket] : [], nil, reading ? 1 : 0.05)
  end
  [sent, Digest::SHA256.hexdigest(data), got, digest.hexdigest]
end

def serve_commands(socket)
  puts "ready #{socket.ssl_version} #{socket.cipher[0]}"
  while (line = $stdin.gets)
    command, *args = line.split
    case command
    when "send"
      size, count, pause = Integer(args[0]), Integer(args[1]), Float(args[2] || 0)
      data = Random.bytes(size * count)
      data[-1] = "\n" # so a reader by lines reads it all
      count.times do |i|
        sleep pause if pause.positive?
        socket.write(data.byteslice(i * size, size))
      end
      puts "sent #{data.bytesize} #{Digest::SHA256.hexdigest(data)}"
    when "recv"
      sleep Float(args[1]) if args[1]
      puts "got #{receive(socket, Integer(args[0])).join(' ')}"
    when "reply"
      socket.write("#{args.join(' ')}\n")
      puts "replied"
    when "duplex"
      puts "duplex #{duplex(socket, Integer(args[0]), Integer(args[1]), Float(args[2])).join(' ')}"
    when "finish"
      socket.send(:stop) # close_notify; reading goes on (private in the openssl gem)
      left = 0
      buffer = +""
      begin
        loop { left += socket.readpartial(CHUNK, buffer).bytesize }
      rescue EOFError, Errno::ECONNRESET
        nil
      end
      socket.close
      puts "eof #{left}"
      return
    else
      raise ArgumentError, "tls_interop_peer: no command #{line.inspect}"
    end
  end
end

# One HTTP/1.1 request on +socket+, answered; false at the connection's end.
def serve_request(socket)
  request = socket.gets("\r\n")
  return false unless request

  headers = {}
  while (line = socket.gets("\r\n")) && line != "\r\n"
    name, value = line.split(":", 2)
    headers[name.downcase] = value.strip
  end
  method, path, = request.split
  digest = Digest::SHA256.new
  length = 0
  if headers["transfer-encoding"].to_s.casecmp?("chunked")
    while (size = Integer(socket.gets("\r\n").split(";").first.strip, 16)).positive?
      chunk = socket.read(size)
      digest << chunk
      length += chunk.bytesize
      socket.read(2)
    end
    nil while (line = socket.gets("\r\n")) && line != "\r\n"
  elsif headers["content-length"]
    left = Integer(headers["content-length"])
    buffer = +""
    while left.positive?
      socket.readpartial([CHUNK, left].min, buffer)
      digest << buffer
      length += buffer.bytesize
      left -= buffer.bytesize
    end
  end
  if method == "GET"
    body = Random.bytes(Integer(path[%r{\A/(\d+)\z}, 1] || 0))
    socket.write("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: #{body.bytesize}\r\n" \
                 "X-Sha256: #{Digest::SHA256.hexdigest(body)}\r\n\r\n", body)
  else
    body = "#{length} #{digest.hexdigest}\n"
    socket.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: #{body.bytesize}\r\n\r\n#{body}")
  end
  true
end

mode = ARGV.fetch(0)
case mode
when "server"
  server = OpenSSL::SSL::SSLServer.new(listen, server_context(ARGV[1], ARGV[2], ARGV[3], ARGV[4]))
  serve_commands(server.accept)
when "client"
  context = context_for(ARGV[3], ARGV[4])
  context.ca_file = ARGV[2]
  context.verify_mode = OpenSSL::SSL::VERIFY_PEER
  context.verify_hostname = true
  socket = OpenSSL::SSL::SSLSocket.new(TCPSocket.new("127.0.0.1", Integer(ARGV[1])), context)
  socket.hostname = "localhost"
  socket.sync_close = true
  socket.connect
  serve_commands(socket)
when "http"
  server = OpenSSL::SSL::SSLServer.new(listen, server_context(ARGV[1], ARGV[2]))
  Thread.new do
    loop do
      connection = server.accept
      Thread.new(connection) do |socket|
        nil while serve_request(socket)
      rescue EOFError, IOError, SystemCallError, OpenSSL::SSL::SSLError => e
        warn "tls_interop_peer http: #{e.class}: #{e.message}"
      ensure
        socket.close rescue nil
      end
    rescue OpenSSL::SSL::SSLError, SystemCallError => e
      warn "tls_interop_peer http: #{e.class}: #{e.message}"
    end
  end
  $stdin.read
else
  abort "tls_interop_peer: no mode #{mode.inspect}"
end
