# frozen_string_literal: true

# Passes main, 9.4-fallback, hooks: EC runs on libcrypto, or on Java code without the library; hidden CPU features change neither.

require_relative "../test_helper"
require_relative "../support/fail_over"
require_relative "../support/mri_ec"
require "json"
require "openssl"

# OpenSSL::PKey::EC on fast_random's :openssl EC engine (OpenSSL's libcrypto
# through the JNI library), against MRI's OpenSSL and against stock
# jruby-openssl (FastRandom::EC.uninstall): signatures made here verify in
# MRI and MRI's verify here, for every curve and digest; ECDH secrets are
# MRI's; keys from generate, PEM, DER and components all work; bad input
# raises what stock raises; FastRandom::EC.stats proves who did the work.
# (Wycheproof's vectors: test/ec/wycheproof_test.rb.)
class EcEngineTest < Minitest::Test
  include FailOver::Assertions

  EC = OpenSSL::PKey::EC
  MESSAGE = MriEc::MESSAGE
  LibCrypto = Java::FastrandomJni::LibCrypto

  def self.reference
    @reference ||= MriEc.run("reference")
  end

  def setup
    FastRandom::EC.install
    @engine_before = FastRandom::EC.engine
    return if TestHelper.libcrypto_expected? || name == "test_the_engine_is_chosen_or_says_why_not"

    skip "libcrypto unavailable on purpose in this pass: #{FastRandom::EC.engine_problem(:openssl)}"
  end

  def teardown
    LibCrypto.inject_faults(0)
    FastRandom::EC.install
    FastRandom::EC.engine = @engine_before
  end

  def reference = self.class.reference
  def unhex(text) = MriEc.unhex(text)
  def hex(bytes) = MriEc.hex(bytes)

  # The block's EC operations per engine: {openssl: n, java: n} (all kinds).
  def operations
    before = FastRandom::EC.stats
    yield
    after = FastRandom::EC.stats
    %i[openssl java].to_h { |engine| [engine, after[engine].values.sum - before[engine].values.sum] }
  end

  # The curves whose jruby-openssl keys the engine takes: OpenSSL 3.0 has
  # dedicated code for these; P-384 and secp256k1 stay on BouncyCastle's
  # hand-written arithmetic, which is faster than OpenSSL's generic code.
  NATIVE_CURVES = %w[prime256v1 secp521r1].freeze

  # +count+ operations ran on the engine for a curve it takes, on
  # jruby-openssl's code (and none natively) for the others.
  def assert_ran_on_engine_for(curve, count, counts)
    if NATIVE_CURVES.include?(curve)
      assert_equal({ openssl: count, java: 0 }, counts, curve)
    else
      assert_equal 0, counts[:openssl], "#{curve} ran natively"
      assert_operator counts[:java], :>=, count, "#{curve}: jruby-openssl's code"
    end
  end

  def stock
    FastRandom::EC.uninstall
    yield
  ensure
    FastRandom::EC.install
  end

  def test_the_engine_is_chosen_or_says_why_not
    if TestHelper.libcrypto_expected?
      assert_equal :openssl, FastRandom::EC.engine
      assert_nil FastRandom::EC.engine_problem(:openssl)
      assert FastRandom::EC.installed?
    else
      assert_equal :java, FastRandom::EC.engine
      assert_match(/native library|hidden/, FastRandom::EC.engine_problem("openssl"))
      assert_raises(FastRandom::EC::EngineUnavailableError) { FastRandom::EC.engine = :openssl }
      # jruby-openssl's own code does the work, with the same results.
      key = EC.generate("prime256v1")
      peer = EC.generate("prime256v1")
      counts = operations do
        assert key.verify("SHA256", key.sign("SHA256", MESSAGE), MESSAGE)
        assert_equal TestHelper.ecdh(key, peer), TestHelper.ecdh(peer, key)
      end
      assert_equal({ openssl: 0, java: 4 }, counts)
    end
    assert_nil FastRandom::EC.engine_problem(:java)
    assert_raises(ArgumentError) { FastRandom::EC.engine = :gmp }
    assert_raises(ArgumentError) { FastRandom::EC.engine_problem("nope") }
    assert_equal %i[openssl java], FastRandom::EC::ENGINES
    assert_equal %i[openssl java fallbacks verify_tables table_verifications libcrypto], FastRandom::EC.stats.keys
    assert_equal %i[sign verify derive generate], FastRandom::EC.stats[:openssl].keys
  end

  # Each curve, each digest, both ways, with keys read from PEM and DER.
  def test_signatures_verify_across_mri_and_jruby
    checks = []
    reference.each do |ref|
      curve = ref["curve"]
      pem_key = EC.new(ref["keys"][0]["pem"])
      der_key = TestHelper.read_private_der(EC, unhex(ref["keys"][0]["der"]), ref["keys"][0]["pem"])
      public_key = EC.new(ref["keys"][0]["public_pem"])
      counts = operations do
        MriEc::DIGESTS.each do |digest|
          assert public_key.verify(digest, unhex(ref["sign"][digest]), MESSAGE), "MRI's #{curve} #{digest}"
          refute public_key.verify(digest, unhex(ref["sign"][digest]), MESSAGE + "!"), "#{curve} #{digest}"
          [pem_key, der_key].each do |key|
            checks << { "public_pem" => ref["keys"][0]["public_pem"], "digest" => digest, "signature" => hex(key.sign(digest, MESSAGE)) }
          end
        end
        digest = OpenSSL::Digest.digest("SHA256", MESSAGE)
        assert public_key.dsa_verify_asn1(digest, unhex(ref["dsa_sign_asn1"])), "MRI's dsa_sign_asn1, #{curve}"
        checks << { "public_pem" => ref["keys"][0]["public_pem"], "asn1" => true, "signature" => hex(pem_key.dsa_sign_asn1(digest)) }
      end
      assert_ran_on_engine_for(curve, 4 * MriEc::DIGESTS.size + 2, counts)
    end
    assert_equal [true] * checks.size, MriEc.run("verify", JSON.generate(checks)), "MRI rejected signatures made here"
  end

  def test_ecdh_secrets_are_mri_s
    reference.each do |ref|
      a = EC.new(ref["keys"][0]["pem"])
      b = EC.new(ref["keys"][1]["public_pem"])
      counts = operations do
        assert_equal unhex(ref["secret"]), TestHelper.ecdh(a, b), ref["curve"]
        assert_equal unhex(ref["secret"]), a.dh_compute_key(b.public_key), ref["curve"]
      end
      assert_ran_on_engine_for(ref["curve"], 2, counts)
      assert_equal unhex(ref["secret"]), stock { TestHelper.ecdh(a, b) }
    end
  end

  # EC.generate's keys (explicit parameters in jruby-openssl's BouncyCastle
  # keys), keys built from their parts, and keys made by MRI all take the
  # engine and agree with each other.
  def test_keys_of_every_origin
    MriEc::CURVES.each do |curve|
      generated = EC.generate(curve)
      from_parts = EC.new(curve)
      from_parts.private_key = generated.private_key
      from_parts.public_key = generated.public_key
      peer = EC.generate(curve)
      counts = operations do
        signature = generated.sign("SHA256", MESSAGE)
        assert from_parts.verify("SHA256", signature, MESSAGE), curve
        assert generated.verify("SHA256", from_parts.sign("SHA256", MESSAGE), MESSAGE), curve
        assert_equal TestHelper.ecdh(generated, peer), TestHelper.ecdh(peer, from_parts), curve
      end
      assert_ran_on_engine_for(curve, 6, counts)
    end
  end

  # A curve the engine does not take runs on jruby-openssl's code, silently.
  def test_other_curves_run_on_stock
    key = EC.generate("secp224r1")
    peer = EC.generate("secp224r1")
    counts = operations do
      assert key.verify("SHA256", key.sign("SHA256", MESSAGE), MESSAGE)
      assert key.dsa_verify_asn1("x" * 28, key.dsa_sign_asn1("x" * 28))
      assert_equal TestHelper.ecdh(key, peer), TestHelper.ecdh(peer, key)
    end
    assert_equal 0, counts[:openssl]
    assert_operator counts[:java], :>=, 4
  end

  # A DER SEQUENCE of fewer than two INTEGERs: jruby-openssl reads it by
  # index and lets a Java ArrayIndexOutOfBoundsException out. fast_random
  # gives what stock gives for every other signature it cannot read, on the
  # native engine's curves and BouncyCastle's alike.
  def test_a_short_signature_sequence_gives_no_java_exception
    digest = "x" * 32
    [EC.generate("prime256v1"), EC.generate("secp384r1")].each do |key|
      %w[3000 3003020101].each do |hex|
        signature = [hex].pack("H*")
        error = assert_raises(OpenSSL::PKey::ECError) { key.dsa_verify_asn1(digest, signature) }
        assert_match(/\Ainvalid signature: /, error.message)
        assert_equal false, key.verify_raw("SHA256", signature, digest) if key.respond_to?(:verify_raw)
      end
    end
  end

  # Bad input gets stock's exception, class and message.
  def test_bad_input_gets_stock_s_errors
    key = EC.generate("prime256v1")
    public_only = EC.new(TestHelper.public_pem(key)) # 0.15.0 has no public_to_pem
    other = EC.generate("secp384r1")
    calls = {
      "dsa_verify_asn1 garbage" => -> { key.dsa_verify_asn1("x" * 32, "garbage") },
      "dsa_verify_asn1 not a sequence" => -> { key.dsa_verify_asn1("x" * 32, OpenSSL::ASN1::Integer(5).to_der) },
      "dsa_verify_asn1 non-String" => -> { key.dsa_verify_asn1(nil, "x") },
      "verify_raw garbage" => -> { key.verify_raw("SHA256", "garbage", "x" * 32) },
      "verify garbage" => -> { key.verify("SHA256", "garbage", MESSAGE) },
      "dsa_sign_asn1 public key" => -> { public_only.dsa_sign_asn1("x" * 32) },
      "sign public key" => -> { public_only.sign("SHA256", MESSAGE) },
      "dh_compute_key other curve" => -> { key.dh_compute_key(other.public_key) },
      "dh_compute_key nil" => -> { key.dh_compute_key(nil) },
      "sign unknown digest" => -> { key.sign("NOPE", MESSAGE) },
    }
    unless TestHelper.older_jruby_openssl? # no #derive there, and fast_random adds none
      calls["derive non-EC"] = -> { key.derive(OpenSSL::PKey::RSA.new(1024)) }
      calls["derive other curve"] = -> { key.derive(other) }
    end
    outcome = ->(call) { call.call.then { |v| v.is_a?(String) ? "String(#{v.bytesize})" : v.inspect } rescue "#{$!.class}: #{$!.message}" }
    expected = stock { calls.transform_values(&outcome) }
    assert_equal expected, calls.transform_values(&outcome)
  end

  # Messages longer than SignatureInput::HASHED_NATIVELY are hashed in Java
  # as they come and their digest is signed natively: at every length
  # around the limit, signatures made here verify on stock and stock's here.
  def test_long_messages_sign_and_verify_as_on_stock
    limit = Java::FastrandomSupport::SignatureInput::HASHED_NATIVELY
    key = EC.generate("prime256v1")
    ["", "x" * limit, "y" * (limit + 1), "z" * 1_000_000].each do |message|
      ours = nil
      counts = operations do
        ours = key.sign("SHA256", message)
        assert key.verify("SHA256", ours, message), message.size
        refute key.verify("SHA256", ours, "#{message}!"), message.size
      end
      assert_equal({ openssl: 3, java: 0 }, counts, message.size)
      theirs = stock do
        assert key.verify("SHA256", ours, message), "stock verifies ours, #{message.size} bytes"
        key.sign("SHA256", message)
      end
      assert key.verify("SHA256", theirs, message), "stock's verifies here, #{message.size} bytes"
    end
  end

  def test_many_threads_sign_and_verify_with_one_key
    key = EC.generate("prime256v1")
    results = Array.new(8) do
      Thread.new { Array.new(200) { key.verify("SHA256", key.sign("SHA256", MESSAGE), MESSAGE) } }
    end.flat_map(&:value)
    assert_equal [true] * 1600, results
  end

  # Fault injection at the native call: a signature, a verification or an
  # ECDH whose native call fails gets stock's result, one warning and a
  # counted fallback; the next call is native again.
  def test_a_failing_native_call_falls_back_to_stock_and_the_next_one_recovers
    out, err, status = TestHelper.jruby(<<~RUBY)
      require "fast_random"
      require "openssl"
      key = OpenSSL::PKey::EC.generate("prime256v1")
      peer = OpenSSL::PKey::EC.generate("prime256v1")
      digest = OpenSSL::Digest.digest("SHA256", "x")
      lib = Java::FastrandomJni::LibCrypto
      derive = ->(a, b) { a.respond_to?(:derive) ? a.derive(b) : a.dh_compute_key(b.public_key) } # jruby-openssl 0.15.0-0.15.5: no #derive
      secret = derive.(key, peer)
      signature = key.sign("SHA256", "x")
      operations = [
        -> { key.verify("SHA256", key.sign("SHA256", "x"), "x") },
        -> { key.dsa_verify_asn1(digest, key.dsa_sign_asn1(digest)) },
        -> { key.verify("SHA256", signature, "x") },
        -> { derive.(key, peer) == secret },
        -> { key.dh_compute_key(peer.public_key) == secret },
      ]
      require #{FailOver::PATH.dump}
      p(FailOver.rounds(operations, stats: -> { FastRandom::EC.stats }, inject: -> { lib.inject_faults(1) }) do |middle, after|
        after[:openssl].values.sum > middle[:openssl].values.sum
      end)
    RUBY
    assert_failed_over out, err, status, [[true, true, 1, 0, true]] * 5, /the openssl EC engine failed \(injected fault/
  end

  # FastRandom::EC works before openssl is loaded, and never loads it.
  # The self-test covers every curve the engine serves: with wrong answers
  # injected on one curve (NativeTestHooks.ecWrongAnswers) before it runs,
  # that curve is left out (its keys on the Java code, right answers, one
  # warning naming it), the other curves stay on openssl.
  def test_a_wrong_answer_on_one_curve_is_caught_by_the_self_test
    { "secp521r1" => 716, "secp384r1" => 715, "secp256k1" => 714 }.each do |bad, nid|
      out, err, status = TestHelper.jruby(<<~RUBY)
        require "fast_random"
        Java::FastrandomJni::NativeTestHooks.ecWrongAnswers(#{nid}) # before the self-test
        require "openssl"
        FastRandom.install_jca_provider
        message = "fast_random"
        ops = lambda do |&operations|
          before = FastRandom::EC.stats
          result = operations.call
          after = FastRandom::EC.stats
          [result, %i[openssl java].to_h { |e| [e, after[e].values.sum - before[e].values.sum] }]
        end
        derive = ->(a, b) { a.respond_to?(:derive) ? a.derive(b) : a.dh_compute_key(b.public_key) } # jruby-openssl 0.15.0-0.15.5: no #derive
        ruby_side = %w[prime256v1 secp521r1].to_h do |curve|
          a = OpenSSL::PKey::EC.generate(curve)
          b = OpenSSL::PKey::EC.generate(curve)
          [curve, ops.() { [a.verify("SHA256", a.sign("SHA256", message), message), !a.verify("SHA256", b.sign("SHA256", message), message),
                             derive.(a, b) == derive.(b, a)] }]
        end
        java_side = { "secp256r1" => "prime256v1", "secp384r1" => "secp384r1", "secp521r1" => "secp521r1" }.to_h do |jdk, curve|
          g = java.security.KeyPairGenerator.getInstance("EC", "SunEC")
          g.java_send(:initialize, [java.security.spec.AlgorithmParameterSpec], java.security.spec.ECGenParameterSpec.new(jdk))
          a = g.generateKeyPair
          b = g.generateKeyPair
          [curve, ops.() do
            s = java.security.Signature.getInstance("SHA256withECDSA"); s.initSign(a.getPrivate); s.update(message.to_java_bytes)
            sig = s.sign
            v = java.security.Signature.getInstance("SHA256withECDSA", "SunEC"); v.initVerify(a.getPublic); v.update(message.to_java_bytes)
            k = javax.crypto.KeyAgreement.getInstance("ECDH"); k.init(a.getPrivate); k.doPhase(b.getPublic, true)
            j = javax.crypto.KeyAgreement.getInstance("ECDH", "SunEC"); j.init(b.getPrivate); j.doPhase(a.getPublic, true)
            [v.verify(sig), k.generateSecret.to_a == j.generateSecret.to_a]
          end]
        end
        p [FastRandom::EC.engine, FastRandom::EC.engine_problem(:openssl), ruby_side.merge(java_side.transform_keys { |c| "jca " + c })]
      RUBY
      assert status.success?, err
      engine, problem, results = eval(out.lines.last) # rubocop:disable Security/Eval -- our own child's p output
      assert_equal [:openssl, nil], [engine, problem], bad
      results.each do |curve, (answers, counts)|
        assert_equal [true] * answers.size, answers, "#{bad} wrong: #{curve}'s answers are right"
        operations = curve.start_with?("jca") ? 2 : 6 # ours: sign and ECDH; sign twice, verify twice, derive twice
        expected = curve.end_with?(bad) ? { openssl: 0, java: operations } : { openssl: operations, java: 0 }
        assert_equal expected, counts, "#{bad} wrong: where #{curve} ran"
      end
      warnings = err.lines.grep(/fast_random: .*self-test/)
      assert_equal 1, warnings.size, "#{bad}: one warning:\n#{err}"
      assert_match(/#{bad}: MRI's signature did not verify/, warnings.first)
      refute_match(/prime256v1|secp384r1|secp521r1|secp256k1/, warnings.first.sub(/#{bad}: /, ""), "only #{bad} is named")
    end
  end

  def test_before_openssl
    out, err, status = TestHelper.jruby(<<~RUBY)
      require "fast_random"
      before = [FastRandom::EC.installed?, FastRandom::EC.engine_problem(:java), defined?(OpenSSL).nil?]
      FastRandom::EC.engine = :java
      require "openssl"
      p before + [FastRandom::EC.installed?, FastRandom::EC.engine]
    RUBY
    assert status.success?, err
    assert_equal "[false, nil, true, true, :java]", out.lines.last.strip
  end

  # FAST_RANDOM_EC_ENGINE is read from Ruby's ENV once, at the require (an
  # initializer may set it first; it is applied when EC is first used); set
  # after it, it changes nothing, not even a bad value.
  def test_fast_random_ec_engine_in_ruby_s_env_counts_before_the_require_only
    [["java", true, ":java"], ["fastest", false, TestHelper.libcrypto_expected? ? ":openssl" : ":java"]].each do |value, before, expected|
      set = "ENV['FAST_RANDOM_EC_ENGINE'] = '#{value}'"
      out, err, status = TestHelper.jruby(<<~RUBY, env: { "FAST_RANDOM_EC_ENGINE" => nil })
        #{set if before}
        require "fast_random"
        #{set unless before}
        p FastRandom::EC.engine
      RUBY
      assert status.success?, err
      assert_equal expected, out.lines.last.strip, value
    end
  end
end
