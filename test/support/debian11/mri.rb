# frozen_string_literal: true

# MRI's side of the Debian 11 test bed (test/integration/debian11_test.rb),
# run by that root's MRI 2.7 on its OpenSSL 1.1.1 (so: Ruby 2.7, and
# ruby/openssl 2.1's API).
#   ruby mri.rb make DIR     keys (PEM) and MRI's answers (mri.json) in DIR
#   ruby mri.rb verify DIR   MRI's verdicts on what JRuby made (DIR/<mode>.json), as JSON
require "openssl"
require "json"

mode, dir = ARGV
MESSAGE = "fast_random on Debian 11"
KEYS = { "rsa2048" => -> { OpenSSL::PKey::RSA.new(2048) }, "rsa4096" => -> { OpenSSL::PKey::RSA.new(4096) },
         "p256" => -> { OpenSSL::PKey::EC.generate("prime256v1") }, "p256_peer" => -> { OpenSSL::PKey::EC.generate("prime256v1") },
         "p521" => -> { OpenSSL::PKey::EC.generate("secp521r1") }, "p521_peer" => -> { OpenSSL::PKey::EC.generate("secp521r1") } }.freeze

def key(dir, name)
  OpenSSL::PKey.read(File.read(File.join(dir, "#{name}.pem")))
end

def b64(bytes)
  [bytes].pack("m0")
end

def bytes(text)
  text.unpack1("m0")
end

case mode
when "make"
  KEYS.each { |name, make| File.write(File.join(dir, "#{name}.pem"), make.call.to_pem) }
  rsa = key(dir, "rsa2048")
  answers = {
    "openssl" => OpenSSL::OPENSSL_LIBRARY_VERSION, "ruby" => RUBY_DESCRIPTION,
    "rsa2048_sha256" => b64(rsa.sign("SHA256", MESSAGE)), "rsa2048_sha1" => b64(rsa.sign("SHA1", MESSAGE)),
    "rsa2048_sha512" => b64(rsa.sign("SHA512", MESSAGE)), "rsa4096_sha256" => b64(key(dir, "rsa4096").sign("SHA256", MESSAGE)),
    "rsa2048_pkcs1_ciphertext" => b64(rsa.public_encrypt(MESSAGE)),
    "rsa2048_oaep_ciphertext" => b64(rsa.public_encrypt(MESSAGE, OpenSSL::PKey::RSA::PKCS1_OAEP_PADDING)),
  }
  %w[p256 p521].each do |curve|
    ec = key(dir, curve)
    digest = curve == "p256" ? "SHA256" : "SHA512"
    answers["#{curve}_signature"] = b64(ec.sign(digest, MESSAGE))
    answers["#{curve}_secret"] = b64(ec.dh_compute_key(key(dir, "#{curve}_peer").public_key))
  end
  File.write(File.join(dir, "mri.json"), JSON.generate(answers))
when "verify"
  made = JSON.parse(File.read(File.join(dir, "#{ARGV[2]}.json")))
  rsa = key(dir, "rsa2048")
  verdicts = {
    "rsa_pkcs1_decrypts" => rsa.private_decrypt(bytes(made["rsa_pkcs1_ciphertext"])) == MESSAGE,
    "rsa_oaep_decrypts" => rsa.private_decrypt(bytes(made["rsa_oaep_ciphertext"]), OpenSSL::PKey::RSA::PKCS1_OAEP_PADDING) == MESSAGE,
    "p256_verifies" => key(dir, "p256").verify("SHA256", bytes(made["p256_signature"]), MESSAGE),
    "p521_verifies" => key(dir, "p521").verify("SHA512", bytes(made["p521_signature"]), MESSAGE),
  }
  if made["generated_p256_public"]
    generated = OpenSSL::PKey.read(bytes(made["generated_p256_public"]))
    verdicts["generated_p256_verifies"] = generated.verify("SHA256", bytes(made["generated_p256_signature"]), MESSAGE)
    verdicts["generated_rsa_verifies"] =
      OpenSSL::PKey.read(bytes(made["generated_rsa_public"])).verify("SHA256", bytes(made["generated_rsa_signature"]), MESSAGE)
  end
  if made["jca_p256_signature"]
    verdicts["jca_p256_verifies"] = key(dir, "p256").verify("SHA256", bytes(made["jca_p256_signature"]), MESSAGE)
  end
  puts JSON.generate(verdicts)
else
  abort "usage: ruby mri.rb make|verify DIR [MODE]"
end
