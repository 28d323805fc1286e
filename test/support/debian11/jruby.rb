# frozen_string_literal: true

# JRuby's side of the Debian 11 test bed (test/integration/debian11_test.rb):
# JRuby 9.4 on that root's Java, with fast_random as the test installed it
# (or, for "faults", the checkout's with the test build of the library),
# on the keys and answers of that root's MRI (support/debian11/mri.rb).
# Writes what it did to DIR/MODE.json, for the test and for MRI to check.
#   jruby jruby.rb DIR full           everything, the JVM-wide provider too
#   jruby jruby.rb DIR smoke          a few calls (the Java 11 run)
#   jruby jruby.rb DIR faults         injected libcrypto failures, and the self-tests
#   jruby jruby.rb DIR no-libcrypto   run where the root's libcrypto is taken away
require "openssl"
require "fast_random"
require "json"

dir, mode = ARGV
MESSAGE = "fast_random on Debian 11"
mri = JSON.parse(File.read(File.join(dir, "mri.json")))
key = ->(name) { OpenSSL::PKey.read(File.read(File.join(dir, "#{name}.pem"))) }
b64 = ->(bytes) { [bytes].pack("m0") }
bytes = ->(text) { text.unpack1("m0") }
rsa = key.("rsa2048")
p256 = key.("p256")
p256_peer = key.("p256_peer")
made = {}

# What fast_random says it runs on.
report = lambda do
  made.merge!("rsa_engine" => FastRandom::RSA.engine, "ec_engine" => FastRandom::EC.engine,
              "rsa_problem" => FastRandom::RSA.engine_problem(:openssl), "ec_problem" => FastRandom::EC.engine_problem(:openssl),
              "rsa_stats" => FastRandom::RSA.stats, "ec_stats" => FastRandom::EC.stats,
              "entropy" => FastRandom::Generator.entropy_source, "java" => ENV_JAVA["java.version"],
              "jruby" => JRUBY_VERSION, "uuid" => SecureRandom.uuid)
end

case mode
when "full", "no-libcrypto"
  made["rsa2048_sha256"] = b64.(rsa.sign("SHA256", MESSAGE))
  made["rsa2048_sha1"] = b64.(rsa.sign("SHA1", MESSAGE))
  made["rsa2048_sha512"] = b64.(rsa.sign("SHA512", MESSAGE))
  made["rsa4096_sha256"] = b64.(key.("rsa4096").sign("SHA256", MESSAGE))
  made["rsa_verifies_mri"] = rsa.verify("SHA256", bytes.(mri["rsa2048_sha256"]), MESSAGE)
  made["rsa_pkcs1_decrypted"] = rsa.private_decrypt(bytes.(mri["rsa2048_pkcs1_ciphertext"]))
  made["rsa_oaep_decrypted"] = rsa.private_decrypt(bytes.(mri["rsa2048_oaep_ciphertext"]), OpenSSL::PKey::RSA::PKCS1_OAEP_PADDING)
  made["rsa_pkcs1_ciphertext"] = b64.(rsa.public_encrypt(MESSAGE))
  made["rsa_oaep_ciphertext"] = b64.(rsa.public_encrypt(MESSAGE, OpenSSL::PKey::RSA::PKCS1_OAEP_PADDING))
  { "p256" => "SHA256", "p521" => "SHA512" }.each do |curve, digest|
    ec = key.(curve)
    made["#{curve}_signature"] = b64.(ec.sign(digest, MESSAGE))
    made["#{curve}_verifies_mri"] = ec.verify(digest, bytes.(mri["#{curve}_signature"]), MESSAGE)
    made["#{curve}_secret"] = b64.(ec.dh_compute_key(key.("#{curve}_peer").public_key))
  end
  # Past the count at which a P-256 key gets its verification table (ec_key.c: 1024), and P-521's (16).
  tabled = [] # the keys stay reachable, and so their tables, until the report
  { "p256" => ["SHA256", 1100], "p521" => ["SHA512", 40] }.each do |curve, (digest, times)|
    ec, signature = key.(curve), bytes.(mri["#{curve}_signature"])
    tabled << ec
    verified = Array.new(times) { ec.verify(digest, signature, MESSAGE) }.count(true)
    made["#{curve}_repeated_verifications"] = "#{verified} of #{times}"
    made["#{curve}_verifies_other_message"] = ec.verify(digest, signature, "#{MESSAGE}!")
  end
  generated = OpenSSL::PKey::EC.generate("prime256v1")
  made["generated_p256_public"] = b64.(generated.public_to_der)
  made["generated_p256_signature"] = b64.(generated.sign("SHA256", MESSAGE))
  generated_rsa = OpenSSL::PKey::RSA.new(2048)
  made["generated_rsa_public"] = b64.(generated_rsa.public_to_der)
  made["generated_rsa_signature"] = b64.(generated_rsa.sign("SHA256", MESSAGE))
  if mode == "full"
    # The JVM-wide provider: Java code's signatures and key agreements, on libcrypto too.
    FastRandom.install_jca_provider
    java_key = lambda do |pem_key, algorithm|
      spec = java.security.spec.PKCS8EncodedKeySpec.new(pem_key.private_to_der.to_java_bytes)
      java.security.KeyFactory.getInstance(algorithm).generatePrivate(spec)
    end
    signature = java.security.Signature.getInstance("SHA256withRSA")
    signature.initSign(java_key.(rsa, "RSA"))
    signature.update(MESSAGE.to_java_bytes)
    made["jca_rsa_signature"] = b64.(String.from_java_bytes(signature.sign))
    made["jca_rsa_provider"] = signature.getProvider.getName
    ecdsa = java.security.Signature.getInstance("SHA256withECDSA")
    ecdsa.initSign(java_key.(p256, "EC"))
    ecdsa.update(MESSAGE.to_java_bytes)
    made["jca_p256_signature"] = b64.(String.from_java_bytes(ecdsa.sign))
    made["jca_p256_provider"] = ecdsa.getProvider.getName
    agreement = javax.crypto.KeyAgreement.getInstance("ECDH")
    agreement.init(java_key.(p256, "EC"))
    peer = java.security.KeyFactory.getInstance("EC")
                                   .generatePublic(java.security.spec.X509EncodedKeySpec.new(p256_peer.public_to_der.to_java_bytes))
    agreement.doPhase(peer, true)
    made["jca_p256_secret"] = b64.(String.from_java_bytes(agreement.generateSecret))
    made["jca_ecdh_provider"] = agreement.getProvider.getName
    FastRandom.uninstall_jca_provider
  end
when "smoke"
  made["rsa2048_sha256"] = b64.(rsa.sign("SHA256", MESSAGE))
  made["p256_secret"] = b64.(p256.dh_compute_key(p256_peer.public_key))
when "faults"
  lib = Java::FastrandomJni::LibCrypto
  # The engines are chosen (each after its known-answer self-test) before any fault is injected.
  rsa.sign("SHA256", MESSAGE)
  p256.dh_compute_key(p256_peer.public_key)
  # The RSA known-answer test once more (EC's warns where a curve fails).
  made["rsa_self_test"] = Java::FastrandomRsa::OpenSslRsaEngine.self_test
  made["crt_checks_results"] = Java::FastrandomRsa::OpenSslRsaEngine.crt_checks_results
  # Each operation once with libcrypto failing (it falls back to jruby-openssl's code), then once without.
  made["faulted"] = %w[rsa_sign rsa_decrypt ec_sign ecdh].to_h do |name|
    results = [1, 0].map do |faults|
      lib.inject_faults(faults)
      case name
      when "rsa_sign" then b64.(rsa.sign("SHA256", MESSAGE))
      when "rsa_decrypt" then rsa.private_decrypt(bytes.(mri["rsa2048_pkcs1_ciphertext"]))
      when "ec_sign" then p256.verify("SHA256", p256.sign("SHA256", MESSAGE), MESSAGE) && "verified"
      when "ecdh" then b64.(p256.dh_compute_key(p256_peer.public_key))
      end
    end
    [name, results]
  end
  lib.inject_faults(0)
else
  abort "usage: jruby jruby.rb DIR full|smoke|faults|no-libcrypto"
end
report.()
made["tabled_keys"] = tabled&.size # read after the report: the keys were reachable through it
File.write(File.join(dir, "#{mode}.json"), JSON.generate(made))
