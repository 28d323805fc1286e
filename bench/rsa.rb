# frozen_string_literal: true

# RSA throughput (operations per second, one thread): sign (SHA-256),
# verify, public_encrypt and private_decrypt (PKCS#1 v1.5) at 2048 and 4096
# bits, on the same keys (made by MRI, read from PEM) in every runtime. With
# fast_random, FAST_RANDOM_RSA_ENGINE picks the engine (else its default);
# the notes record the engine that ran.
#   ruby bench/rsa.rb
#   bin/jruby bench/rsa.rb                                   # stock
#   BENCH_VARIANT=fast_random FAST_RANDOM_RSA_ENGINE=gmp bin/jruby bench/rsa.rb
require_relative "support/harness"
require_relative "support/rsa_keys"

require "openssl"
Bench.load_subject

module Bench
  # The timed loops (see support/calls.rb for why they are methods).
  module RSACalls
    DATA = ("fast_random " * 8).freeze

    module_function

    def sign(key, n)
      i = 0
      while i < n
        key.sign("SHA256", DATA)
        i += 1
      end
    end

    def verify(key, signature, n)
      i = 0
      while i < n
        key.verify("SHA256", signature, DATA) or raise "signature did not verify"
        i += 1
      end
    end

    def public_encrypt(key, n)
      i = 0
      while i < n
        key.public_encrypt(DATA)
        i += 1
      end
    end

    def private_decrypt(key, ciphertext, n)
      i = 0
      while i < n
        key.private_decrypt(ciphertext)
        i += 1
      end
    end
  end
end

calls = Bench::RSACalls
keys = Bench::RSAKeys.sizes.to_h { |bits| [bits, OpenSSL::PKey::RSA.new(Bench::RSAKeys.pem(bits))] }
Bench.ips do |x|
  keys.each do |bits, key|
    signature = key.sign("SHA256", calls::DATA)
    ciphertext = key.public_encrypt(calls::DATA)
    raise "private_decrypt does not round-trip" unless key.private_decrypt(ciphertext) == calls::DATA

    x.report("sign #{bits}") { |times| Bench.in_chunks(times, 50) { |n| calls.sign(key, n) } }
    x.report("verify #{bits}") { |times| Bench.in_chunks(times, 500) { |n| calls.verify(key, signature, n) } }
    x.report("public_encrypt #{bits}") { |times| Bench.in_chunks(times, 500) { |n| calls.public_encrypt(key, n) } }
    x.report("private_decrypt #{bits}") { |times| Bench.in_chunks(times, 50) { |n| calls.private_decrypt(key, ciphertext, n) } }
  end
end
