# frozen_string_literal: true

# Keys and certificates, one thread: OpenSSL::PKey::EC.generate on P-256,
# P-384 and P-521; Web Push-style message encryption (RFC 8291, as the
# webpush gem does it: a fresh P-256 key, ECDH with the subscriber's key,
# HKDF, AES-128-GCM of a 200-byte payload); Certificate#verify with an
# RSA-2048 and a P-256 key (the benchmark keys); Ed25519 signatures where
# the Ruby has them (jruby-openssl 0.16.1+); RSA-2048 key generation (few
# calls a second: its rate varies with the primes found).
#   ruby bench/keys.rb
#   BENCH_VARIANT=fast_random bin/jruby bench/keys.rb
require_relative "support/harness"
require_relative "support/rsa_keys"
require_relative "support/ec_keys"

require "openssl"
Bench.load_subject

module Bench
  module KeyCalls
    CURVES = { "P-256" => "prime256v1", "P-384" => "secp384r1", "P-521" => "secp521r1" }.freeze
    PAYLOAD = ("a push notification " * 10).freeze

    module_function

    def generate(curve, n)
      i = 0
      while i < n
        OpenSSL::PKey::EC.generate(curve)
        i += 1
      end
    end

    # HKDF-SHA256 (RFC 5869) of one block: OpenSSL::KDF.hkdf where the
    # release has it, else from HMAC (jruby-openssl before 0.15).
    def hkdf(salt, ikm, info, length)
      return OpenSSL::KDF.hkdf(ikm, salt: salt, info: info, length: length, hash: "SHA256") if defined?(OpenSSL::KDF.hkdf)

      prk = OpenSSL::HMAC.digest("SHA256", salt, ikm)
      OpenSSL::HMAC.digest("SHA256", prk, "#{info}\x01".b)[0, length]
    end

    def secret(key, peer) = key.respond_to?(:derive) ? key.derive(peer) : key.dh_compute_key(peer.public_key)

    # One RFC 8291 message to the subscriber (its key and auth secret).
    def web_push(subscriber, auth, subscriber_point)
      local = OpenSSL::PKey::EC.generate("prime256v1")
      local_point = local.public_key.to_bn.to_s(2)
      shared = secret(local, subscriber)
      ikm = hkdf(auth, shared, "WebPush: info\0#{subscriber_point}#{local_point}".b, 32)
      salt = OpenSSL::Random.random_bytes(16)
      cipher = OpenSSL::Cipher.new("aes-128-gcm").encrypt
      cipher.key = hkdf(salt, ikm, "Content-Encoding: aes128gcm\0".b, 16)
      cipher.iv = hkdf(salt, ikm, "Content-Encoding: nonce\0".b, 12)
      cipher.update("#{PAYLOAD}\x02") + cipher.final + cipher.auth_tag
    end

    def web_pushes(subscriber, auth, n)
      point = subscriber.public_key.to_bn.to_s(2)
      i = 0
      while i < n
        web_push(subscriber, auth, point)
        i += 1
      end
    end

    def certificate(key)
      cert = OpenSSL::X509::Certificate.new
      cert.version = 2
      cert.serial = 1
      cert.subject = cert.issuer = OpenSSL::X509::Name.parse("/CN=fast_random bench")
      cert.public_key = key.is_a?(OpenSSL::PKey::RSA) ? key.public_key : key
      cert.not_before = Time.at(1_700_000_000)
      cert.not_after = Time.at(1_900_000_000)
      cert.sign(key, "SHA256")
      cert
    end

    # An Ed25519 key, where this Ruby's openssl makes one.
    def ed25519
      OpenSSL::PKey.generate_key("ED25519")
    rescue StandardError, NotImplementedError
      nil
    end

    def ed25519_sign(key, n)
      i = 0
      while i < n
        key.sign(nil, PAYLOAD)
        i += 1
      end
    end

    def ed25519_verify(key, signature, n)
      i = 0
      while i < n
        key.verify(nil, signature, PAYLOAD) or raise "the Ed25519 signature does not verify"
        i += 1
      end
    end

    def verify(cert, key, n)
      i = 0
      while i < n
        cert.verify(key) or raise "the certificate does not verify"
        i += 1
      end
    end
  end
end

calls = Bench::KeyCalls
Bench.ips do |x|
  calls::CURVES.each do |label, curve|
    x.report("EC.generate #{label}") { |times| Bench.in_chunks(times, 20) { |n| calls.generate(curve, n) } }
  end
  subscriber = OpenSSL::PKey::EC.generate("prime256v1")
  auth = OpenSSL::Random.random_bytes(16)
  x.report("Web Push encryption (P-256 + ECDH + HKDF + AES-128-GCM)") do |times|
    Bench.in_chunks(times, 20) { |n| calls.web_pushes(subscriber, auth, n) }
  end
  { "RSA-2048" => -> { Bench::RSAKeys.pem(2048) }, "P-256" => -> { Bench::ECKeys.pem("prime256v1", 1) } }.each do |label, pem|
    key = OpenSSL::PKey.read(pem.call)
    cert = calls.certificate(key)
    public_key = cert.public_key
    x.report("Certificate#verify, #{label}") { |times| Bench.in_chunks(times, 50) { |n| calls.verify(cert, public_key, n) } }
  end
  if (ed = calls.ed25519)
    signature = ed.sign(nil, calls::PAYLOAD)
    x.report("Ed25519 sign") { |times| Bench.in_chunks(times, 50) { |n| calls.ed25519_sign(ed, n) } }
    x.report("Ed25519 verify") { |times| Bench.in_chunks(times, 50) { |n| calls.ed25519_verify(ed, signature, n) } }
  end
  x.report("RSA.new(2048)") { |times| times.times { OpenSSL::PKey::RSA.new(2048) } }
end
