# frozen_string_literal: true

# Passes main: SunJCE's copies of a key differ between the JDKs (25 under 10.1, 17 under 9.4); no CPU feature or native engine touches them.

require_relative "../test_helper"
require "json"
require "tmpdir"

# No AES key or plaintext outlives its OpenSSL::Cipher (F4 of issue 38):
# a child JRuby runs GCM, CBC and CTR messages each way, drops the
# ciphers, and dumps its heap (live objects, after a full GC, as an
# attacker with a heap dump would see it); the dump must hold no copy of
# the keys (raw, or as the first words of a JDK key schedule, which the
# dump writes big-endian) nor of the messages' last plaintext bytes (what
# the ciphers held back). The control: a cipher still alive is found, so
# the search works.
class AesHeapTest < Minitest::Test
  CHILD = <<~'RUBY'
    require "fast_random"
    require "openssl"
    require "securerandom"
    require "json"

    def run_messages(name, key_hex, plain_hex)
      key = [key_hex].pack("H*")
      plain = [plain_hex].pack("H*")
      e = OpenSSL::Cipher.new(name).encrypt
      e.key = key
      e.iv = "i" * e.iv_len
      ct = e.update(plain) + e.final
      d = OpenSSL::Cipher.new(name).decrypt
      d.key = key
      d.iv = "i" * d.iv_len
      d.auth_tag = e.auth_tag if name.end_with?("gcm")
      raise "round trip" unless d.update(ct) + d.final == plain
      nil
    end

    secrets = {}
    { "aes-256-gcm" => 32, "aes-256-cbc" => 32, "aes-128-ctr" => 16 }.each do |name, key_len|
      key_hex = SecureRandom.hex(key_len)
      plain_hex = SecureRandom.hex(45) # two blocks and 13 bytes held back
      3.times { run_messages(name, key_hex, plain_hex) }
      secrets["#{name} key"] = key_hex
      secrets["#{name} last plaintext"] = plain_hex[-26..] # the 13 bytes held back until the final
    end
    control_hex = SecureRandom.hex(32)
    control = OpenSSL::Cipher.new("aes-256-gcm").encrypt
    control.key = [control_hex].pack("H*")
    control.iv = "c" * 12
    control.update("alive")
    path = ENV.fetch("AES_HEAP_DUMP")
    bean = java.lang.management.ManagementFactory.getPlatformMXBean(Java::ComSunManagement::HotSpotDiagnosticMXBean.java_class)
    bean.dumpHeap(path, true)
    dump = File.binread(path)
    count = lambda do |hex|
      needle = [hex].pack("H*")
      n = 0
      at = 0
      while (at = dump.index(needle, at))
        n += 1
        at += 1
      end
      n
    end
    report = secrets.transform_values(&count)
    report["control key"] = count.(control_hex)
    control.final
    puts JSON.generate(report)
  RUBY

  def test_no_key_or_plaintext_outlives_its_cipher_in_a_heap_dump
    Dir.mktmpdir do |dir|
      out, err, status = TestHelper.jruby(CHILD, env: { "AES_HEAP_DUMP" => File.join(dir, "heap.hprof") }, long: true)
      assert status.success?, err
      report = JSON.parse(out.lines.last)
      assert_operator report.delete("control key"), :>=, 1, "the search finds no key, even a live cipher's"
      found = report.select { |_, n| n.positive? }
      assert_empty found, "copies in the heap dump after the ciphers were dropped: #{report}"
      assert_equal 6, report.size
    end
  end
end
