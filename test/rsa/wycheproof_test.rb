# frozen_string_literal: true

# Passes all: the vectors must hold on whichever engine a pass leaves: libcrypto with or without IFMA, or GMP.

require_relative "../test_helper"
require "json"
require "openssl"
require_relative "../support/rsa_engine_switching"

# Project Wycheproof's RSA vectors (test/vectors/wycheproof) through
# OpenSSL::PKey::RSA on each fast engine and on stock jruby-openssl: for every
# vector the fast engines give stock's verdict (and the same plaintext or
# signature); where stock's verdict is not Wycheproof's, the test says why.
#
# jruby-openssl's OAEP is SHA-1 only (private_decrypt has no digest or label
# argument), so the SHA-256 OAEP vectors also run one level down, through
# BouncyCastle's OAEPEncoding over fast_random's block engine and over BC's
# own, where every verdict must be Wycheproof's.
class RsaWycheproofTest < Minitest::Test
  include RsaEngineSwitching

  RSA = OpenSSL::PKey::RSA

  def self.vectors(name)
    JSON.parse(File.read(TestHelper.vector("wycheproof/#{name}")))
  end

  def unhex(text) = [text].pack("H*")
  def digest_name(sha) = sha.delete("-") # "SHA-256" -> "SHA256"

  # {engine => [verdict per vector]} for stock and each fast engine that runs here.
  def verdicts(tests, &verdict)
    result = { stock: stock { tests.map(&verdict) } }
    each_engine do |engine|
      before = FastRandom::RSA.stats[engine]
      result[engine] = tests.map(&verdict)
      assert_operator FastRandom::RSA.stats[engine].values.sum, :>, before.values.sum, "#{engine} did the work"
    end
    result
  end

  # What a call gave: its value, or its exception's class (messages may
  # carry values; the class is the verdict).
  def outcome
    yield
  rescue StandardError => e
    e.class.name
  end

  # Where stock lets a Java exception through (a ciphertext or signature not
  # below the modulus, input too long for the key), fast_random answers as
  # MRI does: OpenSSL::PKey::RSAError for a decryption, false for a
  # verification; and where stock's verify_pss swallows that exception into
  # nil, fast_random says false, as MRI does.
  def stock_verdict_with_mri_errors(verdict, verifying)
    if verdict.is_a?(String) && verdict.start_with?("Java::")
      verifying ? false : "OpenSSL::PKey::RSAError"
    elsif verdict.nil? && verifying
      false
    else
      verdict
    end
  end

  def assert_same_verdicts_as_stock(all, tests, verifying: false)
    expected = all[:stock].map { |verdict| stock_verdict_with_mri_errors(verdict, verifying) }
    all.each do |engine, verdicts|
      next if engine == :stock

      differ = tests.each_index.reject { |i| verdicts[i] == expected[i] }
      assert_empty differ.map { |i| "tcId #{tests[i]["tcId"]}: #{engine} #{verdicts[i].inspect}, stock #{all[:stock][i].inspect}" },
                   "#{engine} disagrees with stock"
    end
  end

  # [group, test] pairs of a file.
  def tests_of(file)
    self.class.vectors(file).fetch("testGroups").flat_map { |g| g["tests"].map { |t| [g, t] } }
  end

  %w[rsa_signature_2048_sha256_test.json rsa_signature_3072_sha256_test.json rsa_signature_3072_sha512_test.json
     rsa_signature_4096_sha256_test.json rsa_signature_4096_sha512_test.json].each do |file|
    define_method("test_pkcs1_verify_#{file[/\d+_sha\d+/]}") do
      pairs = tests_of(file)
      keys = pairs.map(&:first).uniq.to_h { |g| [g, RSA.new(g["publicKeyPem"])] }
      all = verdicts(pairs) do |group, test|
        outcome { keys[group].verify(digest_name(group["sha"]), unhex(test["sig"]), unhex(test["msg"])) }
      end
      assert_same_verdicts_as_stock(all, pairs.map(&:last), verifying: true)
      # Stock (BouncyCastle) accepts the valid signatures and refuses the
      # invalid ones; of the "acceptable" ones it takes a DigestInfo without
      # its NULL parameter (MissingNull), as OpenSSL does.
      pairs.each_with_index do |(_, test), i|
        next if test["result"] == "acceptable"

        assert_equal test["result"] == "valid", all[:stock][i], "tcId #{test["tcId"]} (#{test["result"]}, #{test["flags"].join(",")})"
      end
    end
  end

  %w[rsa_pkcs1_2048_test.json rsa_pkcs1_3072_test.json rsa_pkcs1_4096_test.json].each do |file|
    define_method("test_pkcs1_decrypt_#{file[/\d+/]}") do
      pairs = tests_of(file)
      keys = pairs.map(&:first).uniq.to_h { |g| [g, RSA.new(g["privateKeyPem"])] }
      all = verdicts(pairs) { |group, test| outcome { keys[group].private_decrypt(unhex(test["ct"])) } }
      assert_decryptions(all, pairs) { |test| test["result"] == "valid" }
    end
  end

  def test_oaep_sha1_decrypt
    pairs = tests_of("rsa_oaep_2048_sha1_mgf1sha1_test.json")
    keys = pairs.map(&:first).uniq.to_h { |g| [g, RSA.new(g["privateKeyPem"])] }
    all = verdicts(pairs) { |group, test| outcome { keys[group].private_decrypt(unhex(test["ct"]), RSA::PKCS1_OAEP_PADDING) } }
    # jruby-openssl has no way to pass an OAEP label: a ciphertext made with
    # one fails the label-hash check, as the invalid ones do.
    assert_decryptions(all, pairs) { |test| test["result"] == "valid" && test["label"].empty? }
  end

  # The fast engines decrypt as stock does; stock gives the plaintext of each
  # vector for which the block is true and refuses the rest, with one class of
  # error whatever is wrong with the padding (no oracle in the error class).
  # (On stock a ciphertext not below the modulus, or too long, raises a Java
  # exception; on fast_random OpenSSL::PKey::RSAError.)
  def assert_decryptions(all, pairs)
    assert_same_verdicts_as_stock(all, pairs.map(&:last))
    pairs.each_with_index do |(_, test), i|
      if yield(test)
        assert_equal unhex(test["msg"]), all[:stock][i], "tcId #{test["tcId"]}"
      else
        assert_equal "OpenSSL::PKey::RSAError", stock_verdict_with_mri_errors(all[:stock][i], false),
                     "tcId #{test["tcId"]}: #{test["comment"]}"
      end
    end
  end

  # Below jruby-openssl (which has SHA-1 OAEP only): BC's OAEPEncoding with
  # SHA-256 and the vectors' labels, over fast_random's block engine on each
  # engine, and over BC's own RSABlindedEngine.
  def test_oaep_sha256_decrypt_through_the_block_engine
    pairs = tests_of("rsa_oaep_2048_sha256_mgf1sha256_test.json")
    bc = org.bouncycastle
    decrypt = lambda do |engine, group, test|
      k = group["privateKey"]
      big = ->(name) { java.math.BigInteger.new(k[name], 16) }
      params = bc.crypto.params.RSAPrivateCrtKeyParameters.new(big["modulus"], big["publicExponent"], big["privateExponent"],
                                                              big["prime1"], big["prime2"], big["exponent1"], big["exponent2"], big["coefficient"])
      oaep = bc.crypto.encodings.OAEPEncoding.new(engine, bc.crypto.digests.SHA256Digest.new, bc.crypto.digests.SHA256Digest.new,
                                                  unhex(test["label"]).to_java_bytes)
      oaep.init(false, params)
      ct = unhex(test["ct"]).to_java_bytes
      outcome { String.from_java_bytes(oaep.process_block(ct, 0, ct.length)) }
    end
    stock = pairs.map { |group, test| decrypt.call(bc.crypto.engines.RSABlindedEngine.new, group, test) }
    each_engine do |engine|
      ours = pairs.map { |group, test| decrypt.call(Java::FastrandomRsaJca::RsaBlockEngine.new, group, test) }
      assert_equal stock, ours, engine
    end
    pairs.each_with_index do |(_, test), i|
      if test["result"] == "valid"
        assert_equal unhex(test["msg"]).b, stock[i].b, "tcId #{test["tcId"]}"
      else
        # BC's own exceptions at this level: a bad encoding, or a ciphertext not below the modulus.
        assert_includes %w[Java::OrgBouncycastleCrypto::InvalidCipherTextException Java::OrgBouncycastleCrypto::DataLengthException],
                        stock[i], "tcId #{test["tcId"]}: #{test["comment"]}"
      end
    end
  end

  def test_pss_verify
    skip "jruby-openssl #{JOpenSSL::VERSION} has no verify_pss (fast_random adds none: see pkey_test)" unless RSA.method_defined?(:verify_pss)
    pairs = tests_of("rsa_pss_2048_sha256_mgf1_32_test.json")
    keys = pairs.map(&:first).uniq.to_h { |g| [g, RSA.new(g["publicKeyPem"])] }
    [32, :auto].each do |salt|
      all = verdicts(pairs) do |group, test|
        outcome do
          keys[group].verify_pss(digest_name(group["sha"]), unhex(test["sig"]), unhex(test["msg"]),
                                 salt_length: salt, mgf1_hash: digest_name(group["mgfSha"]))
        end
      end
      assert_same_verdicts_as_stock(all, pairs.map(&:last), verifying: true)
      pairs.each_with_index do |(_, test), i|
        # With :auto, a signature made with another salt length verifies (as
        # on MRI), so only the fixed length pins every verdict.
        next if salt == :auto && test["result"] != "valid"

        assert_equal test["result"] == "valid", stock_verdict_with_mri_errors(all[:stock][i], true),
                     "salt #{salt}, tcId #{test["tcId"]}: #{test["comment"]}"
      end
    end
  end

  %w[rsa_pkcs1_2048_sig_gen_test.json rsa_pkcs1_3072_sig_gen_test.json rsa_pkcs1_4096_sig_gen_test.json].each do |file|
    define_method("test_pkcs1_sign_#{file[/\d+/]}") do
      pairs = tests_of(file)
      keys = pairs.map(&:first).uniq.to_h { |g| [g, RSA.new(g["privateKeyPem"])] }
      all = verdicts(pairs) { |group, test| outcome { keys[group].sign(digest_name(group["sha"]), unhex(test["msg"])) } }
      assert_same_verdicts_as_stock(all, pairs.map(&:last))
      # PKCS#1 v1.5 signing is deterministic: every signature is Wycheproof's,
      # the "acceptable" ones (SHA-1, SHA-224, e = 3) too.
      pairs.each_with_index do |(_, test), i|
        assert_equal unhex(test["sig"]), all[:stock][i], "tcId #{test["tcId"]}"
      end
    end
  end
end
