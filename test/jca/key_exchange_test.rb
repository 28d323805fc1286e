# frozen_string_literal: true

# Passes main, 9.4-fallback: EC and XDH keys and X25519/X448 agreements run on libcrypto, or on the JDK's SunEC without the library.

require_relative "../test_helper"
require_relative "../support/fail_over"
require_relative "../support/jca_provider"

# The JVM-wide provider's key exchange (JSSE's TLS 1.3 key shares: EC key
# generation, X25519 and X448) against the JDK's SunEC: RFC 7748's
# vectors, secrets agreed both ways with SunEC's keys, the keys SunEC's own
# classes and encodings, every call sequence and odd input answered as
# SunEC answers it (a peer of small order, the wrong curve, two phases,
# secrets asked twice, sizes and names, unknown curves), and a failing
# native call served by SunEC with one warning.
class JcaKeyExchangeTest < Minitest::Test
  include JcaProvider
  include FailOver::Assertions

  KeyPairGenerator = java.security.KeyPairGenerator
  KeyAgreement = javax.crypto.KeyAgreement
  KeyFactory = java.security.KeyFactory
  # RFC 7748, section 6: Alice's scalar, Bob's scalar, the shared secret.
  RFC7748 = {
    "X25519" => %w[77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a
                   5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb
                   4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742],
    "X448" => %w[9a8f4925d1519f5775cf46b04b5800d4ee9ee8bae8bc5565d498c28dd9c9baf574a9419744897391006382a6f127ab1d9ac2d8c0a598726b
                 1c306a7ac2a0e2e0990b294470cba339e6453772b075811d8fad0d1d6927c120bb5ee8972b0d3e21374c9c921b09d1b0366f10b65173992d
                 07fff4181ac6cc95ec1c16a94a0f74d12da232ce40a77552281d282bb60c0b56fd2464c335543936521c24403085d59a449a5037514a879d],
  }.freeze
  PKCS8 = { "X25519" => "302e020100300506032b656e04220420", "X448" => "3046020100300506032b656f043a0438" }.freeze
  SPKI = { "X25519" => "302a300506032b656e032100", "X448" => "3042300506032b656f033900" }.freeze

  def bytes(hex) = [hex].pack("H*").to_java_bytes
  def hex(java_bytes) = String.from_java_bytes(java_bytes).unpack1("H*")

  def private_key(curve, scalar_hex)
    KeyFactory.getInstance("XDH", "SunEC").generatePrivate(java.security.spec.PKCS8EncodedKeySpec.new(bytes(PKCS8[curve] + scalar_hex)))
  end

  def public_key(curve, u_hex)
    KeyFactory.getInstance("XDH", "SunEC").generatePublic(java.security.spec.X509EncodedKeySpec.new(bytes(SPKI[curve] + u_hex)))
  end

  def agree(provider, mine, theirs, algorithm = "XDH")
    agreement = provider ? KeyAgreement.getInstance(algorithm, provider) : KeyAgreement.getInstance(algorithm)
    agreement.init(mine)
    agreement.doPhase(theirs, true)
    [hex(agreement.generateSecret), agreement.getProvider.getName]
  end

  def derivations = FastRandom::EC.stats[:openssl][:derive]

  # RFC 7748's secrets, Bob's public key computed by SunEC.
  def test_rfc7748_vectors
    RFC7748.each do |curve, (alice, bob, shared)|
      before = derivations
      secret, provider = agree(nil, private_key(curve, alice), public_key(curve, base_multiple(curve, bob)), curve)
      assert_equal [shared, "FastRandom"], [secret, provider], curve
      assert_equal((self.class.native? ? 1 : 0), derivations - before, "#{curve}: on the engine")
    end
  end

  # A scalar's public u-coordinate, by SunEC: its agreement with the base point (u = 9, or 5 for X448).
  def base_multiple(curve, scalar_hex)
    base = curve == "X25519" ? "09#{"00" * 31}" : "05#{"00" * 55}"
    agree("SunEC", private_key(curve, scalar_hex), public_key(curve, base)).first
  end

  # Keys from the provider's generator are SunEC's classes and encodings,
  # and agree with SunEC's keys both ways, every name and curve.
  def test_generated_keys_are_sunec_s_and_agree_with_sunec
    [["XDH", nil, 32], ["XDH", "X448", 56], ["X25519", nil, 32], ["X448", nil, 56]].each do |algorithm, named, size|
      generator = KeyPairGenerator.getInstance(algorithm)
      generator.java_send(:initialize, [java.security.spec.AlgorithmParameterSpec], java.security.spec.NamedParameterSpec.new(named)) if named
      ours = generator.generateKeyPair
      theirs = KeyPairGenerator.getInstance(named || algorithm, "SunEC").tap do |g|
        g.java_send(:initialize, [java.security.spec.AlgorithmParameterSpec], java.security.spec.NamedParameterSpec.new(named)) if named
      end.generateKeyPair
      label = "#{algorithm} #{named}"
      assert_equal "FastRandom", generator.getProvider.getName, label
      assert_equal theirs.getPrivate.java_class, ours.getPrivate.java_class, label
      assert_equal theirs.getPublic.java_class, ours.getPublic.java_class, label
      assert_equal theirs.getPublic.getParams.getName, ours.getPublic.getParams.getName, label
      assert_equal theirs.getPrivate.getEncoded.length, ours.getPrivate.getEncoded.length, label
      mine, = agree(nil, ours.getPrivate, theirs.getPublic)
      yours, = agree("SunEC", theirs.getPrivate, ours.getPublic)
      assert_equal yours, mine, label
      assert_equal size, mine.size / 2, label
    end
  end

  # What each step of an agreement script gives, SunEC's and ours alike.
  def script(provider, curve)
    mine = private_key(curve, RFC7748[curve][0])
    peer = public_key(curve, base_multiple(curve, RFC7748[curve][1]))
    other = KeyPairGenerator.getInstance(curve == "X25519" ? "X448" : "X25519", "SunEC").generateKeyPair
    small = public_key(curve, curve == "X25519" ? "00" * 32 : "00" * 56)
    agreement = provider ? KeyAgreement.getInstance("XDH", provider) : KeyAgreement.getInstance("XDH")
    outcome = lambda do |&call|
      result = call.()
      result.respond_to?(:getEncoded) ? [result.getAlgorithm, hex(result.getEncoded)] : result.is_a?(Java::byte[]) ? hex(result) : result
    rescue Java::JavaLang::Exception => e
      [e.class.name.split("::").last, e.message]
    end
    size = curve == "X25519" ? 32 : 56
    [
      outcome.() { agreement.generateSecret }, # before init
      outcome.() { agreement.init(mine) },
      outcome.() { agreement.generateSecret }, # before doPhase
      outcome.() { agreement.doPhase(peer, false) },
      outcome.() { agreement.init(mine) },
      outcome.() { agreement.doPhase(peer, true) },
      outcome.() { agreement.doPhase(peer, true) }, # twice: the phase is executed
      outcome.() { agreement.generateSecret(Java::byte[size - 1].new, 0) }, # too short: kept
      outcome.() { agreement.generateSecret(Java::byte[size + 2].new, 3) }, # too short from the offset
      outcome.() { agreement.generateSecret(Java::byte[size + 2].new, 2) },
      outcome.() { agreement.init(peer) }, # a public key: refused, the agreement kept
      outcome.() { agreement.doPhase(peer, true) },
      outcome.() { agreement.generateSecret },
      outcome.() { agreement.generateSecret }, # again, without doPhase
      outcome.() { agreement.doPhase(peer, true) },
      outcome.() { agreement.generateSecret("TlsPremasterSecret") },
      outcome.() { agreement.doPhase(peer, true) },
      outcome.() { agreement.generateSecret("AES") },
      outcome.() { agreement.doPhase(peer, true) },
      outcome.() { agreement.generateSecret(Java::byte[size - 1].new, 0) }, # too short
      outcome.() { agreement.generateSecret(Java::byte[size + 2].new, 2) },
      outcome.() { agreement.doPhase(small, true) }, # small order
      outcome.() { agreement.init(mine) },
      outcome.() { agreement.doPhase(other.getPublic, true) }, # the other curve
      outcome.() { agreement.init(other.getPrivate) },
      outcome.() { agreement.doPhase(peer, true) },
    ]
  end

  def test_every_call_answers_as_sunec
    %w[X25519 X448].each do |curve|
      assert_equal script("SunEC", curve), script(nil, curve), curve
    end
    generator = ->(provider) { provider ? KeyPairGenerator.getInstance("X25519", provider) : KeyPairGenerator.getInstance("X25519") }
    # A failed initialize leaves the generator as it was (here: X448). (Asked for by name: without one, the
    # JCA itself moves a generator whose initialize failed over to the next provider's.)
    %w[FastRandom SunEC].map do |provider|
      named = KeyPairGenerator.getInstance("XDH", provider)
      named.java_send(:initialize, [Java::int], 448)
      (named.java_send(:initialize, [Java::int], 1024) rescue nil)
      named.generateKeyPair.getPublic.getParams.getName
    end.then { |ours, theirs| assert_equal theirs, ours, "XDH generator after a failed initialize" }
    [1024, 448, 255].each do |size|
      outcomes = [nil, "SunEC"].map do |provider|
        generator.(provider).tap { |g| g.java_send(:initialize, [Java::int], size) }.generateKeyPair.getPublic.getParams.getName
      rescue Java::JavaLang::Exception => e
        e.class.name.split("::").last
      end
      assert_equal outcomes[1], outcomes[0], "X25519 generator, initialize(#{size})"
    end
  end

  def generate_ec(provider, parameter)
    generator = provider ? KeyPairGenerator.getInstance("EC", provider) : KeyPairGenerator.getInstance("EC")
    if parameter.is_a?(Integer)
      generator.java_send(:initialize, [Java::int], parameter)
    elsif parameter
      generator.java_send(:initialize, [java.security.spec.AlgorithmParameterSpec], parameter)
    end
    [generator.getProvider.getName, generator.generateKeyPair]
  end

  # EC keys from the provider's generator: P-256 and P-521 on the engine,
  # SunEC's classes, parameters and encodings, agreeing with SunEC's keys
  # by ECDH both ways; P-384 and the rest SunEC's own keys; odd parameters
  # answered as SunEC answers them.
  def test_ec_key_generation
    FastRandom::EC.engine # chosen: generation does not wait for the choice
    spec = ->(name) { java.security.spec.ECGenParameterSpec.new(name) }
    { "secp256r1" => true, "secp521r1" => true, "secp384r1" => false }.each do |name, native|
      before = FastRandom::EC.stats
      provider, ours = generate_ec(nil, spec.(name))
      after = FastRandom::EC.stats
      _, theirs = generate_ec("SunEC", spec.(name))
      assert_equal "FastRandom", provider
      on_engine = native && self.class.native?
      assert_equal [on_engine ? 1 : 0, on_engine ? 0 : 1],
                   [after[:openssl][:generate] - before[:openssl][:generate], after[:java][:generate] - before[:java][:generate]], name
      assert_equal theirs.getPrivate.java_class, ours.getPrivate.java_class, name
      assert_equal theirs.getPublic.getParams.toString, ours.getPublic.getParams.toString, name
      assert_equal theirs.getPublic.getEncoded.length, ours.getPublic.getEncoded.length, name
      assert_equal theirs.getPrivate.getEncoded.length, ours.getPrivate.getEncoded.length, name
      mine, = agree(nil, ours.getPrivate, theirs.getPublic, "ECDH")
      yours, = agree("SunEC", theirs.getPrivate, ours.getPublic, "ECDH")
      assert_equal yours, mine, name
    end
    # A random source of the caller's own is honoured (the next provider's generator draws from it): a seed gives its key again.
    seeded = -> { java.security.SecureRandom.getInstance("SHA1PRNG").tap { |random| random.setSeed(42) } }
    keys = Array.new(2) do
      generator = KeyPairGenerator.getInstance("EC")
      generator.java_send(:initialize, [java.security.spec.AlgorithmParameterSpec, java.security.SecureRandom], spec.("secp256r1"), seeded.())
      generator.generateKeyPair.getPrivate.getS
    end
    assert_equal keys[0], keys[1], "a seeded SecureRandom's key"
    [spec.("no-such-curve"), spec.("prime256v1"), 1, 256, nil].each do |parameter|
      outcomes = [nil, "SunEC"].map do |provider|
        _, pair = generate_ec(provider, parameter)
        pair.getPublic.getParams.getOrder.bit_length
      rescue Java::JavaLang::Exception => e
        e.class.name.split("::").last
      end
      assert_equal outcomes[1], outcomes[0], parameter.inspect
    end
  end

  # Fault injection at the native calls: a generation or an agreement that
  # fails there is SunEC's (the same secret), with one warning naming it
  # and a counted fallback; the next call is native again.
  def test_a_failing_native_call_falls_back_to_sunec
    skip "libcrypto unavailable on purpose in this pass" unless self.class.native?
    out, err, status = TestHelper.jruby(<<~RUBY)
      require "fast_random"
      FastRandom.install_jca_provider
      FastRandom::EC.engine # the self-test first
      hooks = Java::FastrandomJni::NativeTestHooks
      g = ->(p) { p ? java.security.KeyPairGenerator.getInstance("X25519", p) : java.security.KeyPairGenerator.getInstance("X25519") }
      peer = g.("SunEC").generateKeyPair
      agree = lambda do |mine, theirs, provider|
        a = provider ? javax.crypto.KeyAgreement.getInstance("XDH", provider) : javax.crypto.KeyAgreement.getInstance("XDH")
        a.init(mine); a.doPhase(theirs, true); String.from_java_bytes(a.generateSecret)
      end
      operations = [
        -> { k = g.(nil).generateKeyPair; agree.(k.getPrivate, peer.getPublic, nil) == agree.(peer.getPrivate, k.getPublic, "SunEC") },
        -> { k = g.("SunEC").generateKeyPair; agree.(k.getPrivate, peer.getPublic, nil) == agree.(peer.getPrivate, k.getPublic, "SunEC") },
      ]
      require #{FailOver::PATH.dump}
      p(FailOver.rounds(operations, stats: -> { FastRandom::EC.stats }, inject: -> { hooks.inject_xdh_failures(1) }) do |middle, after|
        after[:openssl].values.sum > middle[:openssl].values.sum
      end)
    RUBY
    assert_failed_over out, err, status, [[true, true, 1, 0, true]] * 2, /the openssl EC engine failed \(XDH .*the next JCA provider \(SunEC\)/
  end
end
