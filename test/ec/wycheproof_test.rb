# frozen_string_literal: true

# Passes main: the vectors go to libcrypto, which no hidden CPU feature changes; without the library EC is stock's.

require_relative "../test_helper"
require "json"
require "openssl"

# Project Wycheproof's ECDSA verification and ECDH vectors
# (test/vectors/wycheproof) through OpenSSL::PKey::EC, on fast_random's
# :openssl EC engine and on stock jruby-openssl (FastRandom::EC.uninstall):
# every verdict is stock's; and every one is Wycheproof's, except where
# stock's is not, which the test names and says why.
class EcWycheproofTest < Minitest::Test
  EC = OpenSSL::PKey::EC

  def self.vectors(name)
    JSON.parse(File.read(TestHelper.vector("wycheproof/#{name}")))
  end

  def setup
    skip "libcrypto unavailable in this pass" unless TestHelper.libcrypto_expected?
    FastRandom::EC.install
  end

  def teardown
    FastRandom::EC.install
  end

  def unhex(text) = [text].pack("H*")

  # The block run on jruby-openssl's code: the provider's EC services taken
  # out. fast_random's replacements of EC's methods stay, as does their
  # mapping of the Java exceptions stock lets out (EcMethods), so the
  # comparison is of the engine's results with BouncyCastle's, and stock's
  # own Java exceptions are tested by engine_test.rb (a short signature sequence).
  def stock
    FastRandom::EC.uninstall
    yield
  ensure
    FastRandom::EC.install
  end

  # What a call gave: its value, or its exception's class.
  def outcome
    yield
  rescue StandardError => e
    e.class.name
  end

  # Verdicts per test, fast_random's and stock's, with the engine's share of the work.
  # (P-384 runs on BouncyCastle's code, as on stock: OpenSSL 3.0's is slower.)
  def verdicts(tests, native: true, &verdict)
    before = FastRandom::EC.stats[:openssl].values.sum
    ours = tests.map(&verdict)
    ran = FastRandom::EC.stats[:openssl].values.sum - before
    native ? assert_operator(ran, :>, 0, "the engine did the work") : assert_equal(0, ran, "P-384 ran natively")
    [ours, stock { tests.map(&verdict) }]
  end

  # fast_random's outcome is jruby-openssl's code's (see stock), and no Java
  # exception reaches Ruby. dsa_verify_asn1 of a DER SEQUENCE of
  # fewer than two INTEGERs raises ECError, as stock does for every other
  # signature it cannot read (and MRI for all of them; stock's verify_raw
  # answers false); ECDH with a peer off the curve raises PKeyError, as MRI.
  def assert_same_as_stock(tests, ours, theirs)
    java = tests.each_index.select { |i| ours[i].to_s.start_with?("Java::") }
    assert_empty java.map { |i| "tcId #{tests[i][1]["tcId"]}: #{ours[i]}" }, "Java exceptions reached Ruby"
    differ = tests.each_index.reject do |i|
      ours[i] == theirs[i] || (theirs[i].to_s.start_with?("Java::") && ["OpenSSL::PKey::ECError", "OpenSSL::PKey::PKeyError", false].include?(ours[i]))
    end
    assert_empty differ.map { |i| "tcId #{tests[i][1]["tcId"]}: fast_random #{ours[i].inspect}, stock #{theirs[i].inspect}" }
  end

  { "ecdsa_secp256r1_sha256_test.json" => "SHA256", "ecdsa_secp384r1_sha384_test.json" => "SHA384",
    "ecdsa_secp521r1_sha512_test.json" => "SHA512" }.each do |file, digest|
    # PKey#verify (through the provider): BouncyCastle's strict DER decoding
    # decides what a signature is, as on stock; every verdict is Wycheproof's.
    define_method("test_#{file.delete_suffix("_test.json")}_verify") do
      tests = self.class.vectors(file)["testGroups"].flat_map { |g| g["tests"].map { |t| [g, t] } }
      keys = {}
      ours, theirs = verdicts(tests, native: !file.include?("secp384r1")) do |group, test|
        key = keys[group["publicKeyDer"]] ||= TestHelper.read_der(EC, unhex(group["publicKeyDer"]))
        outcome { key.verify(digest, unhex(test["sig"]), unhex(test["msg"])) }
      end
      assert_same_as_stock(tests, ours, theirs)
      wrong = tests.each_index.reject do |i|
        tests[i][1]["result"] == "valid" ? ours[i] == true : ours[i] != true
      end
      assert_empty wrong.map { |i| "tcId #{tests[i][1]["tcId"]} (#{tests[i][1]["result"]}): #{ours[i].inspect}" }
    end

    # dsa_verify_asn1 (replaced by fast_random): the signature is read as
    # jruby-openssl reads it, leniently (BER lengths, trailing bytes), so
    # stock's verdicts are not Wycheproof's for malformed encodings; ours
    # must be stock's, and Wycheproof's for every well-formed signature.
    define_method("test_#{file.delete_suffix("_test.json")}_dsa_verify_asn1") do
      tests = self.class.vectors(file)["testGroups"].flat_map { |g| g["tests"].map { |t| [g, t] } }
      keys = {}
      ours, theirs = verdicts(tests, native: !file.include?("secp384r1")) do |group, test|
        key = keys[group["publicKeyDer"]] ||= TestHelper.read_der(EC, unhex(group["publicKeyDer"]))
        outcome { key.dsa_verify_asn1(OpenSSL::Digest.digest(digest, unhex(test["msg"])), unhex(test["sig"])) }
      end
      assert_same_as_stock(tests, ours, theirs)
      encoding_flags = %w[BerEncodedSignature InvalidEncoding ModifiedSignature InvalidSignature MissingZero]
      wrong = tests.each_index.reject do |i|
        test = tests[i][1]
        next true if (test["flags"] & encoding_flags).any? && test["result"] != "valid" # stock's lenient reading
        test["result"] == "valid" ? ours[i] == true : ours[i] != true
      end
      assert_empty wrong.map { |i| "tcId #{tests[i][1]["tcId"]} (#{tests[i][1]["result"]} #{tests[i][1]["flags"]}): #{ours[i].inspect}" }
    end
  end

  # With verification tables (ec_key.c's own step-by-step ECDSA
  # verification with a table of the key's point, which a key earns after
  # many verifications) on every key from its first one: every verdict,
  # through PKey#verify and dsa_verify_asn1, is the one without a table.
  # Each group's key and table are freed after it (at most 64 tables exist).
  { "ecdsa_secp256r1_sha256_test.json" => "SHA256", "ecdsa_secp521r1_sha512_test.json" => "SHA512" }.each do |file, digest|
    define_method("test_#{file.delete_suffix("_test.json")}_with_verification_tables") do
      engine = Java::FastrandomEc::EcEngines.current
      groups = self.class.vectors(file)["testGroups"]
      run = lambda do |after|
        Java::FastrandomJni::NativeTestHooks.verifyTables(after, 0)
        groups.map do |group|
          engine.clearCaches
          key = TestHelper.read_der(EC, unhex(group["publicKeyDer"]))
          native_before = FastRandom::EC.stats[:openssl][:verify]
          verdicts = group["tests"].map do |test|
            msg = unhex(test["msg"])
            [outcome { key.verify(digest, unhex(test["sig"]), msg) },
             outcome { key.dsa_verify_asn1(OpenSSL::Digest.digest(digest, msg), unhex(test["sig"])) }]
          end
          native = FastRandom::EC.stats[:openssl][:verify] > native_before # not if every signature is malformed
          [verdicts, native ? FastRandom::EC.stats[:verify_tables] : :none]
        end
      ensure
        Java::FastrandomJni::NativeTestHooks.verifyTables(-1, 0)
        engine.clearCaches
      end
      with = run.(1)
      without = run.(0)
      assert_operator with.count { |_, table| table == 1 }, :>=, 100
      assert_equal [], with.map(&:last) - [1, :none], "every key that verified natively had its table"
      assert_equal [], without.map(&:last) - [0, :none]
      differ = groups.each_index.flat_map do |g|
        groups[g]["tests"].each_index.filter_map do |t|
          next if with[g][0][t] == without[g][0][t]

          "tcId #{groups[g]["tests"][t]["tcId"]}: with #{with[g][0][t].inspect}, without #{without[g][0][t].inspect}"
        end
      end
      assert_empty differ
    end
  end

  { "ecdh_secp256r1_test.json" => "prime256v1", "ecdh_secp384r1_test.json" => "secp384r1",
    "ecdh_secp521r1_test.json" => "secp521r1" }.each do |file, curve|
    # ECDH, invalid-curve points among the peers: the peer's key is read by
    # jruby-openssl (OpenSSL::PKey.read), the secret derived by the engine.
    # A valid test must give Wycheproof's secret and an invalid one must
    # raise, as on stock; an acceptable one may do either, as stock does.
    define_method("test_#{file.delete_suffix("_test.json")}") do
      tests = self.class.vectors(file)["testGroups"].flat_map { |g| g["tests"].map { |t| [g, t] } }
      ours, theirs = verdicts(tests, native: curve != "secp384r1") do |_group, test|
        outcome do
          key = EC.new(curve)
          key.private_key = OpenSSL::BN.new(test["private"], 16)
          TestHelper.ecdh(key, TestHelper.read_der(EC, unhex(test["public"]))).unpack1("H*")
        end
      end
      assert_same_as_stock(tests, ours, theirs)
      wrong = tests.each_index.reject do |i|
        test = tests[i][1]
        case test["result"]
        when "valid" then ours[i] == test["shared"]
        # Where the release has no #derive, dh_compute_key takes the peer's point
        # alone, on our key's curve: a peer key on other parameters cannot be
        # refused (stock and fast_random agree, checked above).
        # A peer on the curve's own explicit parameters with the cofactor left
        # out: jruby-openssl 0.16.2 reads it (0.16.0 refuses it), as MRI's
        # OpenSSL does, as the named curve, and the secret is the right one.
        when "invalid"
          TestHelper.older_jruby_openssl? || (ours[i].is_a?(String) && ours[i] !~ /\A\h*\z/) ||
            (test["flags"].include?("NoCofactor") && ours[i] == test["shared"])
        else true
        end
      end
      assert_empty wrong.map { |i| "tcId #{tests[i][1]["tcId"]} (#{tests[i][1]["result"]} #{tests[i][1]["comment"]}): #{ours[i].inspect}" }
    end
  end
end
