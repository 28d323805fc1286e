# frozen_string_literal: true

# Passes main, 9.4-fallback, hooks: AES on each JRuby's jruby-openssl, and where the library is missing (no RSA or EC beside it).

require_relative "../test_helper"
require "fast_random"
require "openssl"

# Which engine FastRandom::AES runs each message on, and what only the JDK
# path could get wrong: a Cipher used for several messages (the JDK zeroes
# the key bytes it is given), and GCM plaintext before its tag is verified.
# Byte-for-byte parity with stock is test/cipher/aes_test.rb's.
class AesEngineTest < Minitest::Test
  KEY = (1..32).map(&:chr).join.b

  def setup
    skip "FastRandom::AES needs JRuby" unless RUBY_ENGINE == "jruby"
    assert FastRandom::AES.installed?
  end

  def test_gcm_cbc_and_ctr_messages_run_on_the_jdk
    %w[aes-128-gcm aes-256-gcm aes-192-cbc aes-256-cbc aes-128-ctr aes-256-ctr].each do |name|
      before = FastRandom::AES.stats
      encrypt(name, "m" * 100)
      after = FastRandom::AES.stats
      assert_equal 1, after[:jdk] - before[:jdk], name
      assert_equal 0, after[:bouncy_castle] - before[:bouncy_castle], name
    end
  end

  def test_parameters_outside_the_jdk_path_run_on_bouncy_castle
    [->(c) { c.iv_len = 16; c.iv = "i" * 16 }, ->(c) { c.auth_tag_len = 8 }].each_with_index do |setup, i|
      before = FastRandom::AES.stats
      out = with_stock { encrypt("aes-256-gcm", "m" * 100, &setup) }
      assert_equal out, encrypt("aes-256-gcm", "m" * 100, &setup), "case #{i}"
      after = FastRandom::AES.stats
      assert_equal 1, after[:bouncy_castle] - before[:bouncy_castle], "case #{i}"
      assert_equal 0, after[:jdk] - before[:jdk], "case #{i}"
    end
  end

  # jruby-openssl hands its own key bytes to the cipher at each init; the
  # JDK zeroes what it is given, so a second message on the same Cipher
  # would run under a zero key if fast_random passed them on.
  def test_a_cipher_reused_for_several_messages_keeps_its_key
    %w[aes-256-gcm aes-128-cbc aes-256-ctr].each do |name|
      messages = ["first message", "second, longer message" * 3, "third"]
      ivs = messages.each_index.map { |i| (65 + i).chr * OpenSSL::Cipher.new(name).iv_len }
      expected = with_stock { messages.zip(ivs).map { |m, iv| encrypt(name, m, iv: iv) } }
      assert_equal expected, messages.zip(ivs).map { |m, iv| encrypt(name, m, iv: iv) }, name

      enc = OpenSSL::Cipher.new(name).encrypt
      enc.key = KEY[0, enc.key_len]
      dec = OpenSSL::Cipher.new(name).decrypt
      dec.key = KEY[0, dec.key_len]
      messages.each_with_index do |m, i|
        iv = ivs[i]
        enc.iv = iv
        ct = enc.update(m) + enc.final
        tag = enc.auth_tag if name.end_with?("gcm")
        assert_equal expected[i][0], ct, "#{name}: message #{i} on a reused cipher"
        enc = OpenSSL::Cipher.new(name).encrypt.tap { |c| c.key = KEY[0, c.key_len] } if tag # a GCM encryptor is spent
        dec.iv = iv
        dec.auth_tag = tag if tag
        assert_equal m, dec.update(ct) + dec.final, "#{name}: message #{i} decrypted on a reused cipher"
      end
    end
  end

  # New Ciphers encrypting under the same key and nonce, one after another
  # (a fixed IV, as benchmarks and test vectors do): stock takes each, and
  # so does the JDK path, though the thread's one JDK GCM cipher serves them
  # all and the JDK refuses its own last key and nonce. A Cipher re-inited
  # with its own last key and nonce is still refused, as stock refuses it.
  def test_new_ciphers_under_one_key_and_nonce_stay_on_the_jdk
    expected = with_stock { 3.times.map { encrypt("aes-256-gcm", "m" * 100) } }
    before = FastRandom::AES.stats
    assert_equal expected, 3.times.map { encrypt("aes-256-gcm", "m" * 100) }
    after = FastRandom::AES.stats
    assert_equal 3, after[:jdk] - before[:jdk]
    assert_equal 0, after[:bouncy_castle] - before[:bouncy_castle]
    assert_equal 0, after[:faults] - before[:faults]

    refusals = [true, false].map do |ours|
      run = lambda do
        c = OpenSSL::Cipher.new("aes-256-gcm").encrypt
        c.key = KEY
        c.iv = "i" * 12
        c.update("m") + c.final
        c.iv = "i" * 12
        c.update("m") + c.final
        "taken"
      rescue OpenSSL::Cipher::CipherError => e
        e.message
      end
      ours ? run.() : with_stock(&run)
    end
    assert_equal refusals.last, refusals.first
    refute_equal "taken", refusals.first
  end

  def test_gcm_releases_no_plaintext_before_the_tag_is_verified
    [[12, 16], [16, 16], [12, 8]].each do |iv_len, tag_len|
      setup = ->(c) { c.iv_len = iv_len; c.auth_tag_len = tag_len }
      iv = "i" * iv_len
      ct, tag = encrypt("aes-256-gcm", "secret " * 40, iv: iv, &setup)
      bad = tag.dup
      bad.setbyte(0, bad.getbyte(0) ^ 0x80)
      [tag, bad].each do |given|
        dec = OpenSSL::Cipher.new("aes-256-gcm").decrypt
        setup.(dec)
        dec.key = KEY
        dec.iv = iv
        dec.auth_tag = given
        released = ct.bytes.each_slice(64).map { |slice| dec.update(slice.pack("C*")) }.join
        assert_equal "", released, "IV #{iv_len}, tag #{tag_len}: plaintext before the final"
        if given == tag
          assert_equal "secret " * 40, dec.final
        else
          error = assert_raises(OpenSSL::Cipher::CipherError) { dec.final }
          assert_equal "mac check in GCM failed", error.message
        end
      end
    end
  end

  # javax.crypto's contract, for Java callers of jruby-openssl's provider:
  # a ShortBufferException leaves the input untaken (a retry gives the same
  # bytes); wrap mode works; a cipher whose message ran on BouncyCastle
  # keeps its key and IV for the next one without a new init.
  def test_java_callers_get_bouncy_castle_s_contract
    outcomes = [true, false].map do |ours|
      ours ? FastRandom::AES.install : FastRandom::AES.uninstall
      provider = Java::OrgJrubyExtOpenssl::SecurityHelper.getSecurityProvider
      key = javax.crypto.spec.SecretKeySpec.new(KEY.to_java_bytes, "AES")
      iv = javax.crypto.spec.IvParameterSpec.new(("v" * 16).to_java_bytes)
      ctr = javax.crypto.Cipher.getInstance("AES/CTR/NoPadding", provider)
      ctr.init(1, key, iv)
      short = Java::byte[8].new
      refused = begin
        ctr.update(("m" * 40).to_java_bytes, 0, 40, short, 0)
      rescue Java::JavaxCrypto::ShortBufferException => e
        e.message
      end
      room = Java::byte[64].new
      written = ctr.update(("m" * 40).to_java_bytes, 0, 40, room, 0)
      wrapper = javax.crypto.Cipher.getInstance("AES/CBC/PKCS5Padding", provider)
      wrapper.init(javax.crypto.Cipher::WRAP_MODE, key, iv)
      wrapped = String.from_java_bytes(wrapper.wrap(javax.crypto.spec.SecretKeySpec.new(("w" * 16).to_java_bytes, "AES")))
      gcm = javax.crypto.Cipher.getInstance("AES/GCM/NoPadding", provider)
      gcm.init(2, key, javax.crypto.spec.GCMParameterSpec.new(128, ("n" * 16).to_java_bytes)) # BouncyCastle's (16-byte nonce)
      enc = javax.crypto.Cipher.getInstance("AES/GCM/NoPadding", provider)
      enc.init(1, key, javax.crypto.spec.GCMParameterSpec.new(128, ("n" * 16).to_java_bytes))
      sealed = enc.doFinal(("p" * 40).to_java_bytes)
      twice = 2.times.map { String.from_java_bytes(gcm.doFinal(sealed)) }
      [refused, written, String.from_java_bytes(room)[0, written], wrapped, twice, String.from_java_bytes(gcm.getIV)]
    end
    assert_equal outcomes.last, outcomes.first
    assert_equal ["p" * 40] * 2, outcomes.first[4]
  ensure
    FastRandom::AES.install
  end

  def test_uninstall_gives_jruby_openssl_its_own_ciphers_back
    FastRandom::AES.uninstall
    refute FastRandom::AES.installed?
    before = FastRandom::AES.stats
    encrypt("aes-256-gcm", "m")
    assert_equal before, FastRandom::AES.stats
  ensure
    FastRandom::AES.install
  end

  private

  # [ciphertext, tag or nil], a new cipher for the message, IV "i"s unless given.
  def encrypt(name, message, iv: nil)
    c = OpenSSL::Cipher.new(name).encrypt
    c.key = KEY[0, c.key_len]
    yield c if block_given?
    c.iv = iv || "i" * c.iv_len
    ct = c.update(message) + c.final
    [ct, name.end_with?("gcm") ? c.auth_tag : nil]
  end

  def with_stock
    FastRandom::AES.uninstall
    yield
  ensure
    FastRandom::AES.install
  end
end
