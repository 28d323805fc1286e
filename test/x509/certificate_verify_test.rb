# frozen_string_literal: true

# Passes main, 9.4-fallback: verification runs on the RSA and EC engines, or on jruby-openssl's code without the library.

require_relative "../test_helper"
require_relative "../support/mri_x509"
require "json"
require "openssl"

# OpenSSL::X509::Certificate#verify through jruby-openssl's provider, so
# RSA PKCS#1 v1.5 and ECDSA signatures run on fast_random's engines
# (stock asks BouncyCastle's own provider, which no hook reaches). Checked
# against MRI (its certificates verify here, ours there, every digest) and
# against stock for every verdict and error: wrong keys, keys of the other
# type, tampered signatures and TBS, a certificate changed after signing,
# signature algorithms that disagree, parameters absent or odd, arguments
# that are no key. The engines' stats prove who verified.
class CertificateVerifyTest < Minitest::Test
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
    rsa = -> { FastRandom::RSA.stats.except(:java, :fallbacks).sum { |_engine, counts| counts[:public] } }
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
    when :null_params
      algorithm.value = [algorithm.value[0], OpenSSL::ASN1::Null(nil)]
      tbs.value[2].value = [tbs.value[2].value[0], OpenSSL::ASN1::Null(nil)]
    end
    Certificate.new(OpenSSL::ASN1::Sequence([tbs, algorithm, signature]).to_der)
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
