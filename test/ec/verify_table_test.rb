# frozen_string_literal: true

# Passes main: the tables are libcrypto's, which no hidden CPU feature changes; without the library there are none.

require_relative "../test_helper"
require_relative "../support/mri_ec"
require "json"
require "openssl"

# Verification tables (ext/fast_random_native/ec_key.c): a P-256 or
# P-521 public key that keeps verifying gets precomputed multiples of its
# point, and its verifications then run on fast_random's step-by-step
# ECDSA verification instead of ECDSA_do_verify. These tests force the
# tables early (EcKey.verifyTables) and check what users rely on: every
# verdict is the same as without a table (MRI's signatures, tampered ones,
# out-of-range r and s; Wycheproof's vectors: test/ec/wycheproof_test.rb),
# a key earns its table exactly once however many threads verify with it,
# a failed build leaves verification correct, at most 64 exist, a key
# refused at the limit gets a table once one is freed, a table goes with
# its key, and a verification whose table path fails counts as what ran.
class EcVerifyTableTest < Minitest::Test
  EC = OpenSSL::PKey::EC
  MESSAGE = MriEc::MESSAGE
  EcKey = Java::FastrandomJni::EcKey
  LibCrypto = Java::FastrandomJni::LibCrypto
  TABLE_CURVES = { "prime256v1" => "SHA256", "secp521r1" => "SHA512" }.freeze

  def setup
    skip "libcrypto unavailable on purpose in this pass" unless TestHelper.libcrypto_expected?
    FastRandom::EC.install
    engine.clearCaches # the tables of earlier tests' keys go with them
  end

  def teardown
    Java::FastrandomJni::NativeTestHooks.verifyTables(-1, 0) if LibCrypto.load
    engine&.clearCaches
  end

  def engine = Java::FastrandomEc::EcEngines.current

  def tables = FastRandom::EC.stats[:verify_tables]

  # Verdicts that must hold for a key, with or without its table: through
  # PKey#verify, and through dsa_verify_asn1 for r and s out of range (whose
  # lenient reading lets them reach the native verification).
  def verdicts(key, digest, mri_signature)
    signature = key.sign(digest, MESSAGE)
    hashed = OpenSSL::Digest.digest(digest, MESSAGE)
    r, s = OpenSSL::ASN1.decode(signature).value.map(&:value)
    order = key.group.order
    raw = ->(a, b) { key.dsa_verify_asn1(hashed, OpenSSL::ASN1::Sequence([OpenSSL::ASN1::Integer(a), OpenSSL::ASN1::Integer(b)]).to_der) }
    {
      mine: key.verify(digest, signature, MESSAGE),
      mri: mri_signature.nil? || key.verify(digest, mri_signature, MESSAGE),
      other_message: key.verify(digest, signature, "#{MESSAGE}!"),
      raw: raw.(r, s),
      negated_s: raw.(r, order - s), # ECDSA accepts (r, n - s) too
      s_plus_one: raw.(r, s + 1),
      r_plus_order: raw.(r + order, s),
      r_zero: raw.(0, s),
      s_zero: raw.(r, 0),
      s_order: raw.(r, order),
    }
  end

  EXPECTED = { mine: true, mri: true, other_message: false, raw: true, negated_s: true,
               s_plus_one: false, r_plus_order: false, r_zero: false, s_zero: false, s_order: false }.freeze

  def test_a_key_earns_its_table_after_its_verifications_and_verdicts_stay_the_same
    reference = MriEc.run("reference").to_h { |ref| [ref["curve"], ref] }
    TABLE_CURVES.each do |curve, digest|
      ref = reference.fetch(curve)
      mri_signature = MriEc.unhex(ref["sign"][digest])
      Java::FastrandomJni::NativeTestHooks.verifyTables(5, 0)
      key = EC.new(ref["keys"][0]["pem"])
      before = tables
      4.times { assert key.verify(digest, mri_signature, MESSAGE), "MRI's #{curve} signature" }
      assert_equal before, tables, "#{curve}: no table before the fifth verification"
      assert key.verify(digest, mri_signature, MESSAGE)
      assert_equal before + 1, tables, "#{curve}: the fifth verification builds the table"
      assert_equal EXPECTED, verdicts(key, digest, mri_signature), "#{curve} with its table"
      assert_equal before + 1, tables, "#{curve}: one table per key"

      Java::FastrandomJni::NativeTestHooks.verifyTables(0, 0)
      assert_equal EXPECTED, verdicts(EC.new(ref["keys"][0]["pem"]), digest, mri_signature), "#{curve} without"
    end
  end

  def test_signatures_made_here_verify_with_tables_in_mri
    Java::FastrandomJni::NativeTestHooks.verifyTables(1, 0)
    TABLE_CURVES.each do |curve, digest|
      key = EC.generate(curve)
      signatures = Array.new(3) { key.sign(digest, MESSAGE) }
      checks = signatures.map { |sig| { "public_pem" => TestHelper.public_pem(key), "digest" => digest, "signature" => MriEc.hex(sig) } }
      assert_equal [true] * 3, MriEc.run("verify", JSON.generate(checks)), curve
      assert_equal [true] * 3, signatures.map { |sig| key.verify(digest, sig, MESSAGE) }, curve
    end
  end

  # Many threads past the threshold at once: one builds, the others verify
  # without it meanwhile, all verdicts right, one table.
  def test_threads_verifying_while_the_table_is_built
    Java::FastrandomJni::NativeTestHooks.verifyTables(50, 0)
    key = EC.generate("prime256v1")
    good = key.sign("SHA256", MESSAGE)
    bad = EC.generate("prime256v1").sign("SHA256", MESSAGE)
    before = tables
    results = Array.new(4) do
      Thread.new { Array.new(100) { |i| i.even? ? key.verify("SHA256", good, MESSAGE) : !key.verify("SHA256", bad, MESSAGE) } }
    end.flat_map(&:value)
    assert_equal [true] * 400, results
    assert_equal before + 1, tables
  end

  # Fault injection at the table's build (as when OpenSSL runs out of
  # memory): the key verifies correctly without a table, for good; the next
  # key gets one.
  def test_a_failed_build_leaves_verification_correct_and_the_next_key_gets_a_table
    Java::FastrandomJni::NativeTestHooks.verifyTables(1, 1)
    before = tables
    key = EC.generate("prime256v1")
    good = key.sign("SHA256", MESSAGE)
    assert_equal [true, false] * 3, Array.new(3) { [key.verify("SHA256", good, MESSAGE), key.verify("SHA256", good, "x")] }.flatten
    assert_equal before, tables, "the failed build left no table"
    assert_equal EXPECTED, verdicts(key, "SHA256", nil)
    assert_equal before, tables, "a key whose build failed does not try again"

    other = EC.generate("prime256v1")
    assert other.verify("SHA256", other.sign("SHA256", MESSAGE), MESSAGE)
    assert_equal before + 1, tables, "the next key's build succeeds"
  end

  # At most 64 at once; keys past the limit verify as before; tables are
  # freed with their keys.
  def test_at_most_64_tables_and_they_go_with_their_keys
    Java::FastrandomJni::NativeTestHooks.verifyTables(1, 0)
    keys = Array.new(70) { EC.generate("secp521r1") } # P-521's table builds in a fraction of a millisecond
    verified = keys.map { |key| key.verify("SHA512", key.sign("SHA512", MESSAGE), MESSAGE) }
    assert_equal [true] * 70, verified
    assert_equal 64, tables
    assert_equal [false] * 70, keys.map { |key| key.verify("SHA512", key.sign("SHA512", MESSAGE), "x") }
    engine.clearCaches
    assert_equal 0, tables
  end

  # A P-521 public key as a native key of its own (each gets its own
  # table), and a signature it verifies: [make, verify].
  def native_p521
    key = EC.generate("secp521r1")
    point = key.public_key.to_octet_string(:uncompressed)
    half = (point.bytesize - 1) / 2
    x, y = [point[1, half], point[1 + half, half]].map { |c| java.math.BigInteger.new(1, c.to_java_bytes) }
    r, s = OpenSSL::ASN1.decode(key.sign("SHA512", MESSAGE)).value.map { |v| java.math.BigInteger.new(v.value.to_s) }
    data = MESSAGE.to_java_bytes
    hash = LibCrypto::Hash::SHA512
    [-> { EcKey.newPublicKey(716, x, y) }, ->(native) { native.verify(hash, data, 0, data.length, false, r, s) }]
  end

  # A key refused a table while 64 others held theirs asks again after
  # another `after` verifications, and gets one once a slot is free.
  def test_a_key_refused_at_the_limit_gets_a_table_once_one_is_freed
    Java::FastrandomJni::NativeTestHooks.verifyTables(3, 0)
    make, verify = native_p521
    fillers = []
    while tables < 64 && fillers.size < 64
      fillers << make.()
      assert_equal [true] * 3, Array.new(3) { verify.(fillers.last) }
    end
    assert_equal 64, tables, "64 tables to begin with"
    late = make.()
    assert_equal [true] * 3, Array.new(3) { verify.(late) }
    assert_equal 64, tables, "refused at the limit"
    fillers.pop.close
    assert_equal 63, tables, "a table goes with its key"
    assert_equal [true] * 2, Array.new(2) { verify.(late) }
    assert_equal 63, tables, "not before another 3 verifications"
    assert verify.(late)
    assert_equal 64, tables, "the refused key gets the free slot"
    fillers.pop.close
    assert_equal [true] * 6, Array.new(6) { verify.(late) }
    assert_equal 63, tables, "a key holding a table does not take a second one"
  ensure
    fillers&.each(&:close)
    late&.close
  end

  # A verification whose table path fails midway (an OpenSSL call, as when
  # out of memory) is decided by ECDSA_do_verify, rightly, and counted as
  # what ran: an openssl verification, not a table verification.
  def test_a_failed_table_verification_counts_as_what_ran
    Java::FastrandomJni::NativeTestHooks.verifyTables(1, 0)
    TABLE_CURVES.each do |curve, digest|
      key = EC.generate(curve)
      good = key.sign(digest, MESSAGE)
      assert key.verify(digest, good, MESSAGE) # builds the table
      counts = lambda do |&block|
        before = FastRandom::EC.stats
        verdict = block.()
        after = FastRandom::EC.stats
        [verdict, after[:openssl][:verify] - before[:openssl][:verify], after[:table_verifications] - before[:table_verifications]]
      end
      assert_equal [true, 1, 1], counts.() { key.verify(digest, good, MESSAGE) }, "#{curve}: on the table"
      Java::FastrandomJni::NativeTestHooks.injectTableVerifyFailures(2)
      assert_equal [true, 1, 0], counts.() { key.verify(digest, good, MESSAGE) }, "#{curve}: the table path failed"
      assert_equal [false, 1, 0], counts.() { key.verify(digest, good, "#{MESSAGE}!") }, "#{curve}: failed, wrong message"
      assert_equal [true, 1, 1], counts.() { key.verify(digest, good, MESSAGE) }, "#{curve}: on the table again"
    end
  ensure
    Java::FastrandomJni::NativeTestHooks.injectTableVerifyFailures(0) if LibCrypto.load
  end

  # Curves whose OpenSSL multiplication is generic code (P-384, secp256k1)
  # never get a table: with one, they would verify slower. Asked of the
  # native key itself (jruby-openssl's keys on these curves stay on
  # BouncyCastle, see EcCurve.beatsBouncyCastle).
  def test_generic_curves_get_no_table
    Java::FastrandomJni::NativeTestHooks.verifyTables(1, 0)
    { "secp384r1" => [715, "SHA384"], "secp256k1" => [714, "SHA256"] }.each do |curve, (nid, digest)|
      key = EC.generate(curve)
      point = key.public_key.to_octet_string(:uncompressed)
      half = (point.bytesize - 1) / 2
      x, y = [point[1, half], point[1 + half, half]].map { |c| java.math.BigInteger.new(1, c.to_java_bytes) }
      native = EcKey.newPublicKey(nid, x, y)
      r, s = OpenSSL::ASN1.decode(key.sign(digest, MESSAGE)).value.map { |v| java.math.BigInteger.new(v.value.to_s) }
      data = MESSAGE.to_java_bytes
      hash = LibCrypto::Hash.valueOf(digest)
      before = tables
      assert_equal [true] * 3, Array.new(3) { native.verify(hash, data, 0, data.length, false, r, s) }, curve
      refute native.verify(hash, data, 0, data.length - 1, false, r, s), curve
      assert_equal before, tables, curve
      native.close
    end
  end
end
