# frozen_string_literal: true

# Passes main: AesCipher's own fallbacks and interleavings, which no CPU feature or native engine touches; one per jruby-openssl.

require_relative "../test_helper"
require "fast_random"
require "openssl"

# Six OpenSSL::Cipher objects (GCM, CBC, CTR) used in random interleavings
# on one thread: new messages with either of two keys and IVs, AAD early
# and late, updates of random sizes, finals, GCM tags right and wrong,
# padding off, messages with no IV, ciphers reused after a final or after
# an error without a new init. Each seed's script runs on stock
# jruby-openssl and then through FastRandom::AES, in one process; every
# step's output and error must agree (GCM decryption's updates and final
# compared joined: it releases its plaintext at the final only). This is
# how the state a JDK cipher, a spare buffer or BouncyCastle's cipher keeps
# between messages gets checked against stock.
class AesInterleavedTest < Minitest::Test
  SEEDS = 40
  STEPS = 400

  def setup
    skip "FastRandom::AES needs JRuby" unless RUBY_ENGINE == "jruby"
  end

  def test_random_interleavings_of_six_ciphers_match_stock_step_by_step
    base = Random.new_seed % 1_000_000
    differ = SEEDS.times.filter_map do |n|
      seed = base + n
      FastRandom::AES.uninstall
      stock = run_side(seed, STEPS)
      FastRandom::AES.install
      ours = run_side(seed, STEPS)
      first = stock.zip(ours).find { |a, b| a != b }
      "seed #{seed}: stock #{first[0].inspect}, fast_random #{first[1].inspect}" if first
    end
    assert_empty differ.first(3), "#{differ.size} of #{SEEDS} seeds differ"
  ensure
    FastRandom::AES.install
  end

  private

  def run_side(seed, steps)
    rng = Random.new(seed)
    log = []
    names = %w[aes-128-gcm aes-256-gcm aes-128-cbc aes-256-ctr aes-128-gcm aes-256-cbc]
    keys = ["A"*32, "B"*32]
    ivs = ["n"*16, "m"*16]
    objs = names.map { |n| {name: n, c: OpenSSL::Cipher.new(n), acc: +"", enc: true} }
    plain = (0...200).map { |i| (i*31 % 251).chr }.join
    steps.times do |i|
      o = objs[rng.rand(objs.size)]
      c = o[:c]; gcm = o[:name].end_with?("gcm")
      op = rng.rand(10)
      begin
        case op
        when 0, 1 # start
          o[:enc] = rng.rand(2) == 0
          o[:enc] ? c.encrypt : c.decrypt
          c.key = keys[rng.rand(2)]
          c.iv = ivs[rng.rand(2)] if rng.rand(5) > 0
          c.padding = rng.rand(4) == 0 ? 0 : 1 if o[:name].include?("cbc")
          if gcm && !o[:enc]
            e = OpenSSL::Cipher.new(o[:name]).encrypt
            e.key = keys[rng.rand(2)]; e.iv = ivs[rng.rand(2)]
            e.auth_data = "hdr" if rng.rand(2) == 0
            ct = e.update(plain[0, rng.rand(1..100)]) + e.final
            tag = e.auth_tag
            tag = tag.reverse if rng.rand(4) == 0
            c.auth_tag = tag
            o[:ct] = ct
          elsif !o[:enc]
            e = OpenSSL::Cipher.new(o[:name]).encrypt
            e.key = keys[rng.rand(2)]; e.iv = ivs[rng.rand(2)]
            o[:ct] = e.update(plain[0, rng.rand(1..100)]) + e.final
          end
          o[:acc] = +""
          o[:data] = false
          log << [i, o[:name], :start, o[:enc]]
        when 2 # aad, before the message's data (after it, fast_random refuses at auth_data=, as MRI does: aes_faults_test.rb)
          next if !gcm || o[:data]
          c.auth_data = ["hdr", "x"*rng.rand(1..40)][rng.rand(2)]
          log << [i, o[:name], :aad]
        when 3..6 # update
          src = o[:enc] ? plain : (o[:ct] || plain)
          off = rng.rand(src.bytesize); len = rng.rand(1..40)
          chunk = src.byteslice(off, len)
          chunk = src.byteslice(0, len) if chunk.empty?
          o[:data] = true
          out = c.update(chunk)
          if gcm && !o[:enc] then o[:acc] << out else log << [i, o[:name], :update, out.unpack1("H*")] end
        when 7, 8 # final
          o[:data] = false
          out = c.final
          log << [i, o[:name], :final, (o[:acc] + out).unpack1("H*"), (gcm && o[:enc]) ? c.auth_tag.unpack1("H*") : nil]
          o[:acc] = +""
        when 9 # whole message on ct
          next unless o[:ct]
          o[:data] = false
          out = c.update(o[:ct]) + c.final
          log << [i, o[:name], :whole, (o[:acc] + out).unpack1("H*")]
          o[:acc] = +""
        end
      rescue => e
        log << [i, o[:name], :error, e.class.name, e.message]
        o[:acc] = +""
      end
    end
    log
  end
end
