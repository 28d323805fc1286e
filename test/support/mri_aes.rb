# frozen_string_literal: true

# MRI's side of the AES interop test (test/cipher/aes_test.rb): MRI's
# OpenSSL encrypts the cases JRuby encrypted, decrypts JRuby's ciphertexts
# (and the broken ones), and makes cases of its own for JRuby to decrypt.
#
#   ruby test/support/mri_aes.rb answer < cases   # JSON in, JSON out
#
# The JRuby side calls AesCases.encrypt and .decrypt too: one code path.
require_relative "mri_script"

module AesCases
  extend MriScript

  CIPHERS = %w[aes-128-gcm aes-192-gcm aes-256-gcm aes-128-cbc aes-192-cbc aes-256-cbc aes-128-ctr aes-192-ctr aes-256-ctr].freeze

  # Runs this file with MRI; returns its JSON.
  def self.run(command, input = "") = run_script(__FILE__, command, input)

  # A case: {"cipher", "key", "iv", "data" (hex), and optionally "iv_len",
  # "aad" (hex), "tag_len", "padding" (0), "tag" (hex, to decrypt)}.
  def self.cipher(c, direction)
    require "openssl"
    cipher = OpenSSL::Cipher.new(c.fetch("cipher"))
    direction == :encrypt ? cipher.encrypt : cipher.decrypt
    cipher.iv_len = c["iv_len"] if c["iv_len"]
    cipher.padding = c["padding"] if c["padding"]
    cipher.key = unhex(c.fetch("key"))
    cipher.iv = unhex(c.fetch("iv"))
    cipher
  end

  # {"ct", "tag"} (hex; tag nil but for GCM), or [class, message].
  def self.encrypt(c)
    cipher = cipher(c, :encrypt)
    cipher.auth_data = unhex(c["aad"]) if c["aad"]
    data = unhex(c.fetch("data"))
    ct = (data.empty? ? "".b : cipher.update(data)) + cipher.final
    { "ct" => hex(ct), "tag" => cipher.authenticated? ? hex(cipher.auth_tag(c.fetch("tag_len", 16))) : nil }
  rescue StandardError => e
    [e.class.name, e.message]
  end

  # {"pt"} (hex), or [class, message]. "data" is the ciphertext here.
  # jruby-openssl checks a tag of auth_tag_len bytes, 16 unless set, where
  # MRI takes the tag's length (and cannot set auth_tag_len for GCM).
  def self.decrypt(c)
    cipher = cipher(c, :decrypt)
    if c["tag"]
      tag = unhex(c["tag"])
      cipher.auth_tag_len = tag.bytesize if RUBY_ENGINE == "jruby"
      cipher.auth_tag = tag
    end
    cipher.auth_data = unhex(c["aad"]) if c["aad"]
    data = unhex(c.fetch("data"))
    { "pt" => hex((data.empty? ? "".b : cipher.update(data)) + cipher.final) }
  rescue StandardError => e
    [e.class.name, e.message]
  end

  # Cases MRI makes with its own random bytes: [case (to decrypt), plaintext].
  def self.make(count)
    require "openssl"
    random = ->(n) { OpenSSL::Random.random_bytes(n) }
    Array.new(count) do |i|
      name = CIPHERS[i % CIPHERS.size]
      cipher = OpenSSL::Cipher.new(name).encrypt
      gcm = name.end_with?("gcm")
      c = { "cipher" => name }
      c["iv_len"] = [12, 16, 8][i / CIPHERS.size % 3] if gcm
      cipher.iv_len = c["iv_len"] if gcm
      c["key"] = hex(key = random.(cipher.key_len))
      c["iv"] = hex(iv = random.(cipher.iv_len))
      cipher.key = key
      cipher.iv = iv
      pt = random.(OpenSSL::Random.random_bytes(2).unpack1("n") % 700)
      if gcm
        c["aad"] = hex(aad = random.(i % 40))
        cipher.auth_data = aad
      end
      c["data"] = hex((pt.empty? ? "".b : cipher.update(pt)) + cipher.final)
      c["tag"] = hex(cipher.auth_tag) if gcm
      [c, hex(pt)]
    end
  end

  # The whole batch in one process: {"encrypt" => cases, "decrypt" =>
  # cases, "make" => count} in; each list's outcomes, and the cases made, out.
  def self.answer(input)
    { "encrypt" => input.fetch("encrypt").map { |c| encrypt(c) },
      "decrypt" => input.fetch("decrypt").map { |c| decrypt(c) },
      "made" => make(input.fetch("make")),
      "openssl" => OpenSSL::OPENSSL_LIBRARY_VERSION }
  end
end

if $PROGRAM_NAME == __FILE__
  require "json"
  abort "usage: ruby #{__FILE__} answer < cases.json" unless ARGV == ["answer"]
  puts JSON.generate(AesCases.answer(JSON.parse($stdin.read)))
end
