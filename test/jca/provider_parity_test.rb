# frozen_string_literal: true

# Passes all: the provider serves RSA and EC natively or hands them on, and the fallback passes change which.

require_relative "../test_helper"
require_relative "../support/jca_provider"

# The JVM-wide provider against the JDK's own providers where a review found
# them apart: ECDH's state after generateSecret (SunEC's), RSA signatures of
# the wrong length (SunRsaSign's SignatureException), RSA keys it refuses
# at init (refused with its words), the RSA cipher's refusals and
# update-then-doFinal() (SunJCE's), and what the fallback
# warnings say runs instead (the next JCA provider, named, not
# jruby-openssl's code).
class JcaProviderParityTest < Minitest::Test
  include JcaProvider

  # What each call of a KeyAgreement script gives: :ok, or the exception's class.
  def agreement_outcomes(provider, curve)
    ours = self.class.ec(curve)
    peer = self.class.key_pair("EC", java.security.spec.ECGenParameterSpec.new(curve))
    agreement = provider ? KeyAgreement.getInstance("ECDH", provider) : KeyAgreement.getInstance("ECDH")
    agreement.init(ours.getPrivate)
    field = (ours.getPrivate.getParams.getCurve.getField.getFieldSize + 7) / 8
    outcome = lambda do |&call|
      result = call.()
      result.nil? ? :nil : :ok
    rescue Java::JavaLang::Exception => e
      e.class.name.split("::").last
    end
    phase = -> { agreement.doPhase(peer.getPublic, true) }
    steps = [
      outcome.() { agreement.generateSecret }, # before doPhase
      (phase.(); outcome.() { agreement.generateSecret }),
      outcome.() { agreement.generateSecret }, # again, without doPhase
      outcome.() { agreement.generateSecret(Java::byte[field].new, 0) },
      outcome.() { agreement.generateSecret("TlsPremasterSecret") },
      (phase.(); outcome.() { agreement.generateSecret(Java::byte[field + 3].new, 2) }),
      outcome.() { agreement.generateSecret(Java::byte[field + 3].new, 2) },
      (phase.(); outcome.() { agreement.generateSecret(Java::byte[field - 1].new, 0) }), # too short: state kept
      outcome.() { agreement.generateSecret },
      (phase.(); outcome.() { agreement.generateSecret("TlsPremasterSecret") }),
      outcome.() { agreement.generateSecret("TlsPremasterSecret") },
      (phase.(); outcome.() { agreement.generateSecret("TlsPremasterSecret") }),
      outcome.() { agreement.generateSecret },
    ]
    [steps, agreement.getProvider.getName]
  end

  # SunEC forgets the peer's key once a secret is generated: a second
  # generateSecret without doPhase throws IllegalStateException, whichever
  # form; a buffer too short keeps the state.
  def test_ecdh_generate_secret_twice_throws_as_sunec_does
    %w[secp256r1 secp384r1 secp521r1].each do |curve|
      jdk, jdk_name = agreement_outcomes("SunEC", curve)
      ours, name = agreement_outcomes(nil, curve)
      assert_equal "SunEC", jdk_name
      assert_equal "FastRandom", name
      assert_equal jdk, ours, curve
      assert_equal "IllegalStateException", ours[2], "#{curve}: a second generateSecret without doPhase"
    end
  end


  def verify_outcome(algorithm, provider, signature, parameters)
    verifier = provider ? Signature.getInstance(algorithm, provider) : Signature.getInstance(algorithm)
    verifier.setParameter(parameters) if parameters
    verifier.initVerify(self.class.rsa.getPublic)
    verifier.update(MESSAGE)
    verdict = begin
      verifier.verify(signature)
    rescue java.security.SignatureException => e
      [e.class.name.split("::").last, e.message]
    end
    verifier.update(MESSAGE) # the object is usable again, as the JDK's
    [verdict, verifier.verify(good_signature(algorithm, parameters)), verifier.getProvider.getName]
  end

  def good_signature(algorithm, parameters)
    (@good ||= {})[algorithm] ||= begin
      signer = Signature.getInstance(algorithm, "SunRsaSign")
      signer.setParameter(parameters) if parameters
      signer.initSign(self.class.rsa.getPrivate)
      signer.update(MESSAGE)
      signer.sign
    end
  end

  # SunRsaSign throws SignatureException for a signature shorter or longer
  # than the modulus, for RSASSA-PSS and PKCS#1 v1.5 alike.
  def test_rsa_signatures_of_the_wrong_length_throw_as_the_jdk_s
    { "RSASSA-PSS" => pss("SHA-256", 32), "SHA256withRSA" => nil }.each do |algorithm, parameters|
      good = good_signature(algorithm, parameters)
      candidates = {
        short: java.util.Arrays.copyOfRange(good, 1, good.length),
        long: java.util.Arrays.copyOf(good, good.length + 1),
        long_zero_first: [0].pack("C").to_java_bytes.to_a.then { |z| (z + good.to_a).to_java(:byte) },
        empty: Java::byte[0].new,
      }
      candidates.each do |label, signature|
        jdk = verify_outcome(algorithm, "SunRsaSign", signature, parameters)
        ours = verify_outcome(algorithm, nil, signature, parameters)
        assert_equal "FastRandom", ours.pop, "#{algorithm} #{label}"
        jdk.pop
        assert_equal jdk, ours, "#{algorithm} #{label}"
        assert_equal "SignatureException", ours[0][0], "#{algorithm} #{label}"
      end
    end
  end

  # An RSA key under 512 bits, which SunRsaSign refuses and OpenSSL takes,
  # as BouncyCastle's key classes (the JDK's key factory refuses it too).
  def self.small_rsa
    @small_rsa ||= begin
      e = 65_537
      p, q, phi = loop do
        p, q = Array.new(2) { OpenSSL::BN.generate_prime(200).to_i }
        phi = (p - 1) * (q - 1)
        break [p, q, phi] if p != q && phi.gcd(e) == 1
      end
      d = e.to_bn.mod_inverse(phi).to_i
      big = ->(i) { i.to_java(java.math.BigInteger) }
      spec = java.security.spec.RSAPrivateCrtKeySpec.new(*[p * q, e, d, p, q, d % (p - 1), d % (q - 1),
                                                           q.to_bn.mod_inverse(p).to_i].map(&big))
      factory = java.security.KeyFactory.getInstance("RSA", Java::OrgBouncycastleJceProvider::BouncyCastleProvider.new)
      [factory.generatePrivate(spec), factory.generatePublic(java.security.spec.RSAPublicKeySpec.new(big.(p * q), big.(e)))]
    end
  end

  # A key new to the engine is first shown to the next provider, so a key
  # SunRsaSign refuses at init is refused by ours, with the same exception.
  def test_rsa_keys_the_jdk_refuses_are_refused_with_its_words
    private_key, public_key = self.class.small_rsa
    outcome = lambda do |provider, init|
      init.(Signature.getInstance("SHA1withRSA", provider))
      :ok
    rescue java.security.InvalidKeyException => e
      [e.class.name, e.message]
    end
    { sign: ->(s) { s.initSign(private_key) }, verify: ->(s) { s.initVerify(public_key) } }.each do |label, init|
      jdk = outcome.("SunRsaSign", init)
      refute_equal :ok, jdk, "#{label}: SunRsaSign takes keys of 512 bits or more"
      assert_equal jdk, outcome.("FastRandom", init), label
    end
  end

  # The RSA cipher, whether it does the operation or hands it to SunJCE,
  # answers input it refuses with SunJCE's exception and message, and
  # update then doFinal() (no arguments) with SunJCE's bytes. (A ciphertext
  # that does not unpad gets SunJCE's exception class; the message is
  # "Decryption error", as on Java 17, where Java 25 says "Padding error in
  # decryption".)
  def test_rsa_cipher_refusals_and_update_then_do_final_are_sunjce_s
    public_key = self.class.rsa.getPublic
    private_key = self.class.rsa.getPrivate
    ones = ("\xff".b * 256).to_java_bytes # not below the modulus
    block = Java::byte[256].new.tap { |b| b[255] = 42 }
    cases = {
      "raw, not below the modulus" => ["NoPadding", Cipher::ENCRYPT_MODE, public_key, ones],
      "raw, too long" => ["NoPadding", Cipher::ENCRYPT_MODE, public_key, Java::byte[257].new],
      "PKCS#1, too long" => ["PKCS1Padding", Cipher::ENCRYPT_MODE, public_key, Java::byte[246].new],
      "OAEP, too long" => ["OAEPPadding", Cipher::ENCRYPT_MODE, public_key, Java::byte[215].new],
      "decryption, not below the modulus" => ["PKCS1Padding", Cipher::DECRYPT_MODE, private_key, ones],
      "decryption, too long" => ["OAEPPadding", Cipher::DECRYPT_MODE, private_key, Java::byte[257].new],
      "decryption, bad padding" => ["PKCS1Padding", Cipher::DECRYPT_MODE, private_key, block, false, :class_only],
      "raw, update then doFinal()" => ["NoPadding", Cipher::ENCRYPT_MODE, public_key, block, true],
      "private key, update then doFinal()" => ["PKCS1Padding", Cipher::ENCRYPT_MODE, private_key, MESSAGE, true],
    }
    cases.each do |label, (padding, mode, key, data, split, class_only)|
      jdk, ours = ["SunJCE", nil].map do |provider|
        cipher = provider ? Cipher.getInstance("RSA/ECB/#{padding}", provider) : Cipher.getInstance("RSA/ECB/#{padding}")
        cipher.init(mode, key)
        result = begin
          (split ? (cipher.update(data); cipher.doFinal) : cipher.doFinal(data)).to_a
        rescue Java::JavaLang::Exception => e
          class_only ? e.class.name : [e.class.name, e.message]
        end
        [result, cipher.getProvider.getName]
      end
      assert_equal [jdk[0], "FastRandom"], ours, label
    end
  end

  # A native failure in the JVM-wide RSA cipher, encrypting or decrypting:
  # the next provider (SunJCE) does the operation, counted as java, and
  # one warning names it.
  def test_jvm_wide_rsa_cipher_failures_go_to_the_next_provider_with_one_warning
    skip "libcrypto is unavailable in this pass: nothing runs natively to fail" unless TestHelper.libcrypto_expected?

    out, err, status = TestHelper.jruby(<<~RUBY)
      require "fast_random"
      FastRandom.install_jca_provider
      lib = Java::FastrandomJni::LibCrypto
      cipher = javax.crypto.Cipher
      g = java.security.KeyPairGenerator.getInstance("RSA", "SunRsaSign"); g.java_send(:initialize, [Java::int], 2048)
      rsa = g.generateKeyPair
      message = "fast_random".to_java_bytes
      crypt = lambda do |mode, key, data, provider = nil|
        c = provider ? cipher.getInstance("RSA/ECB/OAEPPadding", provider) : cipher.getInstance("RSA/ECB/OAEPPadding")
        c.init(mode, key)
        [c.doFinal(data), c.getProvider.getName]
      end
      ciphertext, = crypt.(cipher::ENCRYPT_MODE, rsa.getPublic, message, "SunJCE")
      crypt.(cipher::DECRYPT_MODE, rsa.getPrivate, crypt.(cipher::ENCRYPT_MODE, rsa.getPublic, message).first) # the keys cached
      stats = -> { s = FastRandom::RSA.stats; [s[:openssl].values.sum, s[:java].values.sum, s[:fallbacks]] }
      before = stats.()
      lib.inject_faults(1)
      encrypted, encrypting = crypt.(cipher::ENCRYPT_MODE, rsa.getPublic, message)
      lib.inject_faults(1)
      decrypted, decrypting = crypt.(cipher::DECRYPT_MODE, rsa.getPrivate, ciphertext)
      p [crypt.(cipher::DECRYPT_MODE, rsa.getPrivate, encrypted, "SunJCE").first.to_a == message.to_a,
         decrypted.to_a == message.to_a, encrypting, decrypting, stats.().zip(before).map { |after, was| after - was }]
    RUBY
    assert status.success?, err
    assert_equal [true, true, "FastRandom", "FastRandom", [0, 2, 2]], eval(out.lines.last) # rubocop:disable Security/Eval -- our own child's p output
    warnings = err.lines.grep(/fast_random: .*engine failed/)
    assert_equal 1, warnings.size, err
    assert_match(/the openssl RSA engine failed \(injected fault.*\); such operations run on the next JCA provider \(SunJCE\)$/,
                 warnings.first)
  end

  # A native failure on the JVM-wide provider: the warning names what runs
  # instead, the next JCA provider, not jruby-openssl's code.
  def test_jvm_wide_fallback_warnings_name_the_next_provider
    skip "libcrypto is unavailable in this pass: nothing runs natively to fail" unless TestHelper.libcrypto_expected?

    out, err, status = TestHelper.jruby(<<~RUBY)
      require "fast_random"
      FastRandom.install_jca_provider
      lib = Java::FastrandomJni::LibCrypto
      e = java.security.KeyPairGenerator.getInstance("EC", "SunEC")
      e.java_send(:initialize, [java.security.spec.AlgorithmParameterSpec], java.security.spec.ECGenParameterSpec.new("secp256r1"))
      ec = e.generateKeyPair
      peer = e.generateKeyPair
      g = java.security.KeyPairGenerator.getInstance("RSA", "SunRsaSign"); g.java_send(:initialize, [Java::int], 2048)
      rsa = g.generateKeyPair
      message = "fast_random".to_java_bytes
      sign = lambda do |algorithm, key, params = nil|
        s = java.security.Signature.getInstance(algorithm); s.setParameter(params) if params
        s.initSign(key); s.update(message); s.sign
      end
      verify = lambda do |algorithm, key, signature, params = nil|
        s = java.security.Signature.getInstance(algorithm); s.setParameter(params) if params
        s.initVerify(key); s.update(message); s.verify(signature)
      end
      pss = java.security.spec.PSSParameterSpec.new("SHA-256", "MGF1", java.security.spec.MGF1ParameterSpec::SHA256, 32, 1)
      ecdh = -> { k = javax.crypto.KeyAgreement.getInstance("ECDH"); k.init(ec.getPrivate); k.doPhase(peer.getPublic, true); k.generateSecret }
      ecdsa = sign.("SHA256withECDSA", ec.getPrivate)
      pss_signature = sign.("RSASSA-PSS", rsa.getPrivate, pss)
      ecdh.()
      verify.("SHA256withECDSA", ec.getPublic, ecdsa)
      verify.("RSASSA-PSS", rsa.getPublic, pss_signature, pss)
      results = [
        -> { sign.("SHA256withECDSA", ec.getPrivate) },
        -> { verify.("SHA256withECDSA", ec.getPublic, ecdsa) },
        -> { ecdh.() },
        -> { sign.("SHA256withRSA", rsa.getPrivate) },
        -> { verify.("RSASSA-PSS", rsa.getPublic, pss_signature, pss) },
      ].map { |op| lib.inject_faults(1); op.call }
      p [results[1], results[4], FastRandom::EC.stats[:fallbacks], FastRandom::RSA.stats[:fallbacks]]
    RUBY
    assert status.success?, err
    assert_equal [true, true, 3, 2], eval(out.lines.last) # rubocop:disable Security/Eval -- our own child's p output
    warnings = err.lines.grep(/fast_random: .*engine failed/)
    refute_match(/jruby-openssl/, warnings.join, "the JVM-wide provider does not fall back to jruby-openssl")
    assert_equal 1, warnings.grep(/the openssl EC engine failed \(injected fault.*\); such operations run on the next JCA provider \(SunEC\)$/).size,
                 "one EC warning, naming SunEC:\n#{err}"
    assert_equal 1, warnings.grep(/the openssl RSA engine failed \(injected fault.*\); such operations run on the next JCA provider \(SunJCE\)$/).size,
                 "the RSA signature's fallback names SunJCE's RSA cipher:\n#{err}"
    assert_equal 1, warnings.grep(/the openssl RSA engine failed \(injected fault.*\); such operations run on fast_random's Java code/).size,
                 "RSASSA-PSS verification falls back to BigInteger.modPow:\n#{err}"
  end
end
