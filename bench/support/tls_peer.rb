# frozen_string_literal: true

# The other end of bench/https.rb's write loops: a TLS 1.3 server in its own
# MRI process (Debian's /usr/bin/ruby, whatever Ruby runs the bench), one
# connection at a time, on the benchmark certificate. Its only TLS 1.3 suite
# comes from an OpenSSL configuration it writes for itself (MRI's openssl
# gem 3.0 has no SSLContext#ciphersuites=), so the client, whichever Ruby it
# is, gets that suite. Prints "PORT n" once listening, then serves until
# killed. A connection sends one line, then:
#   recv N   the client sends N bytes; the peer reads them (readpartial, 16 KiB
#            at a time) and answers "ok CIPHER PROTOCOL"
#   send N   the peer sends N bytes as 16 KiB writes
# and the peer waits for the client to close.
#   ruby bench/support/tls_peer.rb CERT KEY TLS_AES_128_GCM_SHA256
require "fileutils"
require "tmpdir"

cert_path, key_path, suite = ARGV
abort "usage: tls_peer.rb CERT KEY CIPHERSUITE" unless suite

config_dir = Dir.mktmpdir("fast_random-tls-peer")
at_exit { FileUtils.rm_rf(config_dir) }
config = File.join(config_dir, "openssl.cnf")
File.write(config, <<~CNF)
  openssl_conf = default_conf
  [default_conf]
  ssl_conf = ssl_sect
  [ssl_sect]
  system_default = system_default_sect
  [system_default_sect]
  MinProtocol = TLSv1.3
  Ciphersuites = #{suite}
CNF
ENV["OPENSSL_CONF"] = config # read when libssl initializes, at require "openssl"

require "openssl"
require "socket"

CHUNK = ("\x5a".b * 16_384).freeze

context = OpenSSL::SSL::SSLContext.new
context.cert = OpenSSL::X509::Certificate.new(File.read(cert_path))
context.key = OpenSSL::PKey.read(File.read(key_path))
tcp = TCPServer.new("127.0.0.1", 0)
server = OpenSSL::SSL::SSLServer.new(tcp, context)
server.start_immediately = true
$stdout.puts "PORT #{tcp.addr[1]}"
$stdout.flush
Signal.trap("TERM") { exit }

def receive(ssl, bytes)
  buffer = String.new(capacity: 16_384)
  left = bytes
  left -= ssl.readpartial([left, 16_384].min, buffer).bytesize while left.positive?
  cipher, protocol = ssl.cipher
  ssl.write("ok #{cipher} #{protocol}\n")
end

def send_bytes(ssl, bytes)
  full, rest = bytes.divmod(CHUNK.bytesize)
  full.times { ssl.write(CHUNK) }
  ssl.write(CHUNK.byteslice(0, rest)) if rest.positive?
end

loop do
  ssl = server.accept
  begin
    command, bytes = ssl.gets&.split
    case command
    when "recv" then receive(ssl, Integer(bytes))
    when "send" then send_bytes(ssl, Integer(bytes))
    else warn "tls_peer: unknown command #{command.inspect}"
    end
  rescue OpenSSL::SSL::SSLError, SystemCallError, IOError, EOFError => e
    warn "tls_peer: #{e.class}: #{e.message}"
  ensure
    begin
      ssl.read # until the client closes
      ssl.close
    rescue OpenSSL::SSL::SSLError, SystemCallError, IOError
      ssl.to_io.close unless ssl.to_io.closed? # a client gone without close_notify
    end
  end
rescue OpenSSL::SSL::SSLError, SystemCallError => e
  warn "tls_peer: accept: #{e.class}: #{e.message}"
end
