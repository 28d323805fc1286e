# frozen_string_literal: true

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

  def test_gcm_releases_no_plaintext_before_the_tag_is_verified
    ct, tag = encrypt("aes-256-gcm", "secret " * 40)
    bad = tag.dup
    bad.setbyte(15, bad.getbyte(15) ^ 0x80)
    dec = OpenSSL::Cipher.new("aes-256-gcm").decrypt
    dec.key = KEY
    dec.iv = "i" * 12
    dec.auth_tag = bad
    released = ct.bytes.each_slice(64).map { |slice| dec.update(slice.pack("C*")) }.join
    assert_equal "", released
    error = assert_raises(OpenSSL::Cipher::CipherError) { dec.final }
    assert_equal "mac check in GCM failed", error.message
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
