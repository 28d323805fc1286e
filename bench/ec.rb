# frozen_string_literal: true

# Elliptic curves, one thread: ECDSA sign (SHA-256, SHA-384, SHA-512 by
# curve) and verify, and ECDH derive, on P-256, P-384 and P-521, with keys
# read from PEM (the same keys everywhere, made by MRI) and, for P-256,
# with keys made by OpenSSL::PKey::EC.generate in the process, whose form in
# stock jruby-openssl differs (see the README). With fast_random,
# FAST_RANDOM_EC_ENGINE picks the engine.
#   ruby bench/ec.rb
#   BENCH_VARIANT=fast_random bin/jruby bench/ec.rb
require_relative "support/harness"
require_relative "support/ec_keys"

require "openssl"
Bench.load_subject

module Bench
  module ECCalls
    DATA = ("fast_random " * 8).freeze
    DIGESTS = { "prime256v1" => "SHA256", "secp384r1" => "SHA384", "secp521r1" => "SHA512" }.freeze
    NAMES = { "prime256v1" => "P-256", "secp384r1" => "P-384", "secp521r1" => "P-521" }.freeze

    module_function

    def sign(key, digest, n)
      i = 0
      while i < n
        key.sign(digest, DATA)
        i += 1
      end
    end

    def verify(key, digest, signature, n)
      i = 0
      while i < n
        key.verify(digest, signature, DATA) or raise "signature did not verify"
        i += 1
      end
    end

    # ECDH: #derive, or #dh_compute_key of the peer's point where the
    # release has no #derive (jruby-openssl before 0.15.6).
    def derive(key, peer, n)
      return dh_compute_key(key, peer.public_key, n) unless key.respond_to?(:derive)

      i = 0
      while i < n
        key.derive(peer)
        i += 1
      end
    end

    def dh_compute_key(key, point, n)
      i = 0
      while i < n
        key.dh_compute_key(point)
        i += 1
      end
    end

    def secret(key, peer)
      key.respond_to?(:derive) ? key.derive(peer) : key.dh_compute_key(peer.public_key)
    end

    # [label, key, peer] to time: every curve's PEM keys, and P-256's generated ones.
    def keys
      loaded = ECKeys::CURVES.map do |curve|
        [NAMES.fetch(curve), OpenSSL::PKey::EC.new(ECKeys.pem(curve, 1)), OpenSSL::PKey::EC.new(ECKeys.pem(curve, 2)), curve]
      end
      loaded + [["P-256 generated", OpenSSL::PKey::EC.generate("prime256v1"), OpenSSL::PKey::EC.generate("prime256v1"), "prime256v1"]]
    end
  end
end

calls = Bench::ECCalls
Bench.ips do |x|
  calls.keys.each do |label, key, peer, curve|
    digest = calls::DIGESTS.fetch(curve)
    signature = key.sign(digest, calls::DATA)
    raise "ECDH disagrees" unless calls.secret(key, peer) == calls.secret(peer, key)

    x.report("sign #{label}") { |times| Bench.in_chunks(times, 100) { |n| calls.sign(key, digest, n) } }
    x.report("verify #{label}") { |times| Bench.in_chunks(times, 100) { |n| calls.verify(key, digest, signature, n) } }
    x.report("derive #{label}") { |times| Bench.in_chunks(times, 100) { |n| calls.derive(key, peer, n) } }
  end
end
