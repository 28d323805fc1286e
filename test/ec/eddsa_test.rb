# frozen_string_literal: true

# Passes 10.1: EdDSA keys need jruby-openssl 0.16.1 or later (JRuby 10.1.1.0 bundles 0.16.2); the fallback to BouncyCastle is tested here by fault injection.

require_relative "../test_helper"
require_relative "../support/fail_over"
require_relative "../support/mri_ec"
require "json"
require "openssl"

# Ed25519 and Ed448 (OpenSSL::PKey::PKey#sign(nil, data) and #verify, as
# jruby-openssl 0.16.1+ has them) on the :openssl EC engine: OpenSSL's
# EdDSA through jruby-openssl's provider. Signatures are RFC 8032's and
# MRI's byte for byte; every Wycheproof Ed25519 verdict is Wycheproof's and
# stock's; bad input raises what stock raises; a failing native call is
# served by BouncyCastle with one warning; the stats prove who did the work.
class EdDsaTest < Minitest::Test
  include FailOver::Assertions

  PKey = OpenSSL::PKey
  # RFC 8032, section 7: seed, public key, message, signature (hex).
  RFC8032 = {
    "ED25519" => [
      %w[9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60
         d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a] +
        ["", "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"],
      %w[4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb
         3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c 72
         92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00],
      %w[c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7
         fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025 af82
         6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a],
    ],
    "ED448" => [
      ["6c82a562cb808d10d632be89c8513ebf6c929f34ddfa8c9f63c9960ef6e348a3528c8a3fcc2f044e39a3fc5b94492f8f032e7549a20098f95b",
       "5fd7449b59b461fd2ce787ec616ad46a1da1342485a70e1f8a0ea75d80e96778edf124769b46c7061bd6783df1e50f6cd1fa1abeafe8256180", "",
       "533a37f6bbe457251f023c0d88f976ae2dfb504a843e34d2074fd823d41a591f2b233f034f628281f2fd7a22ddd47d7828c59bd0a21bfd3980ff0d2028d4b18a9df63e006c5d1c2d345b925d8dc00b4104852db99ac5c7cdda8530a113a0f4dbb61149f05a7363268c71d95808ff2e652600"],
    ],
  }.freeze

  def setup
    skip "jruby-openssl #{JOpenSSL::VERSION} has no EdDSA keys (0.16.1 and later do)" unless PKey.respond_to?(:new_raw_private_key)
    FastRandom::EC.install
    @engine_before = FastRandom::EC.engine
  end

  def teardown
    return unless @engine_before

    FastRandom::EC.install
    FastRandom::EC.engine = @engine_before
  end

  def native? = TestHelper.libcrypto_expected?
  def unhex(text) = MriEc.unhex(text)
  def hex(bytes) = MriEc.hex(bytes)

  def stock
    FastRandom::EC.uninstall
    yield
  ensure
    FastRandom::EC.install
  end

  # EC operations per engine during the block: {openssl: n, java: n}.
  def operations
    before = FastRandom::EC.stats
    yield
    after = FastRandom::EC.stats
    %i[openssl java].to_h { |engine| [engine, after[engine].values.sum - before[engine].values.sum] }
  end

  def on_engine(count) = native? ? { openssl: count, java: 0 } : { openssl: 0, java: count }

  def test_rfc8032_vectors
    RFC8032.each do |type, vectors|
      vectors.each do |seed, public_hex, message, signature|
        key = PKey.new_raw_private_key(type, unhex(seed))
        public_key = PKey.new_raw_public_key(type, unhex(public_hex))
        counts = operations do
          assert_equal signature, hex(key.sign(nil, unhex(message))), "#{type} #{seed[0, 8]}"
          assert public_key.verify(nil, unhex(signature), unhex(message)), "#{type} #{seed[0, 8]}"
          assert key.verify(nil, unhex(signature), unhex(message)), "#{type} #{seed[0, 8]}: the private key verifies too"
          refute public_key.verify(nil, unhex(signature), "#{unhex(message)}!"), "#{type} #{seed[0, 8]}"
        end
        assert_equal on_engine(4), counts, "#{type} #{seed[0, 8]}"
        assert_equal public_hex, hex(key.raw_public_key), type
      end
    end
  end

  # Signatures of random keys and messages, here and in MRI: the same bytes.
  def test_signatures_are_mri_s
    entries = %w[ED25519 ED448].flat_map do |type|
      Array.new(6) do |i|
        key = PKey.new_raw_private_key(type, Random.bytes(type == "ED448" ? 57 : 32)) # jruby-openssl 0.16.2 cannot generate Ed448 keys
        message = Random.bytes(i * 37)
        { "type" => type, "seed" => hex(key.raw_private_key), "message" => hex(message), "mine" => hex(key.sign(nil, message)) }
      end
    end
    assert_equal(entries.map { |e| e["mine"] }, MriEc.run("eddsa_sign", JSON.generate(entries.map { |e| e.except("mine") })))
  end

  # Every Wycheproof Ed25519 vector: Wycheproof's verdict, and stock's.
  def test_wycheproof_ed25519_verdicts_are_wycheproof_s_and_stock_s
    data = JSON.parse(File.read(TestHelper.vector("wycheproof/ed25519_test.json")))
    checked = 0
    data["testGroups"].each do |group|
      key = PKey.new_raw_public_key("ED25519", unhex(group["publicKey"]["pk"]))
      group["tests"].each do |test|
        verdict = key.verify(nil, unhex(test["sig"]), unhex(test["msg"]))
        assert_equal test["result"] == "valid", verdict, "tcId #{test["tcId"]}: #{test["comment"]}"
        checked += 1
      end
      stock_verdicts = stock { group["tests"].map { |t| key.verify(nil, unhex(t["sig"]), unhex(t["msg"])) } }
      assert_equal(group["tests"].map { |t| t["result"] == "valid" }, stock_verdicts, "stock, group of #{group["publicKey"]["pk"]}")
    end
    assert_equal data["numberOfTests"], checked
  end

  # Bad input raises what stock raises (class and message), or answers as it does.
  def test_bad_input_as_stock
    key = PKey.generate_key("ED25519")
    public_key = PKey.new_raw_public_key("ED25519", key.raw_public_key)
    ed448 = PKey.new_raw_private_key("ED448", Random.bytes(57))
    signature = key.sign(nil, "data")
    cases = {
      "a digest" => -> { key.sign("SHA256", "data") },
      "verify with a digest" => -> { key.verify("SHA256", signature, "data") },
      "sign with a public key" => -> { public_key.sign(nil, "data") },
      "short signature" => -> { public_key.verify(nil, signature[0, 63], "data") },
      "long signature" => -> { public_key.verify(nil, "#{signature}\0", "data") },
      "empty signature" => -> { public_key.verify(nil, "", "data") },
      "Ed448 signature, Ed25519 key" => -> { public_key.verify(nil, ed448.sign(nil, "data"), "data") },
      "nil data" => -> { key.sign(nil, nil) },
      "integer data" => -> { key.sign(nil, 42) },
      "nil signature" => -> { public_key.verify(nil, nil, "data") },
      "S not reduced" => -> { public_key.verify(nil, signature[0, 32] + ([0xed] + [0xd3] + [0xf5] + [0x5c] + [0] * 27 + [0x10]).pack("C*"), "data") },
    }
    cases.each do |label, call|
      assert_equal stock { outcome(call) }, outcome(call), label
    end
  end

  def outcome(call)
    [:ok, call.call]
  rescue StandardError => e
    [e.class.name, e.message]
  end

  # Public keys of small order, which any signature of the identity's form
  # matches under OpenSSL's equation, are refused when made, raw or
  # encoded, as stock refuses them: none reaches OpenSSL's verification.
  def test_small_order_keys_are_refused_as_stock_refuses_them
    small = ["01#{"00" * 31}", "ec#{"ff" * 30}7f", "00" * 32, "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"]
    small.each do |point|
      raw = -> { PKey.new_raw_public_key("ED25519", unhex(point)) }
      encoded = -> { PKey.read(unhex("302a300506032b6570032100#{point}")) }
      [raw, encoded].each do |make|
        ours = outcome(make)
        assert_equal stock { outcome(make) }.first(2), ours.first(2), point
        assert_equal "OpenSSL::PKey::PKeyError", ours.first, "#{point}: refused"
      end
    end
  end

  # With the :java engine, EdDSA is jruby-openssl's, counted as java.
  def test_the_java_engine_signs_on_jruby_openssl
    FastRandom::EC.engine = :java
    key = PKey.new_raw_private_key("ED25519", unhex(RFC8032["ED25519"][0][0]))
    counts = operations { assert_equal RFC8032["ED25519"][0][3], hex(key.sign(nil, "")) }
    assert_equal({ openssl: 0, java: 1 }, counts)
  end

  # Threads signing and verifying with shared keys get the right answers.
  def test_threads_share_keys
    keys = Array.new(3) { PKey.generate_key("ED25519") }
    results = Array.new(4) do |t|
      Thread.new do
        Array.new(200) do |i|
          key = keys[(t + i) % 3]
          message = "message #{t} #{i}"
          key.verify(nil, key.sign(nil, message), message)
        end
      end
    end.flat_map(&:value)
    assert_equal [true] * 800, results
  end

  # Fault injection at the native call: a signature or verification that
  # fails there is BouncyCastle's (the same bytes and verdicts), with one
  # warning and a counted fallback; the next call is native again.
  def test_a_failing_native_call_falls_back_to_stock_and_the_next_one_recovers
    skip "libcrypto unavailable on purpose in this pass" unless native?
    out, err, status = TestHelper.jruby(<<~RUBY)
      require "fast_random"
      require "openssl"
      hooks = Java::FastrandomJni::NativeTestHooks
      FastRandom::EC.engine # the self-test first
      key = OpenSSL::PKey.new_raw_private_key("ED25519", ["#{RFC8032["ED25519"][1][0]}"].pack("H*"))
      public_key = OpenSSL::PKey.new_raw_public_key("ED25519", key.raw_public_key)
      ed448 = OpenSSL::PKey.new_raw_private_key("ED448", Random.bytes(57))
      expected = ["#{RFC8032["ED25519"][1][3]}"].pack("H*")
      operations = [
        -> { key.sign(nil, "\\x72") == expected },
        -> { public_key.verify(nil, expected, "\\x72") },
        -> { !public_key.verify(nil, expected, "\\x73") },
        -> { ed448.verify(nil, ed448.sign(nil, "x"), "x") },
      ]
      require #{FailOver::PATH.dump}
      p(FailOver.rounds(operations, stats: -> { FastRandom::EC.stats }, inject: -> { hooks.inject_ed_dsa_failures(1) }) do |middle, after|
        after[:openssl].values.sum > middle[:openssl].values.sum
      end)
    RUBY
    assert_failed_over out, err, status, [[true, true, 1, 0, true]] * 4, /the openssl EC engine failed \(EdDSA failed/
  end
end
