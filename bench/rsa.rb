# frozen_string_literal: true

# RSA throughput (operations per second, one thread): sign (SHA-256),
# verify, public_encrypt and private_decrypt (PKCS#1 v1.5) at 2048 and 4096
# bits, on the same keys (made by MRI, read from PEM) in every runtime.
#   BENCH_VARIANT=stock bin/jruby bench/rsa.rb
#   BENCH_VARIANT=fast_random BENCH_RSA_ENGINE=gmp bin/jruby bench/rsa.rb
#   ruby bench/rsa.rb
require_relative "support/harness"
require_relative "support/rsa_keys"

require "openssl"
Bench.load_subject
if %w[fast_random rdrand].include?(Bench.variant) && (engine = ENV["BENCH_RSA_ENGINE"])
  FastRandom::RSA.engine = engine
end
Bench.load_ips

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

    # In chunks, so the loop method is JIT-compiled (see Calls.run).
    def run(n, chunk = 50)
      full, rest = n.divmod(chunk)
      full.times { yield chunk }
      yield rest
    end
  end
end

results = {}
Bench::RSAKeys.sizes.each do |bits|
  key = OpenSSL::PKey::RSA.new(Bench::RSAKeys.pem(bits))
  signature = key.sign("SHA256", Bench::RSACalls::DATA)
  ciphertext = key.public_encrypt(Bench::RSACalls::DATA)
  calls = Bench::RSACalls
  report = Benchmark.ips(**Bench.ips_times, quiet: ENV.key?("BENCH_OUTPUT")) do |x|
    x.report("sign #{bits}") { |times| calls.run(times) { |n| calls.sign(key, n) } }
    x.report("verify #{bits}") { |times| calls.run(times, 500) { |n| calls.verify(key, signature, n) } }
    x.report("public_encrypt #{bits}") { |times| calls.run(times, 500) { |n| calls.public_encrypt(key, n) } }
    x.report("private_decrypt #{bits}") { |times| calls.run(times) { |n| calls.private_decrypt(key, ciphertext, n) } }
  end
  report.entries.each { |entry| results[entry.label] = { "ips" => entry.ips.to_f, "ips_sd" => entry.ips_sd.to_f } }
end

info = { "benchmark" => "rsa", "results" => results }
info["rsa_engine"] = FastRandom::RSA.engine.to_s if defined?(FastRandom::RSA) && FastRandom::RSA.installed?
Bench.emit(info)
