# frozen_string_literal: true

# bench/crypto.rb's cipher calls (AES-256-GCM and CBC, a new OpenSSL::Cipher
# per message) in 1 and 2 long-lived threads at once
# (bench/support/thread_pool.rb), total messages per second: MRI holds its
# global lock between the C calls, JRuby's threads run in parallel.
#   ruby bench/crypto_threads.rb
#   BENCH_VARIANT=fast_random bin/jruby bench/crypto_threads.rb
require_relative "support/harness"
require_relative "support/crypto_calls"
require_relative "support/thread_pool"

require "openssl"
Bench.load_subject

calls = Bench::CryptoCalls
calls.check(nil)
pools = [1, 2].to_h { |n| [n, Bench::ThreadPool.new(n) { |name, count| calls.once(name, count, nil) }] }
Bench.threads do |add|
  calls::THREADED.each do |name|
    pools.each { |threads, pool| add.call(Bench::ThreadPool.label(name, threads), pool, name, chunk: calls::CHUNKS[name]) }
  end
end
