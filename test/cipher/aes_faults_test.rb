# frozen_string_literal: true

# Passes main: AesCipher's own fallbacks and interleavings, which no CPU feature or native engine touches; one per jruby-openssl.

require_relative "../test_helper"
require "json"

# Failure paths of FastRandom::AES (src/main/java/fastrandom/cipher/AesCipher.java):
# a JDK call that throws (made to, through AesCipher.setFaults, at each
# step: getting the JDK's cipher, its init, AAD, update, final) gives
# stock's bytes and errors, said by one warning; nothing wrong, partial or
# unverified comes out; and once the JDK works again the next message is
# on it. One child JRuby, so the process's one warning can be counted.
class AesFaultsTest < Minitest::Test
  STEPS = %w[cipher init aad update final].freeze

  CHILD = <<~'RUBY'
    require "fast_random"
    require "openssl"
    require "json"
    aes = Java::FastrandomCipher::AesCipher
    key = "k" * 32
    run = lambda do |name, direction, chunks, aad: nil, tag: nil, iv: nil|
      c = OpenSSL::Cipher.new(name)
      direction == :encrypt ? c.encrypt : c.decrypt
      c.key = key[0, c.key_len]
      c.iv = iv || "i" * c.iv_len
      c.auth_tag = tag if tag
      c.auth_data = aad if aad
      out = chunks.map { |chunk| c.update(chunk) }
      out << c.final
      result = {"out" => out.map { |s| s.unpack1("H*") }}
      result["tag"] = c.auth_tag.unpack1("H*") if name.end_with?("gcm") && direction == :encrypt
      result
    rescue OpenSSL::Cipher::CipherError => e
      {"error" => [e.class.name, e.message], "out" => (out || []).map { |s| s.unpack1("H*") }}
    end
    plain = (0...300).map { |i| (i * 7 % 256).chr }.join
    gcm = run.("aes-256-gcm", :encrypt, [plain], aad: "header")
    ct = [gcm["out"].join].pack("H*")
    tag = [gcm["tag"]].pack("H*")
    bad_tag = tag.dup.tap { |t| t.setbyte(0, t.getbyte(0) ^ 1) }
    cbc_ct = [run.("aes-256-cbc", :encrypt, [plain])["out"].join].pack("H*")
    cases = {
      "gcm encrypt" => -> { run.("aes-256-gcm", :encrypt, [plain[0, 100], plain[100..]], aad: "header") },
      "gcm decrypt" => -> { run.("aes-256-gcm", :decrypt, [ct[0, 17], ct[17..]], aad: "header", tag: tag) },
      "gcm bad tag" => -> { run.("aes-256-gcm", :decrypt, [ct], aad: "header", tag: bad_tag) },
      "cbc encrypt" => -> { run.("aes-256-cbc", :encrypt, [plain[0, 33], plain[33..]]) },
      "cbc decrypt" => -> { run.("aes-256-cbc", :decrypt, [cbc_ct[0, 40], cbc_ct[40..]]) },
      "cbc bad padding" => -> { run.("aes-128-cbc", :decrypt, ["x" * 32]) },
      "ctr encrypt" => -> { run.("aes-128-ctr", :encrypt, [plain[0, 5], plain[5..]]) },
    }
    stats = -> { FastRandom::AES.stats }
    report = {}
    FastRandom::AES.uninstall
    report["stock"] = cases.transform_values(&:call)
    FastRandom::AES.install
    report["faults"] = {}
    STEPS.each do |step|
      cases.each do |label, call|
        aes.setFaults(->(s) { s == step })
        before = stats.()
        result = call.()
        aes.setFaults(nil)
        middle = stats.()
        again = call.()
        after = stats.()
        report["faults"]["#{label} at #{step}"] = {
          "result" => result, "again" => again,
          "faults" => middle[:faults] - before[:faults],
          "jdk_after" => after[:jdk] - middle[:jdk], "faults_after" => after[:faults] - middle[:faults],
        }
      end
    end
    # A JDK that always fails: every message still right, on BouncyCastle.
    aes.setFaults(->(_) { true })
    report["always"] = cases.transform_values(&:call)
    aes.setFaults(nil)
    puts JSON.generate(report)
  RUBY

  def test_a_failing_jdk_call_gives_stock_s_result_once_warned_and_the_next_message_is_on_the_jdk
    out, err, status = TestHelper.jruby("STEPS = #{STEPS.inspect}\n#{CHILD}")
    assert status.success?, err
    report = JSON.parse(out.lines.last)
    stock = report.fetch("stock")
    assert_equal ["OpenSSL::Cipher::CipherError", "mac check in GCM failed"], stock["gcm bad tag"]["error"]
    assert_equal ["OpenSSL::Cipher::CipherError", "pad block corrupted"], stock["cbc bad padding"]["error"]

    # Stock releases unverified GCM plaintext from update; fast_random none.
    stock["gcm bad tag"]["out"] = []
    report.fetch("faults").each do |name, outcome|
      label = name.split(" at ").first
      expected = stock.fetch(label)
      assert_equal joined(expected), joined(outcome["result"]), "#{name}: the result under the fault"
      assert_equal joined(expected), joined(outcome["again"]), "#{name}: the next message"
      assert_equal 0, outcome["faults_after"], "#{name}: the next message failed too"
      assert_equal 1, outcome["jdk_after"], "#{name}: the next message is not on the JDK" unless expected["error"]
    end
    # A message BouncyCastle refuses too is no fault, whatever the JDK did.
    assert_equal 0, report["faults"]["gcm bad tag at final"]["faults"]
    assert_equal 0, report["faults"]["gcm bad tag at cipher"]["faults"]
    # Each step fails somewhere on the way (the test can tell a fault from none).
    STEPS.each do |step|
      faulted = report["faults"].select { |name, o| name.end_with?(" at #{step}") && o["faults"].positive? }
      refute_empty faulted, "no message met the failure at #{step}"
    end
    report.fetch("always").each do |label, outcome|
      assert_equal joined(stock.fetch(label)), joined(outcome), "#{label} with every JDK call failing"
    end

    warnings = err.lines.grep(/AES/)
    assert_equal 1, warnings.size, err
    assert_match(/AES: a call to the JDK's cipher failed \(.*injected failure.*\); jruby-openssl's BouncyCastle finished/,
                 warnings.first)
  end

  # Streaming: CBC and CTR keep one block for BouncyCastle to take over
  # from, GCM encryption up to 16 MB; so a long stream runs in a small heap,
  # as stock's does, and a JDK failure past 16 MB of a GCM encryption is a
  # CipherError, with no wrong byte given out and the next message fine.
  def test_streams_run_in_bounded_memory_and_a_late_gcm_failure_raises
    out, err, status = TestHelper.jruby(<<~'RUBY', env: { "FAST_RANDOM_JAVA_OPTS" => "-Xmx160m" }, long: true)
      require "fast_random"
      require "openssl"
      aes = Java::FastrandomCipher::AesCipher
      chunk = "s" * (1 << 20)
      report = {}
      %w[aes-128-ctr aes-256-cbc aes-256-gcm].each do |name|
        c = OpenSSL::Cipher.new(name).encrypt
        c.key = "k" * c.key_len
        c.iv = "i" * c.iv_len
        total = 0
        400.times { total += c.update(chunk).bytesize }
        total += c.final.bytesize
        report[name] = total
      end
      c = OpenSSL::Cipher.new("aes-256-gcm").encrypt
      c.key = "k" * 32
      c.iv = "j" * 12
      20.times { c.update(chunk) }
      aes.setFaults(->(step) { step == "update" })
      begin
        c.update(chunk)
        report["late failure"] = "no error"
      rescue OpenSSL::Cipher::CipherError => e
        report["late failure"] = e.message
      end
      aes.setFaults(nil)
      d = OpenSSL::Cipher.new("aes-256-gcm").encrypt
      d.key = "k" * 32
      d.iv = "l" * 12
      report["next"] = (d.update("next") + d.final).bytesize
      p report
    RUBY
    assert status.success?, err
    report = eval(out.lines.last) # rubocop:disable Security/Eval -- our own child's p output
    assert_equal 400 << 20, report["aes-128-ctr"]
    assert_equal (400 << 20) + 16, report["aes-256-cbc"]
    assert_equal 400 << 20, report["aes-256-gcm"]
    assert_match(/more than 16 MB of this AES-GCM message went to the JDK before its cipher failed/, report["late failure"])
    assert_equal 4, report["next"]
  end

  private

  # What a caller sees: every byte (update outputs joined; GCM decryption
  # releases its bytes at the final only), the tag, the error.
  def joined(result)
    [result["out"].join, result["tag"], result["error"]]
  end
end
