# frozen_string_literal: true

# The rest of a Rails request's crypto, one thread: jruby-openssl's own
# random IVs, AES-256-GCM and CBC with a new OpenSSL::Cipher per message (as
# ActiveSupport::MessageEncryptor makes one), Rails 6.1's MessageEncryptor
# itself (aes-256-gcm, JSON), PBKDF2 (what Rails 7's KeyGenerator runs at
# boot), HKDF and HMAC. MessageEncryptor runs where Debian's activesupport
# loads; elsewhere the notes say why.
#   ruby bench/crypto.rb
#   BENCH_VARIANT=fast_random bin/jruby bench/crypto.rb
require_relative "support/harness"
require_relative "support/crypto_calls"

require "openssl"
Bench.load_subject

calls = Bench::CryptoCalls
encryptor, not_loaded = calls.message_encryptor
calls.check(encryptor)
notes = {}
if encryptor
  notes["stacks"] = { calls::ENCRYPTOR_ROUND_TRIP => "activesupport #{ActiveSupport::VERSION::STRING}" }
else
  missing = "MessageEncryptor did not load: #{not_loaded}"
  notes["missing"] = calls::ENCRYPTOR.to_h { |name| [name, missing] }
end

# The MessageEncryptor rows run Rails, JSON and jruby-openssl: JRuby's JIT takes 10 to 30 s for them on a busy
# 2-core machine, so each runs until it is compiled before benchmark-ips warms up (CryptoCalls.settle).
# The seconds each took go to the notes.
notes["settled"] = calls::ENCRYPTOR.to_h { |name| [name, calls.settle(name, encryptor)] } if encryptor

Bench.ips(notes) do |x|
  calls::SINGLE.each do |name|
    next if !encryptor && calls::ENCRYPTOR.include?(name)

    x.report(name) { |times| calls.run(name, times, encryptor) }
  end
end
