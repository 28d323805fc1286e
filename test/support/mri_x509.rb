# frozen_string_literal: true

# MRI's side of the X.509 tests (test/x509/certificate_verify_test.rb):
# MRI's OpenSSL signs certificates and CRLs with RSA and EC keys and every
# digest, and checks the certificates and CRLs JRuby signed.
#
#   ruby test/support/mri_x509.rb reference        # keys and certificates, as JSON
#   ruby test/support/mri_x509.rb verify < checks  # verdicts for JRuby's certificates
#
# The JRuby side requires this file for MriX509.run, which starts MRI.
require_relative "mri_script"

module MriX509
  extend MriScript

  KEYS = { "RSA-2048" => -> { OpenSSL::PKey::RSA.new(2048) }, "P-256" => -> { OpenSSL::PKey::EC.generate("prime256v1") },
           "P-384" => -> { OpenSSL::PKey::EC.generate("secp384r1") }, "P-521" => -> { OpenSSL::PKey::EC.generate("secp521r1") } }.freeze
  DIGESTS = %w[SHA1 SHA224 SHA256 SHA384 SHA512].freeze

  # Runs this file with MRI; returns its JSON.
  def self.run(command, input = "") = run_script(__FILE__, command, input)

  # A certificate for +key+'s public half, with a few extensions, unsigned.
  def self.certificate(key, serial)
    cert = OpenSSL::X509::Certificate.new
    cert.version = 2
    cert.serial = serial
    cert.subject = cert.issuer = OpenSSL::X509::Name.parse("/CN=fast_random test #{serial}/O=fast_random")
    cert.public_key = key.is_a?(OpenSSL::PKey::EC) ? key : key.public_key
    cert.not_before = Time.at(1_700_000_000)
    cert.not_after = Time.at(1_900_000_000)
    extensions = OpenSSL::X509::ExtensionFactory.new(cert, cert)
    cert.add_extension(extensions.create_extension("basicConstraints", "CA:TRUE", true))
    cert.add_extension(extensions.create_extension("subjectKeyIdentifier", "hash"))
    cert
  end

  # A CRL issued by the test CA, with one revoked certificate, unsigned.
  def self.crl(serial)
    crl = OpenSSL::X509::CRL.new
    crl.version = 1
    crl.issuer = OpenSSL::X509::Name.parse("/CN=fast_random test CA/O=fast_random")
    crl.last_update = Time.at(1_700_000_000)
    crl.next_update = Time.at(1_900_000_000)
    revoked = OpenSSL::X509::Revoked.new
    revoked.serial = serial
    revoked.time = Time.at(1_750_000_000)
    crl.add_revoked(revoked)
    crl
  end

  # Per key: the private key (PEM), and one certificate and one CRL per digest signed by it.
  def self.reference
    require "openssl"
    KEYS.map do |label, make|
      key = make.call
      { "label" => label, "pem" => key.private_to_pem,
        "certificates" => DIGESTS.each_with_index.to_h { |digest, i| [digest, certificate(key, i + 1).tap { |c| c.sign(key, digest) }.to_pem] },
        "crls" => DIGESTS.each_with_index.to_h { |digest, i| [digest, crl(i + 1).tap { |c| c.sign(key, digest) }.to_pem] } }
    end
  end

  # [{certificate: or crl:, public_pem:}] -> MRI's verdicts.
  def self.verify(checks)
    require "openssl"
    checks.map do |check|
      signed = check["crl"] ? OpenSSL::X509::CRL.new(check["crl"]) : OpenSSL::X509::Certificate.new(check["certificate"])
      signed.verify(OpenSSL::PKey.read(check["public_pem"]))
    end
  end
end

if $PROGRAM_NAME == __FILE__
  case ARGV[0]
  when "reference" then puts JSON.generate(MriX509.reference)
  when "verify" then puts JSON.generate(MriX509.verify(JSON.parse($stdin.read)))
  else abort "usage: ruby #{__FILE__} reference|verify"
  end
end
