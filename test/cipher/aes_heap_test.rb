# frozen_string_literal: true

# Passes main: SunJCE's copies of a key differ between the JDKs (25 under 10.1, 17 under 9.4); no CPU feature or native engine touches them.

require_relative "../test_helper"
require "json"
require "tmpdir"

# No AES key or plaintext outlives its OpenSSL::Cipher (F4 of issue 38),
# within the bound JdkCipher documents (a key the thread keeps using stays
# in its spare until the thread's next message under another key): a
# child JRuby runs GCM, CBC and CTR messages each way, then one under
# another key, drops the ciphers, and dumps its heap (live objects, after a full GC, as an
# attacker with a heap dump would see it); the dump must hold no copy of
# the keys (raw, or as the first words of a JDK key schedule, which the
# dump writes big-endian), nor, for ciphers the application keeps, of
# their last plaintext bytes (what they held back until the final). The
# control: the key of a cipher still in use is found, so the search works.
class AesHeapTest < Minitest::Test
  CHILD = <<~'RUBY'
    require "fast_random"
    require "openssl"
    require "securerandom"
    require "json"

    def run_messages(name, key_hex, plain_hex, kept = nil)
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
      kept&.push(e, d)
      nil
    end

    secrets = {}
    # Ciphers an application keeps (their keys are theirs): no copy of their last plaintext.
    kept = []
    { "aes-256-gcm" => 32, "aes-256-cbc" => 32, "aes-128-ctr" => 16 }.each do |name, key_len|
      plain_hex = SecureRandom.hex(45)
      run_messages(name, SecureRandom.hex(key_len), plain_hex, kept)
      secrets["#{name} last plaintext, cipher kept"] = plain_hex[-26..] # the 13 bytes held back until the final
    end
    { "aes-256-gcm" => 32, "aes-256-cbc" => 32, "aes-128-ctr" => 16 }.each do |name, key_len|
      key_hex = SecureRandom.hex(key_len)
      plain_hex = SecureRandom.hex(45) # two blocks and 13 bytes held back
      3.times { run_messages(name, key_hex, plain_hex) }
      # The thread's next message under another key (a key used message after message stays in the thread's
      # spare until then: JdkCipher's bound).
      run_messages(name, SecureRandom.hex(key_len), SecureRandom.hex(45))
      secrets["#{name} key"] = key_hex
    end
    # A key used for one message, the thread's last in that mode: wiped when its message is done.
    { "aes-256-gcm" => 32, "aes-256-cbc" => 32, "aes-128-ctr" => 16 }.each do |name, key_len|
      once_hex = SecureRandom.hex(key_len)
      e = OpenSSL::Cipher.new(name).encrypt
      e.key = [once_hex].pack("H*")
      e.iv = "o" * e.iv_len
      e.update("a one-off message") + e.final
      e = nil
      secrets["#{name} one-off key"] = once_hex
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
    report["kept"] = kept.size
    puts JSON.generate(report)
  RUBY

  def test_no_key_or_plaintext_outlives_its_cipher_in_a_heap_dump
    Dir.mktmpdir do |dir|
      out, err, status = TestHelper.jruby(CHILD, env: { "AES_HEAP_DUMP" => File.join(dir, "heap.hprof") }, long: true)
      assert status.success?, err
      report = JSON.parse(out.lines.last)
      assert_operator report.delete("control key"), :>=, 1, "the search finds no key, even a live cipher's"
      assert_equal 6, report.delete("kept")
      found = report.select { |_, n| n.positive? }
      assert_empty found, "copies in the heap dump: #{report}"
      assert_equal 9, report.size
    end
  end
end
