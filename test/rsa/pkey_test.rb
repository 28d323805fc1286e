# frozen_string_literal: true

# Passes all, hooks: OpenSSL::PKey::RSA must be MRI's on whichever engine a pass leaves: libcrypto with or without IFMA, or GMP.

require_relative "../test_helper"
require_relative "../support/fail_over"
require_relative "../support/mri_rsa"
require_relative "../support/rsa_engine_switching"
require "openssl"

# OpenSSL::PKey::RSA through fast_random's engines, against MRI's OpenSSL and
# against stock jruby-openssl (FastRandom::RSA.uninstall): byte-identical
# results for the deterministic operations, cross-verified signatures for PSS,
# the same exceptions for bad input. MRI (Debian's ruby) makes the keys
# (1024 to 4096 bits, e = 65537 and e = 3) and the reference results, and
# checks JRuby's PSS signatures. FastRandom::RSA.stats proves which engine
# did the work.
class RsaPKeyTest < Minitest::Test
  include FailOver::Assertions
  include RsaEngineSwitching

  MESSAGE = MriRsa::MESSAGE
  RSA = OpenSSL::PKey::RSA

  # MRI's keys and results, made once per process (4096-bit keys take seconds).
  def self.reference
    @reference ||= MriRsa.run("reference").map do |ref|
      ref.merge("key" => RSA.new(ref["pem"]), "der_key" => TestHelper.read_private_der(RSA, MriRsa.unhex(ref["der"]), ref["pem"]),
                "public_key" => RSA.new(ref["public_pem"]))
    end
  end

  def reference = self.class.reference

  def skip_without_pss
    return if RSA.method_defined?(:sign_pss)

    skip "jruby-openssl #{JOpenSSL::VERSION} has no PSS methods " \
         "(test_fast_random_adds_no_method_the_release_lacks checks that fast_random adds none)"
  end

  # fast_random replaces the PSS and raw methods where the loaded
  # jruby-openssl has them (0.15.6 and later), and adds none where it does
  # not (0.15.0 to 0.15.5): there a PSS call fails as on stock.
  def test_fast_random_adds_no_method_the_release_lacks
    names = %i[sign_pss verify_pss sign_raw verify_raw]
    key = reference.first["key"]
    if TestHelper.older_jruby_openssl?
      assert_equal [], names.select { |name| RSA.method_defined?(name) }
      assert_equal [], %i[sign_raw verify_raw derive].select { |name| OpenSSL::PKey::EC.method_defined?(name) }
      call = -> { key.sign("SHA256", MESSAGE, "rsa_padding_mode" => "pss") }
      assert_equal stock { outcome(call) }, outcome(call)
      assert_equal "ArgumentError", outcome(call).first
    else
      # fast_random's Java methods, in place on the class (stock's are jruby-openssl's PKeyRSA ones).
      require "jruby"
      implementation = ->(name) { JRuby.reference(RSA.instance_method(name)).getMethod.getRealMethod.getClass.getName }
      assert_equal [], (names + %i[sign verify]).reject { |name| implementation.(name).include?("RsaPssMethods") },
                   (names + %i[sign verify]).map(&implementation).inspect
    end
    assert_operations(:openssl, private_ops: 1, public_ops: 1) { assert key.verify("SHA256", key.sign("SHA256", MESSAGE), MESSAGE) } if FastRandom::RSA.engine == :openssl
  end
  def unhex(text) = MriRsa.unhex(text)

  # Asserts that the block ran this many operations (an Integer or a Range)
  # on +engine+ and none elsewhere.
  def assert_operations(engine, private_ops:, public_ops:)
    before = FastRandom::RSA.stats
    result = yield
    after = FastRandom::RSA.stats
    ran = after[engine].to_h { |kind, n| [kind, n - before[engine][kind]] }
    { private: private_ops, public: public_ops }.each do |kind, expected|
      assert_operator expected, :===, ran[kind], "#{kind} operations on #{engine}: #{ran}"
    end
    (FastRandom::RSA::ENGINES - [engine]).each do |other|
      assert_equal before[other], after[other], "operations on #{other} while #{engine} is selected"
    end
    assert_equal before[:fallbacks], after[:fallbacks], "engine failures"
    result
  end

  def test_pkcs1_signatures_are_mri_s_and_stock_s_byte_for_byte
    reference.each do |ref|
      label = "#{ref["bits"]} bits, e=#{ref["e"]}"
      generic_sign = OpenSSL::PKey::PKey.instance_method(:sign)
      MriRsa::DIGESTS.each do |digest|
        expected = unhex(ref["sign"][digest])
        assert_equal expected, stock { ref["key"].sign(digest, MESSAGE) }, "stock, #{label}, #{digest}"
      end
      each_engine do |engine|
        assert_operations(engine, private_ops: 3 * MriRsa::DIGESTS.size, public_ops: MriRsa::DIGESTS.size) do
          MriRsa::DIGESTS.each do |digest|
            expected = unhex(ref["sign"][digest])
            assert_equal expected, ref["key"].sign(digest, MESSAGE), "#{engine}, #{label}, #{digest}"
            assert_equal expected, ref["der_key"].sign(OpenSSL::Digest.new(digest), MESSAGE), "#{engine}, DER key, #{label}"
            assert_equal expected, generic_sign.bind(ref["key"]).call(digest, MESSAGE), "#{engine}, PKey#sign, #{label}"
            assert ref["public_key"].verify(digest, expected, MESSAGE), "#{engine}, verify, #{label}, #{digest}"
          end
        end
      end
    end
  end

  def test_private_encrypt_and_sign_raw_are_byte_identical
    reference.each do |ref|
      key = ref["key"]
      label = "#{ref["bits"]} bits, e=#{ref["e"]}"
      hash = OpenSSL::Digest.digest("SHA256", MESSAGE)
      raw_methods = RSA.method_defined?(:sign_raw) # jruby-openssl 0.15.6 and later
      ops = raw_methods ? 3 : 2
      each_engine do |engine|
        assert_operations(engine, private_ops: ops, public_ops: ops) do
          assert_equal unhex(ref["private_encrypt"]), key.private_encrypt(MESSAGE), "#{engine}, #{label}"
          raw = key.private_encrypt(unhex(ref["raw_block"]), RSA::NO_PADDING)
          assert_equal unhex(ref["private_encrypt_raw"]), raw, "#{engine}, no padding, #{label}"
          assert_equal unhex(ref["sign_raw"]), key.sign_raw("SHA256", hash), "#{engine}, sign_raw, #{label}" if raw_methods
          assert_equal MESSAGE, ref["public_key"].public_decrypt(unhex(ref["private_encrypt"]))
          assert_equal unhex(ref["raw_block"]), ref["public_key"].public_decrypt(raw, RSA::NO_PADDING)
          assert ref["public_key"].verify_raw("SHA256", unhex(ref["sign_raw"]), hash) if raw_methods
        end
      end
    end
  end

  def test_decrypts_what_mri_encrypted_and_round_trips_every_padding
    reference.each do |ref|
      key = ref["key"]
      public_key = ref["public_key"]
      label = "#{ref["bits"]} bits, e=#{ref["e"]}"
      block = unhex(ref["raw_block"])
      each_engine do |engine|
        assert_operations(engine, private_ops: 5, public_ops: 3) do
          assert_equal MESSAGE, key.private_decrypt(unhex(ref["public_encrypt_pkcs1"])), "#{engine}, #{label}"
          assert_equal MESSAGE, key.private_decrypt(unhex(ref["public_encrypt_oaep"]), RSA::PKCS1_OAEP_PADDING), "#{engine}, OAEP, #{label}"
          assert_equal MESSAGE, key.private_decrypt(public_key.public_encrypt(MESSAGE)), "#{engine}, #{label}"
          assert_equal MESSAGE, key.private_decrypt(public_key.public_encrypt(MESSAGE, RSA::PKCS1_OAEP_PADDING), RSA::PKCS1_OAEP_PADDING)
          assert_equal block, key.private_decrypt(public_key.public_encrypt(block, RSA::NO_PADDING), RSA::NO_PADDING)
        end
      end
    end
  end

  def test_verifies_mri_signatures_and_rejects_tampered_ones
    reference.each do |ref|
      public_key = ref["public_key"]
      signature = unhex(ref["sign"]["SHA256"])
      pss = unhex(ref["sign_pss"])
      tampered = ->(s) { s.dup.tap { |t| t.setbyte(t.bytesize / 2, t.getbyte(t.bytesize / 2) ^ 0x40) } }
      pss_methods = RSA.method_defined?(:verify_pss) # jruby-openssl 0.15.6 and later
      each_engine do |engine|
        # verify_pss with salt_length: :auto reads the salt length first (one
        # more public operation when the signature is well-formed).
        assert_operations(engine, private_ops: 0, public_ops: pss_methods ? 7..8 : 2) do
          assert public_key.verify("SHA256", signature, MESSAGE)
          refute public_key.verify("SHA256", tampered.call(signature), MESSAGE)
          next unless pss_methods

          assert public_key.verify_pss("SHA256", pss, MESSAGE, salt_length: :auto, mgf1_hash: "SHA256"), "#{engine}, PSS :auto"
          assert public_key.verify_pss("SHA256", pss, MESSAGE, salt_length: :digest, mgf1_hash: "SHA256")
          refute public_key.verify_pss("SHA256", tampered.call(pss), MESSAGE, salt_length: :auto, mgf1_hash: "SHA256")
          refute public_key.verify_pss("SHA256", pss, MESSAGE, salt_length: 20, mgf1_hash: "SHA256")
        end
      end
    end
  end

  # The PSS forms jruby-openssl has, each with the salt length stock uses:
  # [label, sign, verify]. Signatures are randomized, so they are compared by
  # what they are made of (salt length) and by who accepts them.
  PSS_FORMS = [
    ["sign_pss :digest", ->(k) { k.sign_pss("SHA256", MESSAGE, salt_length: :digest, mgf1_hash: "SHA256") }, 32],
    ["sign_pss :max", ->(k) { k.sign_pss("SHA384", MESSAGE, salt_length: :max, mgf1_hash: "SHA384") }, :max],
    ["sign_pss :auto", ->(k) { k.sign_pss("SHA256", MESSAGE, salt_length: :auto, mgf1_hash: "SHA1") }, :max],
    ["sign_pss 0", ->(k) { k.sign_pss(OpenSSL::Digest.new("SHA512"), MESSAGE, salt_length: 0, mgf1_hash: "SHA512") }, 0],
    ["sign_pss defaults", ->(k) { k.sign_pss("SHA1", MESSAGE) }, :max],
    ["sign pss", ->(k) { k.sign("SHA256", MESSAGE, "rsa_padding_mode" => "pss") }, :max],
    ["sign pss 20", ->(k) { k.sign("SHA256", MESSAGE, "rsa_padding_mode" => "pss", "rsa_pss_saltlen" => 20) }, 20],
  ].freeze


  def test_pss_signatures_use_stock_s_salt_lengths_and_verify_on_stock_and_mri
    skip_without_pss
    checks = []
    reference.select { |ref| [1024, 2048, 4096].include?(ref["bits"]) }.each do |ref|
      key = ref["key"]
      PSS_FORMS.each do |label, sign, _|
        stock_signature = stock { sign.call(key) }
        stock_salt = salt_length(ref["public_key"], stock_signature, label)
        each_engine do |engine|
          signature = assert_operations(engine, private_ops: 1, public_ops: 0) { sign.call(key) }
          assert_equal stock_salt, salt_length(ref["public_key"], signature, label), "#{engine}, #{label}: salt length"
          assert stock { pss_verify(ref["public_key"], signature, label, stock_salt) }, "stock verifies #{engine}'s #{label}"
          assert pss_verify(ref["public_key"], stock_signature, label, stock_salt), "#{engine} verifies stock's #{label}"
          checks << { "public_pem" => ref["public_pem"], "digest" => pss_digest(label), "mgf1" => pss_mgf1(label),
                      "signature" => MriRsa.hex(signature), "salt_length" => "auto", "label" => "#{engine} #{label}" }
        end
      end
      hash = OpenSSL::Digest.digest("SHA256", MESSAGE)
      each_engine do |engine|
        raw = key.sign_raw("SHA256", hash, "rsa_padding_mode" => "pss", "rsa_pss_saltlen" => 10)
        assert_equal 10, salt_length(ref["public_key"], raw, "SHA256")
        assert ref["public_key"].verify_raw("SHA256", raw, hash, "rsa_padding_mode" => "pss", "rsa_pss_saltlen" => 10)
        assert stock { ref["public_key"].verify_raw("SHA256", raw, hash, "rsa_padding_mode" => "pss", "rsa_pss_saltlen" => 10) }
        assert ref["public_key"].verify("SHA256", raw, MESSAGE, "rsa_padding_mode" => "pss", "rsa_pss_saltlen" => "10")
        checks << { "public_pem" => ref["public_pem"], "digest" => "SHA256", "signature" => MriRsa.hex(raw),
                    "salt_length" => 10, "label" => "#{engine} sign_raw pss" }
      end
    end
    verdicts = MriRsa.run("verify", JSON.generate(checks))
    rejected = checks.zip(verdicts).reject { |_, ok| ok }.map { |check, _| check["label"] }
    assert_empty rejected, "MRI rejected these PSS signatures"
  end

  def pss_digest(label) = { "sign_pss :max" => "SHA384", "sign_pss 0" => "SHA512", "sign_pss defaults" => "SHA1" }.fetch(label, "SHA256")
  def pss_mgf1(label) = label == "sign_pss :auto" ? "SHA1" : pss_digest(label)

  def pss_verify(public_key, signature, label, salt)
    public_key.verify_pss(pss_digest(label), signature, MESSAGE, salt_length: salt, mgf1_hash: pss_mgf1(label))
  end

  # The salt length inside a PSS signature (RFC 8017 9.1.2), read with the
  # public key on stock jruby-openssl: a check independent of both engines.
  def salt_length(public_key, signature, label)
    digest = OpenSSL::Digest.new(pss_digest(label))
    em = stock { public_key.public_decrypt(signature, RSA::NO_PADDING) }
    em = em.rjust(public_key.n.num_bytes, "\0".b) # leading zero bytes are dropped
    em_bits = public_key.n.num_bits - 1
    em = em.byteslice(em.bytesize - (em_bits + 7) / 8, (em_bits + 7) / 8)
    h_len = digest.digest_length
    db_len = em.bytesize - h_len - 1
    h = em.byteslice(db_len, h_len)
    mgf1 = OpenSSL::Digest.new(pss_mgf1(label))
    mask = (0..).lazy.map { |c| mgf1.digest(h + [c].pack("N")) }.first((db_len + mgf1.digest_length - 1) / mgf1.digest_length).join
    db = em.bytes.first(db_len).zip(mask.bytes).map { |a, b| a ^ b }
    db[0] &= 0xff >> (8 * em.bytesize - em_bits)
    db_len - db.index(1) - 1
  end

  # Bad input gets what stock jruby-openssl gives it: the same exception
  # class and message, or the same answer.
  def test_bad_input_gets_stock_s_errors
    ref = reference.find { |r| r["bits"] == 2048 && r["e"] == 65_537 }
    key = ref["key"]
    public_key = ref["public_key"]
    pkcs1 = unhex(ref["public_encrypt_pkcs1"])
    oaep = unhex(ref["public_encrypt_oaep"])
    flipped = pkcs1.dup.tap { |c| c.setbyte(40, c.getbyte(40) ^ 1) }
    cases = {
      "public_encrypt too long" => -> { key.public_encrypt("x" * 300) },
      "public_encrypt 246 bytes" => -> { key.public_encrypt("x" * 246) },
      "private_encrypt too long" => -> { key.private_encrypt("x" * 250) },
      "no padding, input >= n" => -> { key.private_encrypt("\xff".b * 256, RSA::NO_PADDING) },
      "no padding, short input" => -> { key.private_encrypt("abc", RSA::NO_PADDING) },
      "private_decrypt short" => -> { key.private_decrypt("garbage") },
      "private_decrypt too long" => -> { key.private_decrypt("\x01".b * 257) },
      "private_decrypt >= n" => -> { key.private_decrypt("\xff".b * 256) },
      "private_decrypt corrupted" => -> { key.private_decrypt(flipped) },
      "private_decrypt OAEP as PKCS1" => -> { key.private_decrypt(oaep) },
      "private_decrypt PKCS1 as OAEP" => -> { key.private_decrypt(pkcs1, RSA::PKCS1_OAEP_PADDING) },
      "private_decrypt no padding" => -> { key.private_decrypt(pkcs1, RSA::NO_PADDING) },
      "padding 99" => -> { key.private_encrypt(MESSAGE, 99) },
      # Not bad input: jruby-openssl reads padding 2 as ISO 9796-1 (deterministic, so compared whole).
      "padding 2 (ISO 9796-1)" => -> { [key.private_encrypt(MESSAGE, 2), public_key.public_decrypt(key.private_encrypt(MESSAGE, 2), 2)] },
      "nil data" => -> { key.private_encrypt(nil) },
      "public key: private_encrypt" => -> { public_key.private_encrypt(MESSAGE) },
      "public key: private_decrypt" => -> { public_key.private_decrypt(pkcs1) },
      "public key: sign" => -> { public_key.sign("SHA256", MESSAGE) },
      "public key: sign_pss" => -> { public_key.sign_pss("SHA256", MESSAGE, salt_length: :digest, mgf1_hash: "SHA256") },
      "public key: sign_raw" => -> { public_key.sign_raw("SHA256", "x" * 32) },
      "unknown digest" => -> { key.sign("NOPE", MESSAGE) },
      "verify short signature" => -> { public_key.verify("SHA256", "short", MESSAGE) },
      "verify signature >= n" => -> { public_key.verify("SHA256", "\xff".b * 256, MESSAGE) },
      "public_decrypt >= n" => -> { public_key.public_decrypt("\xff".b * 256) },
      "public_decrypt garbage" => -> { public_key.public_decrypt("\x01".b * 256) },
      "sign_pss salt too long" => -> { key.sign_pss("SHA256", MESSAGE, salt_length: 1000, mgf1_hash: "SHA256") },
      "sign_pss unknown salt" => -> { key.sign_pss("SHA256", MESSAGE, salt_length: :most, mgf1_hash: "SHA256") },
      "sign_pss SHA224" => -> { key.sign_pss("SHA224", MESSAGE, salt_length: :digest, mgf1_hash: "SHA224") },
      "sign_pss nil data" => -> { key.sign_pss("SHA256", nil, salt_length: :digest, mgf1_hash: "SHA256") },
      "verify_pss wrong salt" => -> { public_key.verify_pss("SHA256", unhex(ref["sign_pss"]), MESSAGE, salt_length: 5, mgf1_hash: "SHA256") },
      "verify_pss short signature" => -> { public_key.verify_pss("SHA256", "short", MESSAGE, salt_length: :digest, mgf1_hash: "SHA256") },
      "sign options not a Hash" => -> { key.sign("SHA256", MESSAGE, 5) },
    }
    expected = stock { cases.transform_values { |call| outcome(call) } }
    # Where stock lets a Java exception through (input too long for the key),
    # fast_random raises what MRI raises: OpenSSL::PKey::RSAError (with BC's message).
    java_leaks = expected.select { |_, result| result.is_a?(Array) && result.first.start_with?("Java::") }
    assert_equal ["public_encrypt 246 bytes", "public_encrypt too long", "private_encrypt too long",
                  "no padding, input >= n", "private_decrypt too long", "private_decrypt >= n",
                  "public_decrypt >= n"].sort, java_leaks.keys.sort, "stock's Java exceptions changed: update this test"
    java_leaks.each { |label, (_, message)| expected[label] = ["OpenSSL::PKey::RSAError", message] }
    each_engine do |engine|
      cases.each do |label, call|
        assert_equal expected[label], outcome(call), "#{engine}: #{label}"
      end
    end
  end

  # With salt_length: :auto, stock jruby-openssl lets BouncyCastle's Java
  # DataLengthException through for a signature that is not below the
  # modulus; MRI answers false, and so does fast_random.
  def test_verify_pss_auto_with_a_signature_above_the_modulus_is_false_as_on_mri
    skip_without_pss
    ref = reference.find { |r| r["bits"] == 2048 }
    call = -> { ref["public_key"].verify_pss("SHA256", "\xff".b * 256, MESSAGE, salt_length: :auto, mgf1_hash: "SHA256") }
    assert_equal ["Java::OrgBouncycastleCrypto::DataLengthException", "input too large for RSA cipher."], stock { outcome(call) },
                 "stock's answer changed: update this test"
    each_engine do |engine|
      assert_equal false, outcome(call), engine
    end
  end

  def outcome(call)
    call.call
  rescue Exception => e # rubocop:disable Lint/RescueException
    [e.class.name, e.message]
  end

  # The cipher jruby-openssl gets initialises BouncyCastle's first, which
  # refuses what it refuses on stock (jruby-openssl's own keys are checked
  # when made; a JDK key reaches the cipher unchecked), on every engine; a
  # key it takes is encrypted, in one operation.
  def test_the_cipher_jruby_openssl_gets_refuses_keys_as_bouncycastle_does
    provider = Java::OrgJrubyExtOpenssl::SecurityHelper.getSecurityProvider
    assert_equal "FastRandom-jruby-openssl", provider.getName
    n = reference.find { |r| r["bits"] == 2048 }["key"].n.to_i
    factory = java.security.KeyFactory.getInstance("RSA", "SunRsaSign")
    key = lambda do |modulus, e|
      factory.generatePublic(java.security.spec.RSAPublicKeySpec.new(java.math.BigInteger.new(modulus.to_s), java.math.BigInteger.new(e.to_s)))
    end
    keys = { "a small prime factor" => key.(n * 3, 65_537), "an even exponent" => key.(n, 65_536), "a good key" => key.(n, 65_537) }
    encrypt = lambda do |transformation, public_key, via|
      cipher = javax.crypto.Cipher.getInstance(transformation, via)
      cipher.init(javax.crypto.Cipher::ENCRYPT_MODE, public_key)
      cipher.doFinal(MESSAGE.to_java_bytes).length
    end
    %w[RSA/ECB/PKCS1Padding RSA/ECB/OAEPWithSHA1AndMGF1Padding].each do |transformation|
      keys.each do |label, public_key|
        expected = outcome(-> { encrypt.(transformation, public_key, provider.bouncyCastle) })
        assert_equal(label == "a good key", expected == 256, "#{transformation}, #{label}: #{expected}")
        each_engine do |engine|
          assert_operations(engine, private_ops: 0, public_ops: expected == 256 ? 1 : 0) do
            assert_equal expected, outcome(-> { encrypt.(transformation, public_key, provider) }), "#{engine}, #{transformation}, #{label}"
          end
        end
      end
    end
  end

  # Fault injection at public_encrypt's one native call (PKCS#1 v1.5 and
  # OAEP): the caller still gets a ciphertext, BouncyCastle's over the
  # engine, with one warning naming jruby-openssl's code and a counted
  # fallback; the next call is one native call again.
  def test_a_failing_one_call_encryption_falls_back_to_stock_and_the_next_one_recovers
    skip "libcrypto unavailable in this pass: nothing runs natively to fail" unless TestHelper.native_library_expected?

    ref = reference.find { |r| r["bits"] == 2048 && r["e"] == 65_537 }
    out, err, status = TestHelper.jruby(<<~RUBY)
      require "fast_random"
      require "openssl"
      FastRandom::RSA.engine = :openssl
      key = OpenSSL::PKey::RSA.new(#{ref["pem"].dump})
      public_key = OpenSSL::PKey::RSA.new(#{ref["public_pem"].dump})
      lib = Java::FastrandomJni::LibCrypto
      message = "fast_random"
      operations = [OpenSSL::PKey::RSA::PKCS1_PADDING, OpenSSL::PKey::RSA::PKCS1_OAEP_PADDING].map do |padding|
        -> { key.private_decrypt(public_key.public_encrypt(message, padding), padding) == message }
      end
      operations.each(&:call) # the engine chosen, the keys cached: the fault hits the encryption
      require #{FailOver::PATH.dump}
      p(FailOver.rounds(operations, stats: -> { FastRandom::RSA.stats }, inject: -> { lib.inject_faults(1) }) do |middle, after|
        after[:openssl] == { private: middle[:openssl][:private] + 1, public: middle[:openssl][:public] + 1 }
      end)
    RUBY
    assert_failed_over out, err, status, [[true, true, 1, 0, true]] * 2,
                       /the openssl RSA engine failed \(injected fault.*\); such operations run on jruby-openssl's Java code/
  end

  def test_keys_made_in_jruby_sign_as_stock_does
    key = RSA.new(2048)
    signature = stock { key.sign("SHA256", MESSAGE) }
    each_engine do |engine|
      assert_equal signature, key.sign("SHA256", MESSAGE), engine
      assert_equal MESSAGE, key.private_decrypt(key.public_encrypt(MESSAGE)), engine
    end
  end

  # A private key given as n, e, d only has no CRT values: BouncyCastle does
  # the work, as on stock (counted as java).
  def test_a_key_without_crt_values_runs_on_jruby_openssl_s_code
    ref = reference.find { |r| r["bits"] == 1024 && r["e"] == 65_537 }
    full = ref["key"]
    bare = RSA.new
    bare.set_key(full.n, full.e, full.d)
    expected = unhex(ref["sign"]["SHA256"])
    sign = -> { bare.sign("SHA256", MESSAGE) }
    on_stock = stock { outcome(sign) }
    # jruby-openssl 0.15.0 signs with no such key ("Private key is needed"): nor does fast_random there.
    return assert_equal on_stock, outcome(sign) unless on_stock.is_a?(String)

    each_engine do |engine|
      before = FastRandom::RSA.stats
      assert_equal expected, bare.sign("SHA256", MESSAGE), engine
      assert_equal before[:java][:private] + 1, FastRandom::RSA.stats[:java][:private]
    end
  end

  def test_many_threads_sign_with_one_key
    ref = reference.find { |r| r["bits"] == 2048 && r["e"] == 65_537 }
    expected = unhex(ref["sign"]["SHA256"])
    each_engine do |engine|
      results = Array.new(8) { Thread.new { Array.new(25) { ref["key"].sign("SHA256", MESSAGE) } } }.flat_map(&:value)
      assert_equal [expected], results.uniq, engine
    end
  end

  def test_the_java_engine_is_stock_code
    ref = reference.find { |r| r["bits"] == 1024 && r["e"] == 3 }
    FastRandom::RSA.engine = :java
    assert_operations(:java, private_ops: 1, public_ops: 1) do
      assert_equal unhex(ref["sign"]["SHA256"]), ref["key"].sign("SHA256", MESSAGE)
      assert ref["public_key"].verify("SHA256", unhex(ref["sign"]["SHA256"]), MESSAGE)
    end
  end

  # One cached key per Ruby key object, freed once the Ruby key is
  # garbage collected (for :openssl, the OpenSSL key object in C).
  def test_what_an_engine_caches_for_a_key_goes_with_the_key
    pem = reference.find { |r| r["bits"] == 1024 }["pem"]
    each_engine do |engine|
      cache = Java::FastrandomRsa::RsaEngines.current.private_key_cache
      live_native = -> { Java::FastrandomJni::LibCrypto.live_keys }
      before = [cache.size, live_native.call]
      sign_with_200_keys(pem, engine, cache, before[0]) # the keys are dropped at once on return
      50.times do
        java.lang.System.gc
        sleep 0.05
        break if cache.size <= before[0] + 5 # size polls the collected keys
      end
      assert_operator cache.size, :<=, before[0] + 5, "#{engine}: keys of collected Ruby keys must be dropped"
      assert_operator live_native.call, :<=, before[1] + 5, "#{engine}: and freed" if engine == :openssl
    end
  end

  # Signs with 200 new key objects and checks, while they live, that each has
  # its own cached entry (and native key). Keys of earlier tests may be
  # collected meanwhile, so the counts are bounds rather than before + 200.
  def sign_with_200_keys(pem, engine, cache, cached_before)
    keys = Array.new(200) { RSA.new(pem).tap { |key| key.sign("SHA256", MESSAGE) } }
    assert_operator cache.size, :>=, keys.size, engine
    assert_operator cache.size, :<=, cached_before + keys.size, engine
    assert_operator Java::FastrandomJni::LibCrypto.live_keys, :>=, keys.size, engine if engine == :openssl
    nil
  end

  # Two keys sharing one modulus object (set_key(k1.n, ...)) whose public
  # exponents' Java hashes collide: each key gets its own results, never the
  # other's cached native key.
  def test_keys_sharing_a_modulus_never_get_each_others_native_key
    ref = reference.select { |r| r["e"] == 65_537 }.min_by { |r| r["bits"] }
    k1 = ref["key"]
    lambda = (k1.p.to_i - 1).lcm(k1.q.to_i - 1)
    # k * 2**32 + (65537 - 31k) has BigInteger#hashCode 65537, as 65537 has:
    # the first such (even k: odd) that is a valid exponent for this key.
    e2 = (2..).step(2).lazy.map { |k| (k << 32) + 65_537 - 31 * k }.find { |e| e.gcd(lambda) == 1 }
    assert_equal java.math.BigInteger.new("65537").hashCode, java.math.BigInteger.new(e2.to_s).hashCode
    d2 = OpenSSL::BN.new(e2).mod_inverse(lambda).to_i
    k2 = RSA.new
    k2.set_key(k1.n, OpenSSL::BN.new(e2), OpenSSL::BN.new(d2))
    k2.set_factors(k1.p, k1.q)
    k2.set_crt_params(OpenSSL::BN.new(d2 % (k1.p.to_i - 1)), OpenSSL::BN.new(d2 % (k1.q.to_i - 1)), k1.iqmp)
    bytes = k1.n.num_bytes
    block = ->(x) { [x.to_s(16).rjust(2 * bytes, "0")].pack("H*") }
    each_engine do |engine|
      [k1, k2].each { |k| k.public_encrypt(block[2], RSA::NO_PADDING) && k.sign("SHA256", MESSAGE) } # both cached
      assert_equal block[3.pow(e2, k1.n.to_i)], k2.public_encrypt(block[3], RSA::NO_PADDING), engine
      assert_equal block[3.pow(d2, k1.n.to_i)], k2.private_encrypt(block[3], RSA::NO_PADDING), engine
      assert k2.verify("SHA256", k2.sign("SHA256", MESSAGE), MESSAGE), engine
      assert_equal stock { k2.sign("SHA256", MESSAGE) }, k2.sign("SHA256", MESSAGE), engine
      assert_equal unhex(ref["sign"]["SHA256"]), k1.sign("SHA256", MESSAGE), engine
    end
  end
end
