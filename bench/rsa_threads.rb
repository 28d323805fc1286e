# frozen_string_literal: true

# RSA-2048 sign (SHA-256) and verify in 1, 2 and 4 long-lived threads at
# once (bench/support/thread_pool.rb), total operations per second, on the
# same key as bench/rsa.rb: MRI holds its global lock through an RSA
# operation, JRuby's threads run in parallel.
#   ruby bench/rsa_threads.rb
#   BENCH_VARIANT=fast_random bin/jruby bench/rsa_threads.rb
require_relative "support/harness"
require_relative "support/rsa_keys"
require_relative "support/thread_pool"

require "openssl"
Bench.load_subject

key = OpenSSL::PKey::RSA.new(Bench::RSAKeys.pem(2048))
data = ("fast_random " * 8).freeze
signature = key.sign("SHA256", data)
work = {
  "sign 2048" => ->(n) { n.times { key.sign("SHA256", data) } },
  "verify 2048" => ->(n) { n.times { key.verify("SHA256", signature, data) or raise "signature did not verify" } },
}
pools = [1, 2, 4].to_h { |n| [n, Bench::ThreadPool.new(n) { |name, calls| work.fetch(name).call(calls) }] }
Bench.threads do |add|
  work.each_key do |name|
    pools.each { |threads, pool| add.call(Bench::ThreadPool.label(name, threads), pool, name, chunk: 10) }
  end
end
