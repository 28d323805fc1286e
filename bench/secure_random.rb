# frozen_string_literal: true

# Single-thread throughput of the SecureRandom calls Rails apps make (see
# support/calls.rb for the list), under benchmark-ips, in whichever Ruby runs
# it (see support/harness.rb). A call this Ruby's SecureRandom lacks is left
# out and named in the notes, so the report can say so.
#   ruby bench/secure_random.rb
#   BENCH_VARIANT=fast_random bin/jruby bench/secure_random.rb
#   BENCH_CASES="uuid;random_bytes(4096)" bin/jruby bench/secure_random.rb
require_relative "support/harness"
require_relative "support/calls"

Bench.load_subject

names = ENV["BENCH_CASES"]&.split(";") || Bench::Calls::ALL.keys
unknown = names - Bench::Calls::ALL.keys
abort "unknown case #{unknown.join(", ")} (use #{Bench::Calls::ALL.keys.join(", ")})" unless unknown.empty?
available, missing = names.partition { |name| Bench::Calls.available?(name) }

Bench.ips("missing" => missing.to_h { |name| [name, "#{RUBY_ENGINE} #{RUBY_VERSION}'s SecureRandom has no #{Bench::Calls::ALL[name].needs}"] }) do |x|
  available.each do |name|
    x.report(name) { |times| Bench::Calls.run(name, times) }
  end
end
