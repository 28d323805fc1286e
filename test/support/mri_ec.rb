# frozen_string_literal: true

# MRI's side of the EC tests (test/ec/engine_test.rb): MRI's OpenSSL makes
# keys on every curve fast_random's EC engine takes, signs with them and
# derives ECDH secrets, and checks what JRuby signed.
#
#   ruby test/support/mri_ec.rb reference        # keys, signatures, secrets, as JSON
#   ruby test/support/mri_ec.rb verify < checks  # verdicts for JRuby's signatures
#   ruby test/support/mri_ec.rb check_generated < keys  # MRI's view of keys JRuby generated
#   ruby test/support/mri_ec.rb eddsa_sign < entries    # MRI's EdDSA signatures
#
# The JRuby side requires this file for MriEc.run, which starts MRI.
require_relative "mri_script"

module MriEc
  extend MriScript

  CURVES = %w[prime256v1 secp384r1 secp521r1 secp256k1].freeze
  DIGESTS = %w[SHA1 SHA224 SHA256 SHA384 SHA512].freeze
  MESSAGE = "fast_random: the same bytes everywhere"

  # Runs this file with MRI; returns its JSON.
  def self.run(command, input = "") = run_script(__FILE__, command, input)

  # Per curve, two keys (PEM and PKCS#8 DER, their public halves, the
  # private scalar and public point), MRI's signatures of MESSAGE with every
  # digest and of one digest with dsa_sign_asn1, and the ECDH secret of the two.
  def self.reference
    require "openssl"
    CURVES.map do |curve|
      keys = Array.new(2) { OpenSSL::PKey::EC.generate(curve) }
      digest = OpenSSL::Digest.digest("SHA256", MESSAGE)
      {
        "curve" => curve,
        "keys" => keys.map do |key|
          { "pem" => key.to_pem, "der" => hex(key.private_to_der), "public_pem" => key.public_to_pem,
            "private" => key.private_key.to_s(16), "public" => hex(key.public_key.to_octet_string(:uncompressed)) }
        end,
        "sign" => DIGESTS.to_h { |d| [d, hex(keys[0].sign(d, MESSAGE))] },
        "dsa_sign_asn1" => hex(keys[0].dsa_sign_asn1(digest)),
        "secret" => hex(keys[0].derive(keys[1])),
      }
    end
  end

  # [{public_pem:, digest:, signature:, asn1: bool}] -> verdicts.
  def self.verify(checks)
    require "openssl"
    checks.map do |check|
      key = OpenSSL::PKey.read(check["public_pem"])
      signature = unhex(check["signature"])
      if check["asn1"]
        key.dsa_verify_asn1(OpenSSL::Digest.digest("SHA256", MESSAGE), signature)
      else
        key.verify(check["digest"], signature, MESSAGE)
      end
    end
  end

  # PKCS#8 prefixes of a raw EdDSA seed (RFC 8410), by type.
  EDDSA_PKCS8 = { "ED25519" => "302e020100300506032b657004220420", "ED448" => "3047020100300506032b6571043b0439" }.freeze

  # [{type:, seed:, message:}] (hex) -> MRI's signatures (hex).
  def self.eddsa_sign(entries)
    require "openssl"
    entries.map do |entry|
      key = OpenSSL::PKey.read(unhex(EDDSA_PKCS8.fetch(entry["type"]) + entry["seed"]))
      hex(key.sign(nil, unhex(entry["message"])))
    end
  end

  # [{curve:, private:, public:, peer_public:}] (hex; points uncompressed)
  # -> for each key made by JRuby: whether OpenSSL's check_key accepts it
  # (its point is d G, on the curve) and its ECDH secret with the peer
  # (hex). The keys are built from their values, so any release's encoding
  # of them is beside the point.
  def self.check_generated(keys)
    require "openssl"
    keys.map do |entry|
      key = ec_key(entry["curve"], entry["private"], entry["public"])
      peer = ec_key(entry["curve"], nil, entry["peer_public"])
      { "check_key" => key.check_key, "curve" => key.group.curve_name, "secret" => hex(key.derive(peer)) }
    end
  end

  # An EC key from its values (hex), as DER: RFC 5915's ECPrivateKey, or a SubjectPublicKeyInfo.
  def self.ec_key(curve, private_hex, public_hex)
    asn1 = OpenSSL::ASN1
    point = asn1::BitString(unhex(public_hex))
    der = if private_hex
            asn1::Sequence([asn1::Integer(1), asn1::OctetString(unhex(private_hex)),
                            asn1::ObjectId(curve, 0, :EXPLICIT), asn1::BitString(point.value, 1, :EXPLICIT)]).to_der
          else
            asn1::Sequence([asn1::Sequence([asn1::ObjectId("id-ecPublicKey"), asn1::ObjectId(curve)]), point]).to_der
          end
    OpenSSL::PKey::EC.new(der)
  end
end

if $PROGRAM_NAME == __FILE__
  case ARGV[0]
  when "reference" then puts JSON.generate(MriEc.reference)
  when "verify" then puts JSON.generate(MriEc.verify(JSON.parse($stdin.read)))
  when "eddsa_sign" then puts JSON.generate(MriEc.eddsa_sign(JSON.parse($stdin.read)))
  when "check_generated" then puts JSON.generate(MriEc.check_generated(JSON.parse($stdin.read)))
  else abort "usage: ruby #{__FILE__} reference|verify"
  end
end
