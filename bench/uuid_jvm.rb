# frozen_string_literal: true

# java.util.UUID.randomUUID in 1, 2 and 4 long-lived threads at once
# (bench/support/thread_pool.rb), total UUIDs per second: what a Java
# library inside a JRuby application (a JDBC driver, a Kafka or AWS client)
# gets. The JDK draws every one from one shared SecureRandom; with
# fast_random's JVM-wide provider (FAST_RANDOM_JCA=1, installed before the
# first call) from the calling thread's own generator. JRuby only.
#   bin/jruby bench/uuid_jvm.rb
#   BENCH_VARIANT=fast_random FAST_RANDOM_JCA=1 bin/jruby bench/uuid_jvm.rb
require_relative "support/harness"
require_relative "support/thread_pool"

abort "bench/uuid_jvm.rb times a Java method: run it on JRuby" unless RUBY_ENGINE == "jruby"
Bench.load_subject

module Bench
  module JvmUUID
    UUID = java.util.UUID

    module_function

    def run(n)
      i = 0
      while i < n
        UUID.randomUUID
        i += 1
      end
    end
  end
end

uuid = java.util.UUID.randomUUID
raise "not a version 4 UUID: #{uuid}" unless uuid.version == 4 && uuid.variant == 2

pools = [1, 2, 4].to_h { |n| [n, Bench::ThreadPool.new(n) { |calls| Bench::JvmUUID.run(calls) }] }
Bench.threads("jca_provider" => defined?(FastRandom) && FastRandom.jca_provider_installed?) do |add|
  pools.each { |threads, pool| add.call(Bench::ThreadPool.label("UUID.randomUUID", threads), pool, chunk: 1000) }
end
