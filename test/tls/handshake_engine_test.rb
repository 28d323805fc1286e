# frozen_string_literal: true

# Passes 10.1: the OpenSSL engine (netty's own BoringSSL, whatever fast_random's library or the CPU) against JSSE on 10.1's jruby-openssl 0.16.2; one pass, to keep bin/test short.

require_relative "../test_helper"
require "openssl"
require "socket"
require "json"
require "timeout"
require "tmpdir"
require "open3"
require "fileutils"

# FastRandom::TLS.engine = :openssl (OpenSslEngines) against stock's JSSE
# engine, for security and behaviour: every scenario runs on each engine in
# this one process, and its outcome on :openssl must be stock's: at the end
# that decides (the client judging the server's certificate, or the server
# the client's), the same success or a failure of the same Ruby class
# (OpenSSL::SSL::SSLError) with the same verify_result; at the other end
# success or failure as on stock. The end under test switches engine and the
# other end stays on JSSE (its engine is made first, by an accept_nonblock
# before the client has sent anything), so a difference belongs to the one
# engine; the successful handshakes also run with both ends on each engine
# and mixed. Every :openssl run asserts engine_of == :openssl, so nothing
# here passes on JSSE alone. Certificates come from OpenSSL::X509 at load
# (P-256 authorities, P-256 and RSA-2048 leaves); C OpenSSL's s_server and
# s_client are the foreign peers; loopback only.
class TlsHandshakeEngineTest < Minitest::Test
  SSL = OpenSSL::SSL
  X509 = OpenSSL::X509
  ENGINES = %i[jsse openssl].freeze
  DEADLINE = 10 # seconds for a handshake and its data, or a peer tool
  UNSPECIFIED = 1 # X509_V_ERR_UNSPECIFIED (jruby-openssl has no constant for it): its SSLContext's result until one is verified
  NOW = Time.now
  NEED_CLIENT_CERT = SSL::VERIFY_PEER | SSL::VERIFY_FAIL_IF_NO_PEER_CERT

  DIR = Dir.mktmpdir("fast_random-tls-engine")
  Minitest.after_run { FileUtils.rm_rf(DIR) }

  def self.ec_key = OpenSSL::PKey::EC.generate("prime256v1")

  # A certificate for +key+, signed by +issuer+ (itself: self-signed), a
  # localhost server's by default.
  def self.certificate(subject, key, issuer: nil, issuer_key: nil, ca: false, serial: nil, not_before: NOW - 3600,
                       not_after: NOW + 86_400, san: "DNS:localhost,IP:127.0.0.1", eku: "serverAuth",
                       key_usage: "digitalSignature,keyEncipherment", digest: "SHA256")
    cert = X509::Certificate.new
    cert.version = 2
    cert.serial = serial || rand(1 << 62)
    cert.subject = X509::Name.parse(subject)
    cert.issuer = issuer ? issuer.subject : cert.subject
    cert.public_key = key
    cert.not_before = not_before
    cert.not_after = not_after
    factory = X509::ExtensionFactory.new
    factory.subject_certificate = cert
    factory.issuer_certificate = issuer || cert
    cert.add_extension(factory.create_extension("basicConstraints", ca ? "CA:TRUE" : "CA:FALSE", true))
    cert.add_extension(factory.create_extension("keyUsage", ca ? "keyCertSign,cRLSign" : key_usage, true))
    cert.add_extension(factory.create_extension("extendedKeyUsage", eku)) if eku && !ca
    cert.add_extension(factory.create_extension("subjectAltName", san)) if san && !ca
    cert.add_extension(factory.create_extension("subjectKeyIdentifier", "hash"))
    cert.add_extension(factory.create_extension("authorityKeyIdentifier", "keyid:always")) if issuer
    cert.sign(issuer_key || key, digest)
  end

  ROOT_KEY = ec_key
  ROOT = certificate("/CN=fast_random test root", ROOT_KEY, ca: true)
  INTERMEDIATE_KEY = ec_key
  INTERMEDIATE = certificate("/CN=fast_random test intermediate", INTERMEDIATE_KEY, issuer: ROOT, issuer_key: ROOT_KEY, ca: true)
  OTHER_ROOT_KEY = ec_key
  OTHER_ROOT = certificate("/CN=another root", OTHER_ROOT_KEY, ca: true)
  EC_KEY = ec_key
  RSA_KEY = OpenSSL::PKey::RSA.new(2048)
  CLIENT_EC_KEY = ec_key
  CLIENT_RSA_KEY = OpenSSL::PKey::RSA.new(2048)

  def self.leaf(key = EC_KEY, **options) = certificate("/CN=localhost", key, issuer: ROOT, issuer_key: ROOT_KEY, **options)
  def self.client_leaf(key) = certificate("/CN=client", key, issuer: ROOT, issuer_key: ROOT_KEY, eku: "clientAuth", san: nil)

  EC_LEAF = leaf
  RSA_LEAF = leaf(RSA_KEY)
  EC_CLIENT = client_leaf(CLIENT_EC_KEY)
  RSA_CLIENT = client_leaf(CLIENT_RSA_KEY)
  REVOKED_SERIAL = 4242
  REVOKED_LEAF = leaf(serial: REVOKED_SERIAL)
  CRL = X509::CRL.new.tap do |crl|
    crl.version = 1
    crl.issuer = ROOT.subject
    crl.last_update = NOW - 600
    crl.next_update = NOW + 86_400
    revoked = X509::Revoked.new
    revoked.serial = REVOKED_SERIAL
    revoked.time = NOW - 300
    crl.add_revoked(revoked)
    crl.sign(ROOT_KEY, "SHA256")
  end

  { "root.pem" => ROOT.to_pem, "rsa.pem" => RSA_LEAF.to_pem, "rsa.key" => RSA_KEY.to_pem,
    "ec.pem" => EC_LEAF.to_pem, "ec.key" => EC_KEY.to_pem }.each { |name, pem| File.write(File.join(DIR, name), pem) }

  def path(name) = File.join(DIR, name)

  # What one connection did at each end: +client+ and +server+ :ok or the
  # exception raised (connect/accept, the check, the data), each end's
  # engine, verify_result and peer_cert, and what the client saw negotiated.
  Run = Struct.new(:client, :server, :client_engine, :server_engine, :client_verify, :server_verify,
                   :client_peer, :server_peer, :client_chain, :version, :cipher, :alpn, :client_got, :server_got,
                   keyword_init: true) do
    def ok? = client == :ok && server == :ok

    def describe(side)
      outcome = self[side]
      outcome == :ok ? "ok" : "#{outcome.class}: #{outcome.message}"
    end

    def to_s
      "client #{describe(:client)} (#{client_engine.inspect}, verify_result #{client_verify.inspect}); " \
        "server #{describe(:server)} (#{server_engine.inspect}, verify_result #{server_verify.inspect})"
    end
  end

  def setup
    assert FastRandom::TLS.installed?, "FastRandom::TLS is not installed: #{FastRandom::TLS.problem}"
    assert_nil FastRandom::TLS.engine_problem, "the OpenSSL engine cannot run here"
    @engine_before = FastRandom::TLS.engine
  end

  def teardown
    FastRandom::TLS.engine = @engine_before if @engine_before
  end

  def store(*certs, crl: nil, flags: nil)
    store = X509::Store.new
    certs.each { |cert| store.add_cert(cert) }
    store.add_crl(crl) if crl
    store.flags = flags if flags
    store
  end

  def server_context(cert = EC_LEAF, key = EC_KEY, **settings)
    context = SSL::SSLContext.new
    context.cert = cert
    context.key = key
    settings.each { |name, value| context.public_send("#{name}=", value) }
    context
  end

  # A client verifying the server against ROOT unless told otherwise.
  def client_context(**settings)
    context = SSL::SSLContext.new
    context.cert_store = store(ROOT)
    context.verify_mode = SSL::VERIFY_PEER
    settings.each { |name, value| context.public_send("#{name}=", value) }
    context
  end

  def attempt
    yield
    :ok
  rescue StandardError => e
    e
  end

  # One connection over loopback, both ends in this process: the server's
  # SSLSocket gets its engine (+server+'s) from an accept_nonblock made
  # before the client has sent anything, then the client's its own
  # (+client+'s) at connect. The client sends +data+ (after +check+, if
  # given: called with the connected socket) and the server answers it
  # reversed; each end closes when done.
  def connection(server_ctx, client_ctx, server: :jsse, client: :jsse, hostname: "localhost", data: "ping\n", check: nil)
    FastRandom::TLS.engine = server
    listener = TCPServer.new("127.0.0.1", 0)
    client_tcp = TCPSocket.new("127.0.0.1", listener.addr[1])
    server_ssl = SSL::SSLSocket.new(listener.accept, server_ctx)
    server_ssl.sync_close = true
    begun = attempt do # the engine made, the ClientHello not yet there
      first = server_ssl.accept_nonblock(exception: false)
      raise "accept_nonblock before the client's hello gave #{first.inspect}" unless first == :wait_readable
    end
    FastRandom::TLS.engine = client
    served = Thread.new do
      Thread.current.report_on_exception = false
      got = nil
      outcome = begun
      if begun == :ok
        outcome = attempt do
          Timeout.timeout(DEADLINE) do
            server_ssl.accept
            got = server_ssl.read(data.bytesize)
            server_ssl.write(data.reverse) if got == data # nothing written after the client's close_notify
          end
        end
      end
      { server: outcome, server_got: got, server_engine: FastRandom::TLS.engine_of(server_ssl),
        server_verify: server_ssl.verify_result, server_peer: server_ssl.peer_cert&.to_der }
    ensure
      server_ssl.close unless server_ssl.io.closed?
    end
    client_ssl = SSL::SSLSocket.new(client_tcp, client_ctx)
    client_ssl.sync_close = true
    client_ssl.hostname = hostname if hostname
    client_got = nil
    outcome = attempt do
      Timeout.timeout(DEADLINE) do
        client_ssl.connect
        check&.call(client_ssl)
        client_ssl.write(data)
        client_got = client_ssl.read(data.bytesize)
      end
    end
    client_side = { client: outcome, client_got: client_got, client_engine: FastRandom::TLS.engine_of(client_ssl),
                    client_verify: client_ssl.verify_result, client_peer: client_ssl.peer_cert&.to_der,
                    client_chain: client_ssl.peer_cert_chain&.map { |cert| cert.subject.to_s },
                    version: client_ssl.ssl_version, cipher: client_ssl.cipher, alpn: client_ssl.alpn_protocol }
    client_ssl.close unless client_tcp.closed?
    server_side = Timeout.timeout(DEADLINE) { served.value }
    Run.new(**client_side, **server_side)
  ensure
    listener&.close
    client_tcp&.close unless client_tcp.nil? || client_tcp.closed?
  end

  # The scenario on each engine, at the end +varies+ (:client, :server, or
  # :both), the other end on JSSE: {jsse: Run, openssl: Run}. Contexts come
  # new from the blocks, for each run. Asserts which engine each end ran on.
  def on_each_engine(server_ctx, client_ctx, varies:, **options)
    ENGINES.to_h do |engine|
      server = varies == :client ? :jsse : engine
      client = varies == :server ? :jsse : engine
      run = connection(server_ctx.call, client_ctx.call, server: server, client: client, **options)
      assert_equal client, run.client_engine, "the client's engine (#{run})"
      assert_equal server, run.server_engine, "the server's engine (#{run})"
      [engine, run]
    end
  end

  # :openssl's outcome is stock's: at the end that decided (+decides+:
  # :client judges the server, :server the client), success or a failure of
  # the same class, and the same verify_result; at the other end success or
  # failure too (+peer+ false: not compared), whose class may be a timing's
  # (an alert read, or the connection reset or closed under it).
  def assert_same_outcome(runs, what, decides: :client, peer: true, verify: true)
    jsse, openssl = runs.values_at(:jsse, :openssl)
    both = "\n  jsse:    #{jsse}\n  openssl: #{openssl}"
    other = decides == :client ? :server : :client
    assert_equal jsse[decides] == :ok ? :ok : jsse[decides].class, openssl[decides] == :ok ? :ok : openssl[decides].class,
                 "#{what}: the #{decides}'s outcome differs#{both}"
    assert_equal jsse[:"#{decides}_verify"], openssl[:"#{decides}_verify"], "#{what}: the #{decides}'s verify_result differs#{both}" if verify
    assert_equal jsse[other] == :ok, openssl[other] == :ok, "#{what}: the #{other}'s outcome differs#{both}" if peer
  end

  def assert_rejected(runs, what, verify_result:, side: :client)
    assert_same_outcome(runs, what, decides: side)
    runs.each do |engine, run|
      assert_kind_of SSL::SSLError, run[side], "#{what} on #{engine}: #{run}"
      assert_equal verify_result, run[:"#{side}_verify"], "#{what} on #{engine}: verify_result (#{run})"
    end
  end

  def assert_accepted(runs, what)
    assert_same_outcome(runs, what)
    runs.each do |engine, run|
      assert run.ok?, "#{what} on #{engine}: #{run}"
      assert_equal "ping\n", run.server_got, "#{what} on #{engine}: the server's data"
      assert_equal "\ngnip", run.client_got, "#{what} on #{engine}: the client's data"
      assert_equal X509::V_OK, run.client_verify, "#{what} on #{engine}"
    end
  end

  # --- the server's certificate, as the client's trust manager judges it ---

  def test_expired_server_certificate
    cert = self.class.leaf(not_before: NOW - 7200, not_after: NOW - 3600)
    runs = on_each_engine(-> { server_context(cert) }, -> { client_context }, varies: :client)
    assert_rejected(runs, "expired", verify_result: X509::V_ERR_CERT_HAS_EXPIRED)
  end

  def test_server_certificate_not_yet_valid
    cert = self.class.leaf(not_before: NOW + 3600, not_after: NOW + 7200)
    runs = on_each_engine(-> { server_context(cert) }, -> { client_context }, varies: :client)
    assert_rejected(runs, "not yet valid", verify_result: X509::V_ERR_CERT_NOT_YET_VALID)
  end

  # Neither engine checks the name in the handshake: jruby-openssl (0.16.2)
  # keeps verify_hostname but never acts on it, and the OpenSSL engine is
  # built without an endpoint check of its own, so a wrong name is
  # post_connection_check's to find (Net::HTTP calls it), on both. A
  # handshake with verify_hostname = true therefore succeeds on both.
  def test_wrong_host
    cert = self.class.leaf(san: "DNS:example.com")
    check = ->(socket) { socket.post_connection_check("localhost") }
    runs = on_each_engine(-> { server_context(cert) }, -> { client_context }, varies: :client, check: check)
    assert_same_outcome(runs, "post_connection_check", peer: false) # the server's end: a race with the client's close
    runs.each do |engine, run|
      assert_kind_of SSL::SSLError, run.client, "post_connection_check on #{engine}: #{run}"
      assert_match(/hostname "localhost" does not match/, run.client.message, engine)
      assert_equal X509::V_OK, run.client_verify, engine
    end

    runs = on_each_engine(-> { server_context(cert) }, -> { client_context(verify_hostname: true) }, varies: :client,
                          check: check)
    assert_same_outcome(runs, "verify_hostname, then post_connection_check", peer: false)
    runs.each { |engine, run| assert_kind_of SSL::SSLError, run.client, "verify_hostname on #{engine}: #{run}" }

    runs = on_each_engine(-> { server_context(cert) }, -> { client_context(verify_hostname: true) }, varies: :client)
    assert_same_outcome(runs, "verify_hostname alone (stock does not check it)")
    runs.each { |engine, run| assert run.ok?, "verify_hostname alone on #{engine}: #{run}" }
  end

  def test_self_signed_server_certificate
    cert = self.class.certificate("/CN=localhost", EC_KEY)
    runs = on_each_engine(-> { server_context(cert) }, -> { client_context }, varies: :client)
    assert_rejected(runs, "self-signed", verify_result: X509::V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT)

    runs = on_each_engine(-> { server_context(cert) }, -> { client_context(cert_store: store(cert)) }, varies: :client)
    assert_accepted(runs, "self-signed, and in the client's store")

    runs = on_each_engine(-> { server_context(cert) }, -> { client_context(verify_mode: SSL::VERIFY_NONE) }, varies: :client)
    assert_same_outcome(runs, "self-signed, VERIFY_NONE")
    runs.each { |engine, run| assert run.ok?, "VERIFY_NONE on #{engine}: #{run}" }
  end

  def test_untrusted_root
    cert = self.class.certificate("/CN=localhost", EC_KEY, issuer: OTHER_ROOT, issuer_key: OTHER_ROOT_KEY)
    runs = on_each_engine(-> { server_context(cert) }, -> { client_context }, varies: :client)
    assert_rejected(runs, "untrusted root", verify_result: X509::V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY)
  end

  def test_leaf_without_server_auth_extended_key_usage
    cert = self.class.leaf(eku: "clientAuth")
    runs = on_each_engine(-> { server_context(cert) }, -> { client_context }, varies: :client)
    assert_rejected(runs, "extendedKeyUsage clientAuth only", verify_result: X509::V_ERR_INVALID_PURPOSE)
  end

  # keyUsage keyCertSign alone: stock's purpose check (ssl_server) rejects
  # it; BoringSSL rejects it too, before jruby-openssl's trust manager is
  # asked (it checks a leaf's keyUsage as it reads the Certificate message),
  # so the :openssl client's verify_result is its context's "unspecified",
  # never V_OK (docs/tls.md lists the difference).
  def test_leaf_whose_key_usage_is_only_key_cert_sign
    cert = self.class.leaf(key_usage: "keyCertSign")
    runs = on_each_engine(-> { server_context(cert) }, -> { client_context }, varies: :client)
    assert_same_outcome(runs, "keyUsage keyCertSign only", verify: false)
    assert_kind_of SSL::SSLError, runs[:jsse].client, runs[:jsse].to_s
    assert_equal X509::V_ERR_INVALID_PURPOSE, runs[:jsse].client_verify
    assert_kind_of SSL::SSLError, runs[:openssl].client, runs[:openssl].to_s
    assert_match(/KEY_USAGE_BIT_INCORRECT/, runs[:openssl].client.message)
    assert_equal UNSPECIFIED, runs[:openssl].client_verify, "rejected before verification: never V_OK"
  end

  # keyUsage keyEncipherment alone on a P-256 leaf (no digitalSignature,
  # which an ECDSA signature in the handshake needs): stock accepts it, as
  # its purpose check takes keyEncipherment for ssl_server. BoringSSL, as a
  # client, refuses such a server certificate (RFC 8446 4.4.2.2 and RFC
  # 5480 forbid signing with it): stricter than stock, never looser, and
  # said in docs/tls.md.
  def test_ec_leaf_whose_key_usage_lacks_digital_signature_as_client
    cert = self.class.leaf(key_usage: "keyEncipherment")
    runs = on_each_engine(-> { server_context(cert) }, -> { client_context }, varies: :client)
    assert runs[:jsse].ok?, "stock serves and accepts it: #{runs[:jsse]}"
    assert_kind_of SSL::SSLError, runs[:openssl].client, runs[:openssl].to_s
    assert_match(/KEY_USAGE_BIT_INCORRECT/, runs[:openssl].client.message)
  end

  # The same certificate on a server with the engine :openssl: BoringSSL
  # will not sign with it, so the context stays on JSSE, saying why, and
  # serves it as stock does.
  def test_ec_leaf_whose_key_usage_lacks_digital_signature_as_server_stays_on_jsse
    cert = self.class.leaf(key_usage: "keyEncipherment")
    context = server_context(cert)
    run = connection(context, client_context, server: :openssl, client: :jsse)
    assert run.ok?, run.to_s
    assert_equal :jsse, run.server_engine
    assert_match(/keyUsage lacks digitalSignature/, FastRandom::TLS.jsse_reason(context))
  end

  # The JDK's certificate algorithm constraints (jdk.certpath.disabledAlgorithms),
  # which JSSE applies to a peer's chain on top of jruby-openssl's own
  # verification (its wrapper of jruby-openssl's trust manager): an MD5
  # signature, an RSA key of 512 bits. netty applies the same wrapper (where
  # the JVM lets it: the engine does not run otherwise), so both refuse.
  def test_certificates_the_jdks_algorithm_constraints_refuse
    rsa_root_key = OpenSSL::PKey::RSA.new(2048)
    rsa_root = self.class.certificate("/CN=fast_random RSA test root", rsa_root_key, ca: true)
    md5_leaf = self.class.certificate("/CN=localhost", EC_KEY, issuer: rsa_root, issuer_key: rsa_root_key, digest: "MD5")
    runs = on_each_engine(-> { server_context(md5_leaf) }, -> { client_context(cert_store: store(rsa_root)) }, varies: :client)
    assert_same_outcome(runs, "an MD5-signed leaf", verify: false)
    runs.each do |engine, run|
      assert_kind_of SSL::SSLError, run.client, "MD5 on #{engine}: #{run}"
      assert_match(/algorithm constraints/, run.client.message, "MD5 on #{engine}: the JDK's constraints refused it")
    end

    weak_key = OpenSSL::PKey::RSA.new(512)
    weak_leaf = self.class.leaf(weak_key)
    runs = on_each_engine(-> { server_context(weak_leaf, weak_key, max_version: SSL::TLS1_2_VERSION) }, -> { client_context },
                          varies: :client)
    assert_same_outcome(runs, "an RSA-512 leaf", verify: false)
    runs.each { |engine, run| assert_kind_of SSL::SSLError, run.client, "RSA-512 on #{engine}: #{run}" }
  end

  def test_intermediate_missing_and_present
    key = self.class.ec_key
    cert = self.class.certificate("/CN=localhost", key, issuer: INTERMEDIATE, issuer_key: INTERMEDIATE_KEY)
    runs = on_each_engine(-> { server_context(cert, key) }, -> { client_context }, varies: :client)
    assert_rejected(runs, "the server sends its leaf alone", verify_result: X509::V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY)

    runs = on_each_engine(-> { server_context(cert, key, extra_chain_cert: [INTERMEDIATE]) }, -> { client_context },
                          varies: :client)
    assert_accepted(runs, "the server sends its intermediate too (extra_chain_cert)")
    assert_equal runs[:jsse].client_chain, runs[:openssl].client_chain, "peer_cert_chain"
    assert_equal [cert.subject.to_s, INTERMEDIATE.subject.to_s], runs[:openssl].client_chain
  end

  def test_revoked_leaf_with_crl_check
    crl_store = -> { store(ROOT, crl: CRL, flags: X509::V_FLAG_CRL_CHECK) }
    runs = on_each_engine(-> { server_context(REVOKED_LEAF) }, -> { client_context(cert_store: crl_store.call) }, varies: :client)
    assert_rejected(runs, "revoked", verify_result: X509::V_ERR_CERT_REVOKED)

    runs = on_each_engine(-> { server_context }, -> { client_context(cert_store: crl_store.call) }, varies: :client)
    assert_accepted(runs, "not revoked, the same CRL checked")
  end

  # --- the handshake's own rules ---------------------------------------------

  # Neither end verifies a certificate here. Stock's verify_result then is
  # 0 or its context's "unspecified" (1), by whether JSSE ran a task before
  # failing; the OpenSSL engine's is the context's, never V_OK unearned.
  def test_tls13_client_to_tls12_only_server_fails
    server_ctx = -> { server_context(max_version: SSL::TLS1_2_VERSION) }
    client_ctx = -> { client_context(min_version: SSL::TLS1_3_VERSION) }
    %i[client server].each do |varies|
      runs = on_each_engine(server_ctx, client_ctx, varies: varies)
      assert_same_outcome(runs, "TLS 1.3 client, TLS 1.2 server, the #{varies} on each engine", decides: varies, verify: false)
      runs.each do |engine, run|
        assert_kind_of SSL::SSLError, run.client, "#{varies} on #{engine}: #{run}"
        assert_kind_of SSL::SSLError, run.server, "#{varies} on #{engine}: #{run}"
      end
      assert_equal UNSPECIFIED, runs[:openssl][:"#{varies}_verify"], "the #{varies} on :openssl: never V_OK unearned"
    end
  end

  # The callback is jruby-openssl's, called by its trust manager on either
  # engine: the same calls, and false fails the handshake on both; true
  # overrides a failure on both.
  def test_verify_callback
    calls = Hash.new { |hash, engine| hash[engine] = [] }
    engine = nil
    refuse = lambda do |preverified, store_context|
      calls[engine] << [preverified, store_context.error, store_context.current_cert.subject.to_s]
      false
    end
    runs = ENGINES.to_h do |each|
      engine = each
      [each, connection(server_context, client_context(verify_callback: refuse), client: each)]
    end
    assert_equal :openssl, runs[:openssl].client_engine
    assert_rejected(runs, "verify_callback returning false", verify_result: X509::V_ERR_CERT_REJECTED)
    refute_empty calls[:jsse]
    assert_equal calls[:jsse], calls[:openssl], "the verify_callback's calls"

    self_signed = self.class.certificate("/CN=localhost", EC_KEY)
    allow = ->(_preverified, _store_context) { true }
    runs = on_each_engine(-> { server_context(self_signed) }, -> { client_context(verify_callback: allow) }, varies: :client)
    assert_accepted(runs, "verify_callback returning true for a self-signed certificate")
  end

  def test_client_certificate_required
    server_ctx = -> { server_context(verify_mode: NEED_CLIENT_CERT, cert_store: store(ROOT)) }
    runs = on_each_engine(server_ctx, -> { client_context }, varies: :server)
    assert_same_outcome(runs, "no client certificate", decides: :server)
    runs.each do |engine, run|
      assert_kind_of SSL::SSLError, run.server, "no client certificate on #{engine}: #{run}"
      refute_equal :ok, run.client, "no client certificate on #{engine}: #{run}"
      assert_nil run.server_peer, engine
    end

    runs = on_each_engine(server_ctx, -> { client_context(cert: EC_CLIENT, key: CLIENT_EC_KEY) }, varies: :server)
    assert_accepted(runs, "a client certificate")
    runs.each do |engine, run|
      assert_equal EC_CLIENT.to_der, run.server_peer, "the server's peer_cert on #{engine}"
      assert_equal X509::V_OK, run.server_verify, engine
    end

    untrusted = -> { server_context(verify_mode: NEED_CLIENT_CERT, cert_store: store(OTHER_ROOT)) }
    runs = on_each_engine(untrusted, -> { client_context(cert: EC_CLIENT, key: CLIENT_EC_KEY) }, varies: :server)
    assert_same_outcome(runs, "an untrusted client certificate", decides: :server)
    runs.each { |engine, run| assert_kind_of SSL::SSLError, run.server, "untrusted client certificate on #{engine}: #{run}" }
  end

  # A TLS 1.3 client that closes as soon as its handshake is done (a health
  # check, `openssl s_client < /dev/null`), here a JSSE client in this
  # process, whose Finished and close_notify reach the server in one read.
  # Stock's server then reads the end (read gives "") or, when its
  # NewSessionTicket meets the closed connection, fails its accept: it never
  # reads a byte the client did not send. Neither may the server on :openssl.
  def test_tls13_client_closing_right_after_its_handshake
    outcomes = ENGINES.to_h do |engine|
      [engine, Array.new(5) do
        FastRandom::TLS.engine = engine
        listener = TCPServer.new("127.0.0.1", 0)
        client_tcp = TCPSocket.new("127.0.0.1", listener.addr[1])
        server_ssl = SSL::SSLSocket.new(listener.accept, server_context)
        server_ssl.sync_close = true
        server_ssl.accept_nonblock(exception: false)
        FastRandom::TLS.engine = :jsse
        served = Thread.new do
          Thread.current.report_on_exception = false
          read = nil
          outcome = attempt do
            Timeout.timeout(DEADLINE) do
              server_ssl.accept
              read = server_ssl.read
            end
          end
          { engine: FastRandom::TLS.engine_of(server_ssl), read: outcome == :ok ? read : outcome }
        ensure
          server_ssl.close unless server_ssl.io.closed?
        end
        client_ssl = SSL::SSLSocket.new(client_tcp, client_context(min_version: SSL::TLS1_3_VERSION))
        client_ssl.sync_close = true
        client_ssl.hostname = "localhost"
        Timeout.timeout(DEADLINE) { client_ssl.connect }
        client_ssl.close
        Timeout.timeout(DEADLINE) { served.value }
      ensure
        listener&.close
      end]
    end
    outcomes.each do |engine, served|
      served.each do |outcome|
        assert_equal engine, outcome[:engine]
        read = outcome[:read]
        described = read.is_a?(String) ? "#{read.bytesize} bytes (#{read.count("\0")} of them NUL)" : read.inspect
        assert(read.is_a?(SSL::SSLError) || read == "",
               "the server on #{engine} read #{described} from a client that sent none (every outcome: " \
               "#{served.map { |each| each[:read].is_a?(String) ? each[:read].bytesize : each[:read].class }})")
      end
    end
  end

  # --- successful handshakes -----------------------------------------------

  # RSA-2048 and P-256 at both ends (mutual authentication), TLS 1.2 and
  # 1.3, both ends on each engine and mixed: the same version and peer
  # certificates, data both ways, and the connections counted by engine.
  def test_successful_handshakes_rsa_and_p256
    { "RSA-2048" => [RSA_LEAF, RSA_KEY, RSA_CLIENT, CLIENT_RSA_KEY],
      "P-256" => [EC_LEAF, EC_KEY, EC_CLIENT, CLIENT_EC_KEY] }.each do |kind, (cert, key, client_cert, client_key)|
      { "TLSv1.2" => SSL::TLS1_2_VERSION, "TLSv1.3" => SSL::TLS1_3_VERSION }.each do |version, number|
        data = "#{Random.bytes(20_000).unpack1('H*')}\n"
        %i[jsse openssl].product(%i[jsse openssl]).each do |server, client|
          what = "#{kind} #{version}, server #{server}, client #{client}"
          before = FastRandom::TLS.stats
          signed = FastRandom::RSA.stats[:openssl][:private]
          run = connection(server_context(cert, key, verify_mode: NEED_CLIENT_CERT, cert_store: store(ROOT), max_version: number),
                           client_context(cert: client_cert, key: client_key, min_version: number),
                           server: server, client: client, data: data)
          after = FastRandom::TLS.stats
          if kind == "RSA-2048" && server == :openssl && FastRandom::RSA.engine == :openssl
            # The server's handshake signature is fast_random's RSA engine's (RsaSigner), not BoringSSL's own.
            assert_operator FastRandom::RSA.stats[:openssl][:private] - signed, :>=, 1, "#{what}: the server's RSA signature"
          end
          assert run.ok?, "#{what}: #{run}"
          assert_equal [client, server], [run.client_engine, run.server_engine], what
          assert_equal [client, server].count(:openssl), after[:openssl_connections] - before[:openssl_connections], what
          assert_equal [client, server].count(:jsse), after[:jsse_connections] - before[:jsse_connections], what
          assert_equal version, run.version, what
          assert_equal cert.to_der, run.client_peer, "#{what}: the client's peer_cert"
          assert_equal client_cert.to_der, run.server_peer, "#{what}: the server's peer_cert"
          assert_equal [X509::V_OK, X509::V_OK], [run.client_verify, run.server_verify], what
          assert_equal data, run.server_got, "#{what}: client to server"
          assert_equal data.reverse, run.client_got, "#{what}: server to client"
        end
      end
    end
  end

  # --- contexts that stay on JSSE, and what :openssl takes -----------------

  # ciphers= after a context's first connection (setup freezes the context,
  # not what jruby-openssl reads for each socket): the next connection gets
  # the new suites on either engine.
  def test_ciphers_changed_after_the_first_connection
    ENGINES.each do |engine|
      context = client_context
      first = connection(server_context, context, client: engine)
      assert first.ok?, "#{engine}: #{first}"
      assert_equal "TLSv1.3", first.version
      context.ciphers = "ECDHE-ECDSA-AES128-GCM-SHA256"
      second = connection(server_context, context, client: engine)
      assert second.ok?, "#{engine} after ciphers=: #{second}"
      assert_equal [engine, "TLSv1.2", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"], [second.client_engine, second.version, Array(second.cipher).first],
                   "#{engine}: the changed ciphers hold"
    end
  end

  # jruby-openssl's ciphers= takes TLS 1.3 suites by name; one of BoringSSL's
  # three alone cannot be had there, so such a context stays on JSSE, whole,
  # at either end, saying why, and negotiates what it asked for.
  def test_ciphers_with_some_tls13_suites_stay_on_jsse
    suite = "TLS_AES_256_GCM_SHA384"
    [[:client, -> { server_context }, -> { client_context(ciphers: suite) }],
     [:server, -> { server_context(ciphers: suite) }, -> { client_context }]].each do |side, server_ctx, client_ctx|
      runs = ENGINES.to_h do |engine|
        contexts = { server: server_ctx.call, client: client_ctx.call }
        run = connection(contexts[:server], contexts[:client], server: engine, client: engine)
        [engine, [run, contexts[side]]]
      end
      jsse, openssl = runs[:jsse].first, runs[:openssl].first
      assert jsse.ok? && openssl.ok?, "ciphers #{suite} at the #{side}:\n  jsse:    #{jsse}\n  openssl: #{openssl}"
      assert_equal :jsse, openssl[:"#{side}_engine"], "the #{side} with ciphers #{suite} under :openssl"
      other = side == :client ? :server : :client
      assert_equal :openssl, openssl[:"#{other}_engine"], "the other end under :openssl"
      assert_match(/TLS 1\.3 suites \[#{suite}\]/, FastRandom::TLS.jsse_reason(runs[:openssl].last).to_s)
      assert_equal [suite, suite], [jsse.cipher, openssl.cipher]
      assert_equal %w[TLSv1.3 TLSv1.3], [jsse.version, openssl.version]
    end
  end

  # TLS 1.2 suites alone, TLS 1.2 at most: on :openssl at both ends, the suite asked for.
  def test_tls12_ciphers_run_on_openssl
    ciphers = "ECDHE-ECDSA-AES256-GCM-SHA384"
    runs = ENGINES.to_h do |engine|
      client_ctx = client_context(ciphers: ciphers, max_version: SSL::TLS1_2_VERSION)
      run = connection(server_context(ciphers: ciphers), client_ctx, server: engine, client: engine)
      assert_nil FastRandom::TLS.jsse_reason(client_ctx), engine
      [engine, run]
    end
    assert_accepted(runs, "ciphers #{ciphers}, TLS 1.2")
    assert_equal %i[openssl openssl], [runs[:openssl].client_engine, runs[:openssl].server_engine]
    assert_equal runs[:jsse].cipher, runs[:openssl].cipher
    assert_equal "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", runs[:openssl].cipher
    assert_equal %w[TLSv1.2 TLSv1.2], [runs[:jsse].version, runs[:openssl].version]
  end

  # A server's alpn_select_cb is a Ruby block BoringSSL cannot call: that
  # server stays on JSSE, saying why; its client runs on :openssl, offers
  # its protocols and gets the block's choice, as on stock.
  def test_alpn_select_cb_server_stays_on_jsse
    offered = {}
    runs = ENGINES.to_h do |engine|
      server_ctx = server_context(alpn_select_cb: lambda { |protocols|
        offered[engine] = protocols
        "http/1.1"
      })
      run = connection(server_ctx, client_context(alpn_protocols: %w[h2 http/1.1]), server: engine, client: engine)
      assert_match(/alpn_select_cb/, FastRandom::TLS.jsse_reason(server_ctx).to_s) if engine == :openssl
      [engine, run]
    end
    assert_accepted(runs, "ALPN with alpn_select_cb")
    assert_equal %i[openssl jsse], [runs[:openssl].client_engine, runs[:openssl].server_engine]
    assert_equal %w[http/1.1 http/1.1], [runs[:jsse].alpn, runs[:openssl].alpn]
    assert_equal %w[h2 http/1.1], offered[:openssl]
    assert_equal offered[:jsse], offered[:openssl]
  end

  # --- C OpenSSL as the peer -------------------------------------------------

  def free_port
    server = TCPServer.new("127.0.0.1", 0)
    server.addr[1]
  ensure
    server&.close
  end

  def connect_when_listening(port)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + DEADLINE
    begin
      TCPSocket.new("127.0.0.1", port)
    rescue Errno::ECONNREFUSED
      raise if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline

      sleep 0.01
      retry
    end
  end

  # `openssl s_server -rev` (each line sent back reversed) for one
  # connection; the JRuby client on +engine+, offering ALPN: what it saw.
  def against_s_server(engine, version, alpn: nil)
    port = free_port
    command = ["openssl", "s_server", "-accept", port.to_s, "-cert", path("rsa.pem"), "-key", path("rsa.key"),
               "-tls#{version.tr('.', '_')}", "-rev", "-naccept", "1", *(alpn ? ["-alpn", alpn] : [])]
    Open3.popen2e(*command) do |stdin, output, thread|
      stdin.close
      FastRandom::TLS.engine = engine
      socket = SSL::SSLSocket.new(connect_when_listening(port), client_context(alpn_protocols: %w[x-unknown http/1.1]))
      socket.sync_close = true
      socket.hostname = "localhost"
      line = "ping #{Random.bytes(16).unpack1('H*')}"
      reply = Timeout.timeout(DEADLINE) do
        socket.connect
        socket.puts(line)
        socket.gets
      end
      seen = { engine: FastRandom::TLS.engine_of(socket), version: socket.ssl_version, verify: socket.verify_result,
               peer: socket.peer_cert.to_der, alpn: socket.alpn_protocol, reply: reply, expected: "#{line.reverse}\n" }
      socket.close
      Timeout.timeout(DEADLINE) { thread.value }
      seen.merge(output: output.read)
    ensure
      Process.kill("KILL", thread.pid) if thread.alive?
    end
  end

  def test_openssl_client_against_c_s_server
    %w[1.2 1.3].each do |version|
      seen = ENGINES.to_h { |engine| [engine, against_s_server(engine, version, alpn: "h2,http/1.1")] }
      seen.each do |engine, s|
        what = "TLS #{version}, the client on #{engine}: #{s[:output]}"
        assert_equal engine, s[:engine], what
        assert_equal "TLSv#{version}", s[:version], what
        assert_equal X509::V_OK, s[:verify], what
        assert_equal RSA_LEAF.to_der, s[:peer], what
        assert_equal s[:expected], s[:reply], what
        assert_equal "http/1.1", s[:alpn], what
      end
    end
  end

  # `openssl s_client` verifying the JRuby server on +engine+ (its chain to
  # ROOT, the name localhost): [what s_client printed, its status, the server's view].
  def s_client_against(engine, version)
    FastRandom::TLS.engine = engine
    listener = TCPServer.new("127.0.0.1", 0)
    line = "ping #{Random.bytes(16).unpack1('H*')}\n"
    served = Thread.new do
      Thread.current.report_on_exception = false
      socket = SSL::SSLSocket.new(listener.accept, server_context(RSA_LEAF, RSA_KEY))
      socket.sync_close = true
      Timeout.timeout(DEADLINE) do
        socket.accept
        got = socket.gets
        socket.write(got.reverse)
        { engine: FastRandom::TLS.engine_of(socket), version: socket.ssl_version, got: got }
      end
    ensure
      socket&.close
    end
    output, errors, status = Open3.capture3("timeout", DEADLINE.to_s, "openssl", "s_client", "-connect",
                                            "127.0.0.1:#{listener.addr[1]}", "-servername", "localhost",
                                            "-tls#{version.tr('.', '_')}", "-CAfile", path("root.pem"),
                                            "-verify_return_error", "-verify_hostname", "localhost", "-quiet",
                                            stdin_data: line)
    [output, errors, status, Timeout.timeout(DEADLINE) { served.value }, line]
  ensure
    listener&.close
  end

  # Where the engine cannot load (here its library missing), FAST_RANDOM_TLS=openssl
  # leaves every connection on JSSE with one warning saying why, the
  # connections working as stock's; engine= raises EngineUnavailableError.
  def test_an_engine_that_cannot_load_leaves_jsse_with_one_warning
    out, err, status = TestHelper.jruby(<<~'RUBY', env: { "FAST_RANDOM_TLS" => "openssl" })
      require "fast_random"
      require "openssl"
      require "socket"
      Java::FastrandomTlsOpenssl::OpenSslTls.library.set_path("/nonexistent/libnetty_tcnative.so", true)
      engines = Array.new(2) do
        listener = TCPServer.new("127.0.0.1", 0)
        context = OpenSSL::SSL::SSLContext.new
        context.key = OpenSSL::PKey::EC.generate("prime256v1")
        cert = OpenSSL::X509::Certificate.new
        cert.version = 2
        cert.serial = 1
        cert.subject = cert.issuer = OpenSSL::X509::Name.parse("/CN=localhost")
        cert.public_key = context.key
        cert.not_before = Time.now - 60
        cert.not_after = Time.now + 60
        cert.sign(context.key, "SHA256")
        context.cert = cert
        served = Thread.new { OpenSSL::SSL::SSLSocket.new(listener.accept, context).tap(&:accept).tap { |s| s.write("ok") } }
        client = OpenSSL::SSL::SSLSocket.new(TCPSocket.new("127.0.0.1", listener.addr[1]))
        client.connect
        raise "no data" unless client.read(2) == "ok"
        served.value.close
        FastRandom::TLS.engine_of(client)
      end
      raised = begin
        FastRandom::TLS.engine = :openssl
        nil
      rescue FastRandom::EngineUnavailableError => e
        e.message
      end
      require "json"
      puts JSON.generate([FastRandom::TLS.engine, engines, FastRandom::TLS.engine_problem, raised])
    RUBY
    assert status.success?, "#{out}#{err}"
    engine, engines, problem, raised = JSON.parse(out.lines.last)
    assert_equal ["openssl", %w[jsse jsse]], [engine, engines], "both connections on JSSE, working"
    assert_match(%r{/nonexistent/libnetty_tcnative\.so is missing}, problem)
    assert_equal problem, raised
    warnings = err.lines.grep(/fast_random/)
    assert_equal 1, warnings.size, "one warning: #{err}"
    assert_match(/TLS handshakes stay on JSSE: .*is missing/, warnings.first)
  end

  # A TLS 1.2 client asking to renegotiate (`openssl s_client`'s R command,
  # between two lines the JRuby server echoes): JSSE's server accepts secure
  # renegotiation (its default, as OpenSSL's server, MRI's, does); BoringSSL
  # has no server renegotiation and refuses it with a no_renegotiation
  # alert, the connection then ending. Stricter, never looser: docs/tls.md.
  def test_client_renegotiation
    outcomes = ENGINES.to_h do |engine|
      FastRandom::TLS.engine = engine
      listener = TCPServer.new("127.0.0.1", 0)
      served = Thread.new do
        Thread.current.report_on_exception = false
        socket = SSL::SSLSocket.new(listener.accept, server_context(RSA_LEAF, RSA_KEY))
        socket.sync_close = true
        lines = []
        Timeout.timeout(DEADLINE) do
          socket.accept
          while (line = socket.gets)
            lines << line
            socket.write("echo:#{line}")
          end
        rescue SSL::SSLError, SystemCallError, IOError => e
          lines << e.class
        end
        [FastRandom::TLS.engine_of(socket), lines]
      ensure
        socket&.close
      end
      output = +""
      Open3.popen2e("timeout", DEADLINE.to_s, "openssl", "s_client", "-connect", "127.0.0.1:#{listener.addr[1]}", "-tls1_2",
                    "-CAfile", path("root.pem")) do |input, out, wait|
        reader = Thread.new { out.each_line { |line| output << line } }
        ["one\n", "R\n", "two\n"].each do |line|
          input.write(line)
          sleep 0.4 # s_client reads a command only at a line's start, once the one before is done
        rescue Errno::EPIPE
          break # s_client ended: the renegotiation refused
        end
        input.close
        wait.value
        reader.join
      end
      [engine, [Timeout.timeout(DEADLINE) { served.value }, output]]
    ensure
      listener&.close
    end
    (jsse_engine, jsse_lines), jsse_output = outcomes[:jsse]
    (openssl_engine, openssl_lines), openssl_output = outcomes[:openssl]
    assert_equal [:jsse, :openssl], [jsse_engine, openssl_engine]
    assert_equal ["one\n", "two\n"], jsse_lines, "JSSE's server renegotiated and went on:\n#{jsse_output}"
    assert_match(/RENEGOTIATING.*echo:two/m, jsse_output)
    assert_equal "one\n", openssl_lines.first
    refute_includes openssl_lines, "two\n", "BoringSSL's server renegotiated:\n#{openssl_output}"
    assert_match(/alert no renegotiation/, openssl_output)
  end

  def test_c_s_client_against_openssl_server
    %w[1.2 1.3].each do |version|
      ENGINES.each do |engine|
        output, errors, status, server, line = s_client_against(engine, version)
        what = "TLS #{version}, the server on #{engine}: #{errors}"
        assert status.success?, what
        assert_equal line.reverse, output, what
        assert_equal({ engine: engine, version: "TLSv#{version}", got: line }, server, what)
      end
    end
  end
end
