# frozen_string_literal: true

# Passes all: the handshakes' signatures run on the native engines or on the JDK's, and the fallback passes change which.

require_relative "../test_helper"
require_relative "../support/tls_peers"
require "openssl"
require "tmpdir"

# The JVM-wide provider end to end: X.509 certificates signed here (RSA and
# ECDSA) verify in MRI; TLS 1.2 and 1.3 handshakes with RSA and EC
# certificates between OpenSSL::SSL on JRuby (JSSE underneath) and OpenSSL
# (s_client, s_server, MRI), in both directions, with client certificates;
# and a plain JSSE client with a client certificate. FastRandom's RSA and EC
# stats show that the handshakes' signatures ran on the native engines.
class JcaTlsTest < Minitest::Test
  PKey = OpenSSL::PKey
  X509 = OpenSSL::X509
  VERSIONS = %w[1.2 1.3].freeze

  def self.dir = @dir ||= Dir.mktmpdir("fast_random-tls")
  Minitest.after_run { FileUtils.rm_rf(@dir) if @dir }

  def self.native? = Java::FastrandomJni::LibCrypto.load

  # A certificate for key (the subject "/CN=name"), signed by issuer_key
  # (self-signed without one), written with its key as dir/name.pem and dir/name.key.
  def self.certificate(name, key, issuer: nil, issuer_key: key, usage: nil)
    cert = X509::Certificate.new
    cert.version = 2
    cert.serial = rand(1 << 64)
    cert.subject = X509::Name.parse("/CN=#{name}")
    cert.issuer = issuer ? issuer.subject : cert.subject
    cert.public_key = key.class.new(TestHelper.public_pem(key)) # older jruby-openssl: PKey.read takes no DER, 0.15.0 has no public_to_pem
    cert.not_before = Time.now - 60
    cert.not_after = Time.now + 3600
    extensions = X509::ExtensionFactory.new(issuer || cert, cert)
    if usage
      cert.add_extension(extensions.create_extension("basicConstraints", "CA:FALSE", true))
      cert.add_extension(extensions.create_extension("extendedKeyUsage", usage))
      cert.add_extension(extensions.create_extension("subjectAltName", "DNS:localhost")) if usage == "serverAuth"
    else
      cert.add_extension(extensions.create_extension("basicConstraints", "CA:TRUE", true))
      cert.add_extension(extensions.create_extension("keyUsage", "keyCertSign,cRLSign", true))
    end
    cert.sign(issuer_key, OpenSSL::Digest.new("SHA256"))
    File.write(File.join(dir, "#{name}.pem"), cert.to_pem)
    File.write(File.join(dir, "#{name}.key"), TestHelper.private_pem(key))
    cert
  end

  # The test PKI, signed on JRuby through the provider: an RSA root, RSA
  # and EC servers, an RSA client; and an EC root with a leaf it signs.
  def self.pki
    @pki ||= begin
      FastRandom.install_jca_provider
      rsa_root_key = PKey::RSA.new(2048)
      root = certificate("root", rsa_root_key)
      ec_root_key = PKey::EC.generate("prime256v1")
      ec_root = certificate("ec-root", ec_root_key)
      keys = { "rsa-server" => PKey::RSA.new(2048), "ec-server" => PKey::EC.generate("prime256v1"),
               "client" => PKey::RSA.new(2048), "ec-leaf" => PKey::EC.generate("secp384r1") }
      certificate("rsa-server", keys["rsa-server"], issuer: root, issuer_key: rsa_root_key, usage: "serverAuth")
      certificate("ec-server", keys["ec-server"], issuer: root, issuer_key: rsa_root_key, usage: "serverAuth")
      certificate("client", keys["client"], issuer: root, issuer_key: rsa_root_key, usage: "clientAuth")
      certificate("ec-leaf", keys["ec-leaf"], issuer: ec_root, issuer_key: ec_root_key, usage: "serverAuth")
      keys
    ensure
      FastRandom.uninstall_jca_provider
    end
  end

  def setup
    self.class.pki
    FastRandom.install_jca_provider
  end

  def teardown
    FastRandom.uninstall_jca_provider
  end

  def path(name) = File.join(self.class.dir, name)

  # Native RSA and EC operations while the block runs, and the block's value.
  def counting_native
    total = -> { FastRandom::RSA.stats[:openssl].values.sum + FastRandom::EC.stats[:openssl].values.sum }
    before = total.call
    value = yield
    [total.call - before, value]
  end

  def assert_ran_natively(operations, what)
    if self.class.native?
      assert_operator operations, :>, 0, "#{what}: no signature ran on the native engines"
    else
      assert_equal 0, operations, "#{what}: libcrypto is unavailable in this pass"
    end
  end

  def context(cert_name, version = nil)
    context = OpenSSL::SSL::SSLContext.new
    context.cert = X509::Certificate.new(File.read(path("#{cert_name}.pem")))
    context.key = self.class.pki.fetch(cert_name)
    context.min_version = context.max_version = OpenSSL::SSL.const_get("TLS#{version.tr('.', '_')}_VERSION") if version
    context
  end

  # An OpenSSL::SSL::SSLServer on JRuby with this certificate, echoing one
  # line per connection, until the block returns.
  def jruby_server(cert_name)
    tcp = TCPServer.new("127.0.0.1", 0)
    server = OpenSSL::SSL::SSLServer.new(tcp, context(cert_name))
    failures = Queue.new
    thread = Thread.new do
      loop do
        socket = server.accept
        socket.write("echo #{socket.gets}")
        socket.close
      rescue OpenSSL::SSL::SSLError, SystemCallError => e
        failures << e
      rescue IOError
        break # the listening socket closed under accept: the test is over
      end
    end
    value = yield tcp.addr[1]
    assert_empty Array.new(failures.size) { failures.pop }, "handshake failures on the JRuby server"
    value
  ensure
    thread&.kill
    tcp&.close
  end

  def test_certificates_signed_here_verify_in_mri
    operations, = counting_native { self.class.certificate("resigned", PKey::RSA.new(2048), usage: "clientAuth") }
    assert_ran_natively(operations, "Certificate#sign")
    out, status = TlsPeers.mri_verify(root: path("root.pem"),
                                      chain: [[path("rsa-server.pem"), path("root.pem")], [path("ec-server.pem"), path("root.pem")],
                                              [path("client.pem"), path("root.pem")], [path("root.pem"), path("root.pem")]])
    assert status.success?, out
    assert_equal ["/CN=rsa-server: ok", "/CN=ec-server: ok", "/CN=client: ok", "/CN=root: ok"], out.lines.map(&:chomp)
    out, status = TlsPeers.mri_verify(root: path("ec-root.pem"),
                                      chain: [[path("ec-leaf.pem"), path("ec-root.pem")], [path("ec-root.pem"), path("ec-root.pem")]])
    assert status.success?, out
    assert_equal ["/CN=ec-leaf: ok", "/CN=ec-root: ok"], out.lines.map(&:chomp)
    out, status = TlsPeers.run(["openssl", "verify", "-CAfile", path("root.pem"), path("rsa-server.pem"), path("ec-server.pem")])
    assert status.success?, out
  end

  def test_openssl_and_mri_clients_complete_handshakes_with_a_jruby_server
    %w[rsa-server ec-server].each do |cert|
      derivations = FastRandom::EC.stats[:openssl][:derive]
      operations, = counting_native do
        jruby_server(cert) do |port|
          VERSIONS.each do |version|
            out, status = TlsPeers.s_client(port, version: version, ca: path("root.pem"))
            assert status.success?, "s_client, #{cert}, TLS #{version}:\n#{out}"
            assert_match(/^echo ping$/, out, "s_client, #{cert}, TLS #{version}")
            out, status = TlsPeers.mri_client(port, version: version, ca: path("root.pem"))
            assert status.success?, "MRI, #{cert}, TLS #{version}:\n#{out}"
            assert_equal "TLSv#{version} ok echo ping", out.chomp, "MRI, #{cert}, TLS #{version}"
          end
        end
      end
      assert_ran_natively(operations, "#{cert}'s handshakes")
      # Both clients offer an X25519 key share first: JSSE's agreement is the provider's XDH.
      derived = FastRandom::EC.stats[:openssl][:derive] - derivations
      assert_operator derived, :>=, (self.class.native? ? 2 * VERSIONS.size : 0), "#{cert}: X25519 agreements on the engine"
      assert_equal 0, derived, "#{cert}: libcrypto is unavailable in this pass" unless self.class.native?
    end
  end

  def test_a_jruby_client_with_a_client_certificate_completes_handshakes_with_openssl_s_server
    %w[rsa-server ec-server].each do |cert|
      VERSIONS.each do |version|
        operations, (out, reply) = counting_native do
          TlsPeers.s_server(cert: path("#{cert}.pem"), key: path("#{cert}.key"), version: version, ca: path("root.pem")) do |port|
            client = context("client", version)
            client.ca_file = path("root.pem")
            client.verify_mode = OpenSSL::SSL::VERIFY_PEER
            socket = OpenSSL::SSL::SSLSocket.new(TCPSocket.new("127.0.0.1", port), client)
            socket.hostname = "localhost"
            socket.connect
            socket.write("GET / HTTP/1.0\r\n\r\n")
            [socket.ssl_version, socket.read]
          ensure
            socket&.close
          end
        end
        version_seen, page = reply
        assert_equal "TLSv#{version}", version_seen, "#{cert}\n#{out}"
        assert_match(%r{\AHTTP/1.0 200 ok}, page, "#{cert}, TLS #{version}\n#{out}")
        assert_match(/Client certificate/, page, "s_server saw the client's certificate")
        assert_ran_natively(operations, "#{cert}, TLS #{version}, JRuby client")
      end
    end
  end

  # A Java library's own TLS client (JSSE with a KeyManager holding a client
  # certificate) in this JVM: its signatures run on the provider too.
  def test_a_jsse_client_with_a_client_certificate
    factory = java.security.cert.CertificateFactory.getInstance("X.509")
    read_cert = ->(name) { factory.generateCertificate(java.io.ByteArrayInputStream.new(File.binread(path("#{name}.pem")).to_java_bytes)) }
    rsa = self.class.pki.fetch("client") # from its values: older jruby-openssl has no private_to_der
    crt = [rsa.n, rsa.e, rsa.d, rsa.p, rsa.q, rsa.dmp1, rsa.dmq1, rsa.iqmp].map { |bn| bn.to_i.to_java(java.math.BigInteger) }
    client_key = java.security.KeyFactory.getInstance("RSA").generatePrivate(java.security.spec.RSAPrivateCrtKeySpec.new(*crt))
    password = "changeit".to_java.toCharArray
    keys = java.security.KeyStore.getInstance("PKCS12")
    keys.load(nil, nil)
    keys.setKeyEntry("client", client_key, password, [read_cert.call("client")].to_java(java.security.cert.Certificate))
    trust = java.security.KeyStore.getInstance("PKCS12")
    trust.load(nil, nil)
    trust.setCertificateEntry("root", read_cert.call("root"))
    key_managers = javax.net.ssl.KeyManagerFactory.getInstance("PKIX")
    key_managers.init(keys, password)
    trust_managers = javax.net.ssl.TrustManagerFactory.getInstance("PKIX")
    trust_managers.init(trust)
    %w[rsa-server ec-server].product(VERSIONS).each do |cert, version|
      ssl = javax.net.ssl.SSLContext.getInstance("TLS")
      ssl.init(key_managers.getKeyManagers, trust_managers.getTrustManagers, nil)
      operations, (out, (protocol, status_line)) = counting_native do
        TlsPeers.s_server(cert: path("#{cert}.pem"), key: path("#{cert}.key"), version: version, ca: path("root.pem")) do |port|
          socket = ssl.getSocketFactory.createSocket("127.0.0.1", port)
          socket.setEnabledProtocols(["TLSv#{version}"].to_java(:string))
          parameters = socket.getSSLParameters
          parameters.setEndpointIdentificationAlgorithm("HTTPS")
          parameters.setServerNames([javax.net.ssl.SNIHostName.new("localhost")])
          socket.setSSLParameters(parameters)
          socket.startHandshake
          socket.getOutputStream.write("GET / HTTP/1.0\r\n\r\n".to_java_bytes)
          reader = java.io.BufferedReader.new(java.io.InputStreamReader.new(socket.getInputStream))
          [socket.getSession.getProtocol, reader.readLine]
        ensure
          socket&.close
        end
      end
      assert_equal ["TLSv#{version}", "HTTP/1.0 200 ok"], [protocol, status_line], "#{cert}\n#{out}"
      assert_ran_natively(operations, "#{cert}, TLS #{version}, JSSE client")
    end
  end
end
