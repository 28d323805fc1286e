# frozen_string_literal: true

# One TLS connection over loopback, both ends in this runtime, on whatever
# engine FastRandom::TLS.engine names: the packaged application
# (test/support/packaged/app.rb, beside it in the jar) and the torn-down
# runtimes of test/support/runtimes.rb make one each.
require "openssl"
require "socket"

module TlsLoopback
  module_function

  # A self-signed certificate for localhost on +key+.
  def certificate(key)
    cert = OpenSSL::X509::Certificate.new
    cert.version = 2
    cert.serial = 1
    cert.subject = cert.issuer = OpenSSL::X509::Name.parse("/CN=localhost")
    cert.public_key = key
    cert.not_before = Time.now - 60
    cert.not_after = Time.now + 3600
    cert.sign(key, "SHA256")
    cert
  end

  # +message+ sent by a client, reversed by a server on +key+:
  # [the reply, the client's engine, the server's engine].
  def round_trip(key, message)
    context = OpenSSL::SSL::SSLContext.new
    context.key = key
    context.cert = certificate(key)
    listener = TCPServer.new("127.0.0.1", 0)
    served = Thread.new do
      ssl = OpenSSL::SSL::SSLSocket.new(listener.accept, context)
      ssl.sync_close = true
      ssl.accept
      ssl.write(ssl.read(message.bytesize).reverse)
      engine = FastRandom::TLS.engine_of(ssl)
      ssl.close
      engine
    end
    client = OpenSSL::SSL::SSLSocket.new(TCPSocket.new("127.0.0.1", listener.addr[1]), OpenSSL::SSL::SSLContext.new)
    client.sync_close = true
    client.connect
    client.write(message)
    reply = client.read(message.bytesize)
    engine = FastRandom::TLS.engine_of(client)
    client.close
    [reply, engine, served.value]
  ensure
    listener&.close
  end
end
