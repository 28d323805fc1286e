# frozen_string_literal: true

# MRI's side of the RSA tests (test/rsa/pkey_test.rb): MRI's OpenSSL makes
# the keys and the reference results, and checks what JRuby signed.
#
#   ruby test/support/mri_rsa.rb reference         # keys and results, as JSON
#   ruby test/support/mri_rsa.rb verify < checks   # verdicts for JRuby's PSS signatures
#
# The JRuby side requires this file for MriRsa.run, which starts MRI.
require_relative "mri_script"

module MriRsa
  extend MriScript

  MESSAGE = "fast_random: the same bytes everywhere"
  DIGESTS = %w[SHA1 SHA256 SHA384 SHA512].freeze
  # [bits, public exponent]: every size the issue names, with e = 65537 and e = 3.
  KEYS = [[1024, 65_537], [1024, 3], [2048, 65_537], [2048, 3], [3072, 65_537], [3072, 3],
          [4096, 65_537], [4096, 3]].freeze

  # Runs this file with MRI; returns its JSON.
  def self.run(command, input = "") = run_script(__FILE__, command, input)

  # Keys (PKCS#1 PEM and PKCS#8 DER), and for each: PKCS#1 v1.5 signatures of
  # MESSAGE, sign_raw of its SHA-256, private_encrypt with PKCS#1 and with no
  # padding, ciphertexts for JRuby to decrypt (PKCS#1 and OAEP), and a PSS
  # signature for JRuby to verify.
  def self.reference
    require "openssl"
    KEYS.map do |bits, e|
      key = OpenSSL::PKey::RSA.new(bits, e)
      block = "\x01".b + OpenSSL::Random.random_bytes(bits / 8 - 1) # a full-length block below n
      {
        "bits" => bits, "e" => e, "pem" => key.to_pem, "der" => hex(key.private_to_der),
        "public_pem" => key.public_key.to_pem,
        "sign" => DIGESTS.to_h { |d| [d, hex(key.sign(d, MESSAGE))] },
        "sign_raw" => hex(key.sign_raw("SHA256", OpenSSL::Digest.digest("SHA256", MESSAGE))),
        "private_encrypt" => hex(key.private_encrypt(MESSAGE)),
        "raw_block" => hex(block),
        "private_encrypt_raw" => hex(key.private_encrypt(block, OpenSSL::PKey::RSA::NO_PADDING)),
        "public_encrypt_pkcs1" => hex(key.public_encrypt(MESSAGE)),
        "public_encrypt_oaep" => hex(key.public_encrypt(MESSAGE, OpenSSL::PKey::RSA::PKCS1_OAEP_PADDING)),
        "sign_pss" => hex(key.sign_pss("SHA256", MESSAGE, salt_length: :digest, mgf1_hash: "SHA256")),
      }
    end
  end

  # For each check {"public_pem", "digest", "signature", "salt_length"}
  # (salt length an Integer or "auto"): does MRI's verify_pss accept it?
  def self.verify(checks)
    require "openssl"
    checks.map do |check|
      key = OpenSSL::PKey::RSA.new(check.fetch("public_pem"))
      salt = check.fetch("salt_length")
      salt = salt.to_sym if salt.is_a?(String)
      key.verify_pss(check.fetch("digest"), unhex(check.fetch("signature")), check.fetch("data", MESSAGE),
                     salt_length: salt, mgf1_hash: check.fetch("mgf1", check.fetch("digest")))
    end
  end
end

if $PROGRAM_NAME == __FILE__
  result = case ARGV.first
           when "reference" then MriRsa.reference
           when "verify" then MriRsa.verify(JSON.parse($stdin.read))
           else abort "usage: ruby #{__FILE__} reference|verify"
           end
  puts JSON.generate(result)
end
