# frozen_string_literal: true

# Passes main, 9.4-fallback: signatures run on the RSA and EC engines, or on jruby-openssl's code without the library.

require_relative "../test_helper"
require_relative "../support/mri_x509"
require "json"
require "openssl"

# OpenSSL::X509::Certificate#sign and #verify through jruby-openssl's
# provider, so RSA PKCS#1 v1.5 and ECDSA signatures run on fast_random's
# engines (stock signs through the JVM's providers and verifies through
# BouncyCastle's own, which no hook reaches). Checked against MRI (its
# certificates verify here, ours there, every digest), and against stock:
# RSA certificates byte for byte, with extensions merged and critical, v1
# and v3; every verdict and error (wrong keys, keys of the other type,
# tampered signatures and TBS, a certificate changed after signing,
# signature algorithms that disagree, parameters absent or odd, missing
# fields, digests not taken, arguments that are no key). The engines'
# stats prove who signed and verified.
class CertificateTest < Minitest::Test
  Certificate = OpenSSL::X509::Certificate

  def self.reference
    @reference ||= MriX509.run("reference")
  end

  def setup
    FastRandom::RSA.install
    FastRandom::EC.install
  end

  def teardown
    FastRandom::RSA.install
    FastRandom::EC.install
  end

  def reference = self.class.reference

  def stock
    FastRandom::RSA.uninstall
    FastRandom::EC.uninstall
    yield
  ensure
    FastRandom::RSA.install
    FastRandom::EC.install
  end

  # A key from PEM (PKCS#8): PKey.read, or the class's own reader where an old release's PKey.read cannot.
  def read_key(pem)
    OpenSSL::PKey.read(pem)
  rescue OpenSSL::PKey::PKeyError
    pem.include?("RSA") || pem.bytesize > 1000 ? OpenSSL::PKey::RSA.new(pem) : OpenSSL::PKey::EC.new(pem)
  end

  def public_half(key)
    return key.public_key if key.is_a?(OpenSSL::PKey::RSA)
    return read_key(key.public_to_pem) if key.respond_to?(:public_to_pem)

    OpenSSL::PKey::EC.new(key.group).tap { |half| half.public_key = key.public_key } # jruby-openssl 0.15.0
  end

  # What a call gives: its value, or its exception's class and message.
  def outcome
    [:ok, yield]
  rescue StandardError => e
    [e.class.name, e.message.gsub(/0x\h+/, "0x...")]
  end

  # RSA and EC verifications the engines did during the block.
  def engine_verifications
    rsa = -> { FastRandom::RSA.stats.values_at(*FastRandom::RSA::ENGINES - [:java]).sum { |counts| counts[:public] } }
    ec = -> { FastRandom::EC.stats[:openssl][:verify] }
    before = [rsa.call, ec.call]
    yield
    [rsa.call - before[0], ec.call - before[1]]
  end

  def native? = TestHelper.libcrypto_expected?

  # MRI's certificates verify here with their key and not with another of
  # the same type; RSA-2048, P-256 and P-521 on the engines (P-384 stays on
  # BouncyCastle, as its signatures do).
  def test_mri_certificates_verify_on_the_engines
    reference.each do |entry|
      key = read_key(entry["pem"])
      other = entry["label"] == "RSA-2048" ? OpenSSL::PKey::RSA.new(2048) : OpenSSL::PKey::EC.generate(key.group.curve_name)
      entry["certificates"].each do |digest, pem|
        cert = Certificate.new(pem)
        counts = engine_verifications do
          assert_equal true, cert.verify(public_half(key)), "#{entry["label"]} #{digest}"
          assert_equal true, cert.verify(key), "#{entry["label"]} #{digest}, the private key"
        end
        # (Not counted: a signature above another RSA key's modulus is refused before any arithmetic.)
        assert_equal false, cert.verify(public_half(other)), "#{entry["label"]} #{digest}, another key"
        expected = if !native? || entry["label"] == "P-384" then [0, 0]
                   elsif entry["label"] == "RSA-2048" then [2, 0]
                   else [0, 2]
                   end
        expected = [2, 0] if entry["label"] == "RSA-2048" && FastRandom::RSA.engine != :java # :gmp without the library
        assert_equal expected, counts, "#{entry["label"]} #{digest}: engine verifications [rsa, ec]"
      end
    end
  end

  # Certificates signed here verify in MRI, and here, with every digest.
  def test_certificates_signed_here_verify_in_mri
    checks = reference.flat_map do |entry|
      key = read_key(entry["pem"])
      MriX509::DIGESTS.map.with_index do |digest, i|
        cert = MriX509.certificate(key, 100 + i)
        cert.sign(key, digest)
        assert cert.verify(public_half(key)), "#{entry["label"]} #{digest}"
        { "certificate" => cert.to_pem, "public_pem" => public_half(key).to_pem }
      end
    end
    assert_equal [true] * checks.size, MriX509.run("verify", JSON.generate(checks))
  end

  # Every odd case gives stock's answer, value or error.
  def test_odd_cases_answer_as_stock
    rsa = read_key(reference.first["pem"])
    ec = read_key(reference[1]["pem"])
    rsa_cert = Certificate.new(reference.first["certificates"]["SHA256"])
    ec_cert = Certificate.new(reference[1]["certificates"]["SHA256"])
    changed = Certificate.new(rsa_cert.to_pem).tap { |c| c.subject = OpenSSL::X509::Name.parse("/CN=changed") }
    unsigned = MriX509.certificate(rsa, 7)
    cases = {
      "EC key, RSA certificate" => -> { rsa_cert.verify(ec) },
      "RSA key, EC certificate" => -> { ec_cert.verify(rsa) },
      "changed after signing" => -> { changed.verify(rsa) },
      "never signed" => -> { unsigned.verify(rsa) },
      "nil" => -> { rsa_cert.verify(nil) },
      "a string" => -> { rsa_cert.verify("key") },
      "no argument" => -> { rsa_cert.verify },
      "two arguments" => -> { rsa_cert.verify(rsa, rsa) },
      "tampered RSA signature" => -> { tampered(rsa_cert, :signature).verify(rsa) },
      "tampered EC signature" => -> { tampered(ec_cert, :signature).verify(ec) },
      "EC signature not DER" => -> { tampered(ec_cert, :garbage).verify(ec) },
      "tampered TBS" => -> { tampered(rsa_cert, :tbs).verify(rsa) },
      "outer algorithm differs" => -> { tampered(rsa_cert, :outer_sha1).verify(rsa) },
      "RSA parameters absent" => -> { tampered(rsa_cert, :absent_params).verify(rsa) },
      "RSA parameters NULL outside, absent inside" => -> { tampered(rsa_cert, :absent_inside).verify(rsa) },
      "RSA parameters absent outside, NULL inside" => -> { tampered(rsa_cert, :absent_outside).verify(rsa) },
      "ECDSA with NULL parameters inside only" => -> { tampered(ec_cert, :null_inside).verify(ec) },
      "ECDSA with NULL parameters" => -> { tampered(ec_cert, :null_params).verify(ec) },
    }
    cases.each do |label, call|
      assert_equal stock { outcome(&call) }, outcome(&call), label
    end
  end

  # The certificate re-encoded with one change (the signature's validity
  # aside: these test the verdicts and errors, not the signer).
  def tampered(cert, how)
    asn1 = OpenSSL::ASN1.decode(cert.to_der)
    tbs, algorithm, signature = asn1.value
    case how
    when :signature then signature.value = signature.value.dup.tap { |s| s.setbyte(s.bytesize - 1, s.getbyte(s.bytesize - 1) ^ 1) }
    when :garbage then signature.value = "not a DER signature"
    when :tbs then tbs.value[1].value += 1 # the serial number
    when :outer_sha1 then algorithm.value[0] = OpenSSL::ASN1::ObjectId("sha1WithRSAEncryption")
    when :absent_params
      algorithm.value = [algorithm.value[0]]
      tbs.value[2].value = [tbs.value[2].value[0]]
    when :absent_inside then tbs.value[2].value = [tbs.value[2].value[0]]
    when :absent_outside then algorithm.value = [algorithm.value[0]]
    when :null_inside then tbs.value[2].value = [tbs.value[2].value[0], OpenSSL::ASN1::Null(nil)]
    when :null_params
      algorithm.value = [algorithm.value[0], OpenSSL::ASN1::Null(nil)]
      tbs.value[2].value = [tbs.value[2].value[0], OpenSSL::ASN1::Null(nil)]
    end
    Certificate.new(OpenSSL::ASN1::Sequence([tbs, algorithm, signature]).to_der)
  end

  # A certificate to sign: +extensions+ as [name, value, critical].
  def unsigned(key, serial: 1, version: 2, extensions: [])
    cert = OpenSSL::X509::Certificate.new
    cert.version = version
    cert.serial = serial
    cert.subject = cert.issuer = OpenSSL::X509::Name.parse("/CN=fast_random #{serial}/O=fast_random")
    cert.public_key = key.is_a?(OpenSSL::PKey::RSA) ? key.public_key : public_half(key)
    cert.not_before = Time.at(1_700_000_000)
    cert.not_after = Time.at(1_900_000_000)
    factory = OpenSSL::X509::ExtensionFactory.new(cert, cert)
    extensions.each { |name, value, critical| cert.add_extension(factory.create_extension(name, value, critical)) }
    cert
  end

  EXTENSIONS = [["basicConstraints", "CA:TRUE", true], ["keyUsage", "keyCertSign, cRLSign", true],
                ["subjectKeyIdentifier", "hash", false], ["subjectAltName", "DNS:a.example", false],
                ["subjectAltName", "DNS:b.example, IP:10.0.0.1", false], ["extendedKeyUsage", "serverAuth", false]].freeze

  # RSA certificates signed here are stock's, byte for byte, for every
  # digest (as a String or a Digest), v1 and v3, with extensions merged as
  # jruby-openssl merges them; the engine signed them.
  def test_rsa_certificates_are_stock_s_byte_for_byte
    key = read_key(reference.first["pem"])
    MriX509::DIGESTS.each do |digest|
      [digest, digest.downcase, OpenSSL::Digest.new(digest)].each do |given|
        [[0, []], [2, []], [2, EXTENSIONS]].each do |version, extensions|
          mine = unsigned(key, version: version, extensions: extensions)
          before = FastRandom::RSA.stats
          mine.sign(key, given)
          after = FastRandom::RSA.stats
          theirs = unsigned(key, version: version, extensions: extensions)
          stock { theirs.sign(key, given) }
          label = "#{given.inspect} v#{version + 1} #{extensions.size} extensions"
          assert_equal theirs.to_der, mine.to_der, label
          assert_equal theirs.signature_algorithm, mine.signature_algorithm, label
          assert mine.verify(key), label
          engine = FastRandom::RSA.engine
          assert_equal 1, after[engine][:private] - before[engine][:private], "#{label}: signed on #{engine}" unless engine == :java
        end
      end
    end
  end

  # EC certificates (randomized signatures): the same TBS as stock's, and
  # they verify here, in stock and in MRI; P-256 and P-521 signed on the engine.
  def test_ec_certificates_match_stock_s_and_verify_everywhere
    checks = reference.drop(1).flat_map do |entry|
      key = read_key(entry["pem"])
      MriX509::DIGESTS.map do |digest|
        mine = unsigned(key, extensions: EXTENSIONS)
        before = FastRandom::EC.stats[:openssl][:sign]
        mine.sign(key, digest)
        signed_here = FastRandom::EC.stats[:openssl][:sign] - before
        theirs = unsigned(key, extensions: EXTENSIONS)
        stock { theirs.sign(key, digest) }
        label = "#{entry["label"]} #{digest}"
        assert_equal OpenSSL::ASN1.decode(theirs.to_der).value[0].to_der, OpenSSL::ASN1.decode(mine.to_der).value[0].to_der, label
        assert_equal theirs.signature_algorithm, mine.signature_algorithm, label
        assert stock { mine.verify(public_half(key)) }, "#{label}: stock verifies it"
        assert mine.verify(public_half(key)), label
        assert_equal(native? && entry["label"] != "P-384" ? 1 : 0, signed_here, "#{label}: on the engine")
        { "certificate" => mine.to_pem, "public_pem" => public_half(key).to_pem }
      end
    end
    assert_equal [true] * checks.size, MriX509.run("verify", JSON.generate(checks))
  end

  # Whatever sign does not take, and every error, is stock's.
  def test_sign_odd_cases_answer_as_stock
    rsa = read_key(reference.first["pem"])
    ec = read_key(reference[1]["pem"])
    no_issuer = -> { unsigned(rsa).tap { |c| c.issuer = OpenSSL::X509::Name.new } }
    cases = {
      "MD5" => -> { unsigned(rsa).sign(rsa, "MD5") },
      "SHA3-256" => -> { unsigned(rsa).sign(rsa, "SHA3-256") },
      "DSS1" => -> { unsigned(rsa).sign(rsa, "DSS1") },
      "unknown digest" => -> { unsigned(rsa).sign(rsa, "NOPE") },
      "nil digest" => -> { unsigned(rsa).sign(rsa, nil) },
      "a public key" => -> { unsigned(rsa).sign(rsa.public_key, "SHA256") },
      "not a key" => -> { unsigned(rsa).sign("key", "SHA256") },
      "nil key" => -> { unsigned(rsa).sign(nil, "SHA256") },
      "one argument" => -> { unsigned(rsa).sign(rsa) },
      "no public key" => -> { OpenSSL::X509::Certificate.new.tap { |c| c.serial = 1 }.sign(rsa, "SHA256") },
      "empty issuer" => -> { no_issuer.call.sign(rsa, "SHA256") },
      "EC key, RSA certificate" => -> { unsigned(rsa).sign(ec, "SHA256").verify(ec) },
    }
    cases.each do |label, call|
      theirs = stock { outcome { der_or_value(call.call) } }
      assert_equal theirs, outcome { der_or_value(call.call) }, label
    end
  end

  # A certificate's DER where signing is deterministic (RSA), else its class and algorithm.
  def der_or_value(value)
    return value unless value.is_a?(Certificate)

    value.signature_algorithm.include?("RSA") ? value.to_der : [value.class, value.signature_algorithm]
  end

  # MRI's CRLs verify here on the engines (P-384 on BouncyCastle), and not
  # with another key; CRLs signed here (by jruby-openssl's own sign) verify
  # here and in MRI.
  def test_crls_verify_on_the_engines_and_in_mri
    checks = reference.flat_map do |entry|
      key = read_key(entry["pem"])
      other = entry["label"] == "RSA-2048" ? OpenSSL::PKey::RSA.new(2048) : OpenSSL::PKey::EC.generate(key.group.curve_name)
      entry["crls"].map do |digest, pem|
        crl = OpenSSL::X509::CRL.new(pem)
        label = "#{entry["label"]} #{digest}"
        counts = engine_verifications { assert_equal true, crl.verify(public_half(key)), label }
        expected = if entry["label"] == "RSA-2048" then [FastRandom::RSA.engine == :java ? 0 : 1, 0] # :gmp without the library
                   elsif native? && entry["label"] != "P-384" then [0, 1]
                   else [0, 0]
                   end
        assert_equal expected, counts, "#{label}: engine verifications [rsa, ec]"
        assert_equal false, crl.verify(public_half(other)), "#{label}, another key"
        mine = MriX509.crl(7).tap { |c| c.sign(key, digest) }
        assert mine.verify(public_half(key)), "#{label}, signed here"
        { "crl" => mine.to_pem, "public_pem" => public_half(key).to_pem }
      end
    end
    assert_equal [true] * checks.size, MriX509.run("verify", JSON.generate(checks))
  end

  # Every odd CRL case gives stock's answer.
  def test_crl_odd_cases_answer_as_stock
    rsa = read_key(reference.first["pem"])
    ec = read_key(reference[1]["pem"])
    rsa_crl = OpenSSL::X509::CRL.new(reference.first["crls"]["SHA256"])
    ec_crl = OpenSSL::X509::CRL.new(reference[1]["crls"]["SHA256"])
    changed = OpenSSL::X509::CRL.new(rsa_crl.to_pem).tap { |c| c.next_update = Time.at(1_950_000_000) }
    cases = {
      "EC key, RSA CRL" => -> { rsa_crl.verify(ec) },
      "RSA key, EC CRL" => -> { ec_crl.verify(rsa) },
      "changed after signing" => -> { changed.verify(rsa) },
      "nil" => -> { rsa_crl.verify(nil) },
      "a string" => -> { rsa_crl.verify("key") },
      "no argument" => -> { rsa_crl.verify },
      "tampered RSA signature" => -> { tampered_crl(rsa_crl, :signature).verify(rsa) },
      "tampered EC signature" => -> { tampered_crl(ec_crl, :signature).verify(ec) },
      "EC signature not DER" => -> { tampered_crl(ec_crl, :garbage).verify(ec) },
      "tampered TBS" => -> { tampered_crl(rsa_crl, :tbs).verify(rsa) },
      "outer algorithm differs" => -> { tampered_crl(rsa_crl, :outer_sha1).verify(rsa) },
      "RSA parameters absent outside" => -> { tampered_crl(rsa_crl, :absent_outside).verify(rsa) },
      "RSA parameters absent both" => -> { tampered_crl(rsa_crl, :absent_params).verify(rsa) },
    }
    cases.each do |label, call|
      assert_equal stock { outcome(&call) }, outcome(&call), label
    end
  end

  # A CRL re-encoded with one change.
  def tampered_crl(crl, how)
    tbs, algorithm, signature = OpenSSL::ASN1.decode(crl.to_der).value
    tbs_algorithm = tbs.value.find { |node| node.is_a?(OpenSSL::ASN1::Sequence) }
    case how
    when :signature then signature.value = signature.value.dup.tap { |s| s.setbyte(s.bytesize - 1, s.getbyte(s.bytesize - 1) ^ 1) }
    when :garbage then signature.value = "not a DER signature"
    when :tbs then tbs.value[-2].value = Time.at(1_950_000_000) # nextUpdate
    when :outer_sha1 then algorithm.value[0] = OpenSSL::ASN1::ObjectId("sha1WithRSAEncryption")
    when :absent_outside then algorithm.value = [algorithm.value[0]]
    when :absent_params
      algorithm.value = [algorithm.value[0]]
      tbs_algorithm.value = [tbs_algorithm.value[0]]
    end
    OpenSSL::X509::CRL.new(OpenSSL::ASN1::Sequence([tbs, algorithm, signature]).to_der)
  end

  # Verification leaves the engines for stock's code when RSA and EC are uninstalled.
  def test_uninstalled_is_stock
    entry = reference.first
    cert = Certificate.new(entry["certificates"]["SHA256"])
    key = read_key(entry["pem"])
    counts = stock { engine_verifications { assert cert.verify(key) } }
    assert_equal [0, 0], counts
  end
end
