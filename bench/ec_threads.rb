# frozen_string_literal: true

# P-256 ECDSA sign (SHA-256), verify and ECDH derive in 1 and 2 long-lived
# threads at once (bench/support/thread_pool.rb), total operations per
# second, on the same keys as bench/ec.rb: MRI holds its global lock
# through an EC operation, JRuby's threads run in parallel.
#   ruby bench/ec_threads.rb
#   BENCH_VARIANT=fast_random bin/jruby bench/ec_threads.rb
require_relative "support/harness"
require_relative "support/ec_keys"
require_relative "support/thread_pool"

require "openssl"
Bench.load_subject

key = OpenSSL::PKey::EC.new(Bench::ECKeys.pem("prime256v1", 1))
peer = OpenSSL::PKey::EC.new(Bench::ECKeys.pem("prime256v1", 2))
data = ("fast_random " * 8).freeze
signature = key.sign("SHA256", data)
work = {
  "sign P-256" => ->(n) { n.times { key.sign("SHA256", data) } },
  "verify P-256" => ->(n) { n.times { key.verify("SHA256", signature, data) or raise "signature did not verify" } },
  "derive P-256" => ->(n) { n.times { key.derive(peer) } },
}
pools = [1, 2].to_h { |n| [n, Bench::ThreadPool.new(n) { |name, calls| work.fetch(name).call(calls) }] }
Bench.threads do |add|
  work.each_key do |name|
    pools.each { |threads, pool| add.call(Bench::ThreadPool.label(name, threads), pool, name, chunk: 20) }
  end
end
