# frozen_string_literal: true

# A TLS server on the JDK's SSLEngine, driven by hand (not through
# jruby-openssl), so that a test can send exactly the records it wants (a
# HelloRequest, a record that does not authenticate): test/tls/data_path_test.rb.
require "java"
require "base64"
module JssePeer
  java_import java.nio.ByteBuffer
  java_import java.nio.channels.ServerSocketChannel
  java_import java.net.InetSocketAddress
  java_import javax.net.ssl.SSLEngineResult

  # An SSLContext serving the PKCS#8 P-256 key and certificate in PEM files.
  def self.context(key_pem, cert_pem)
    der = Base64.decode64(File.read(key_pem).lines.reject { |l| l.start_with?("-----") }.join)
    key = java.security.KeyFactory.getInstance("EC").generatePrivate(java.security.spec.PKCS8EncodedKeySpec.new(der.to_java_bytes))
    cert = java.security.cert.CertificateFactory.getInstance("X.509")
                 .generateCertificate(java.io.ByteArrayInputStream.new(File.binread(cert_pem).to_java_bytes))
    ks = java.security.KeyStore.getInstance("PKCS12"); ks.load(nil, nil)
    ks.setKeyEntry("k", key, "pw".to_java.toCharArray, [cert].to_java(java.security.cert.Certificate))
    kmf = javax.net.ssl.KeyManagerFactory.getInstance("SunX509"); kmf.init(ks, "pw".to_java.toCharArray)
    ctx = javax.net.ssl.SSLContext.getInstance("TLS"); ctx.init(kmf.getKeyManagers, nil, nil)
    ctx
  end

  class Conn
    attr_reader :engine, :ch
    def initialize(ch, engine)
      @ch, @engine = ch, engine
      @net_in = ByteBuffer.allocate(1 << 17); @app_in = ByteBuffer.allocate(1 << 17)
    end
    def send_raw(bytes) = (b = ByteBuffer.wrap(bytes.to_java_bytes); @ch.write(b) while b.hasRemaining)
    def wrap(data = "")
      out = ByteBuffer.allocate(1 << 17)
      src = ByteBuffer.wrap(data.to_java_bytes)
      loop do
        r = @engine.wrap(src, out)
        run_tasks if r.getHandshakeStatus == SSLEngineResult::HandshakeStatus::NEED_TASK
        break if !src.hasRemaining && (r.bytesProduced == 0 || @engine.getHandshakeStatus != SSLEngineResult::HandshakeStatus::NEED_WRAP)
      end
      out.flip
      String.from_java_bytes(java.util.Arrays.copyOfRange(out.array, 0, out.limit))
    end
    def run_tasks = (while (t = @engine.getDelegatedTask); t.run; end)
    def read_some = (@ch.read(@net_in) >= 0 or raise EOFError)
    def unwrap
      @net_in.flip; r = @engine.unwrap(@net_in, @app_in); @net_in.compact
      run_tasks if r.getHandshakeStatus == SSLEngineResult::HandshakeStatus::NEED_TASK
      r
    end
    def handshake
      loop do
        case @engine.getHandshakeStatus.to_s
        when "NEED_WRAP" then send_raw(wrap)
        when "NEED_UNWRAP" then r = unwrap; read_some if r.getStatus.to_s == "BUFFER_UNDERFLOW"
        when "NEED_TASK" then run_tasks
        else break
        end
      end
    end
  end

  # Yields a Conn once its initial handshake is done, on a thread of its
  # own; returns the port.
  def self.start(key_pem, cert_pem, protocols: ["TLSv1.2"], &block)
    ctx = context(key_pem, cert_pem)
    ssc = ServerSocketChannel.open; ssc.bind(InetSocketAddress.new("127.0.0.1", 0))
    Thread.new do
      ch = ssc.accept
      e = ctx.createSSLEngine; e.setUseClientMode(false); e.setEnabledProtocols(protocols.to_java(:string))
      e.beginHandshake
      c = Conn.new(ch, e); c.handshake
      block.call(c)
    rescue StandardError, java.lang.Exception => e
      warn "JssePeer: #{e.class}: #{e.message}"
    end
    ssc.socket.getLocalPort
  end
end
