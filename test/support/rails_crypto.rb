# frozen_string_literal: true

# One side of test/integration/message_encryptor_test.rb: Rails' own
# ActiveSupport::KeyGenerator and ActiveSupport::MessageEncryptor (Debian's
# activesupport 6.1, unmodified) deriving keys, decrypting messages and
# encrypting values. The same file runs on MRI (Debian's ruby, which finds
# Debian's activesupport as a gem), on stock JRuby and on JRuby with
# fast_random (both with test/support/rails_stack.rb's load path):
#
#   ruby test/support/rails_crypto.rb run < plan.json   # JSON in, JSON out
#
# A plan {"fast_random", "keys", "decrypt", "encrypt"} (see outcomes); keys,
# secrets and binary values travel as hex, messages as the base64 text Rails
# makes. The test process uses VALUES, describe and the message surgery
# below (tampered), which need neither Rails nor a particular Ruby.
require_relative "mri_script"
require "digest"

module RailsCrypto
  extend MriScript

  # What the sides encrypt, by name: each side encrypts the same values and
  # every decryption is compared, type by type, with describe(VALUES[name]).
  # The JSON ones are JSON's own types, so they come back equal.
  VALUES = {
    "string" => "session 0123456789abcdef",
    "unicode" => "héllo wörld ✓ 日本語",
    "binary" => (0..255).map(&:chr).join.b,
    "empty" => "",
    "hash" => { user_id: 42, "flash" => ["saved", :notice],
                nested: { ratio: 1.5, big: 2**70, negative: -7, none: nil, yes: true, no: false } },
    "long" => (0...12_000).map { |i| (33 + (i * 7 % 94)).chr }.join.encode(Encoding::UTF_8),
    "json_hash" => { "user_id" => 42, "session" => "0123456789abcdef", "flash" => ["saved"],
                     "ratio" => 0.25, "ok" => true, "none" => nil },
  }.freeze

  # Runs this file with MRI on +plan+; returns its JSON.
  def self.run_mri(plan) = run_script(__FILE__, "run", JSON.generate(plan))

  # Runs this file in a JRuby started by +command+ (bin/jruby and the load
  # path's options), with +env+, on +plan+; returns its JSON.
  def self.run_jruby(command, plan, env: {})
    out, err, status = Open3.capture3(env, *command, __FILE__, "run", stdin_data: JSON.generate(plan))
    raise "JRuby failed (#{command.join(' ')}): #{err}" unless status.success?

    JSON.parse(out.lines.last)
  end

  # A value as JSON that keeps what == compares: classes, encodings, bytes
  # (of a long String, its length and SHA-256).
  def self.describe(value)
    case value
    when nil, true, false then [value.inspect]
    when String
      bytes = value.bytesize > 64 ? "#{value.bytesize} bytes, SHA-256 #{Digest::SHA256.hexdigest(value)}" : hex(value)
      ["String", value.encoding.name, bytes]
    when Symbol then ["Symbol", value.to_s]
    when Integer then ["Integer", value.to_s]
    when Float then ["Float", [value].pack("G").unpack1("H*")]
    when Array then ["Array", value.map { |item| describe(item) }]
    when Hash then ["Hash", value.map { |key, item| [describe(key), describe(item)] }]
    else ["Object", value.class.name, value.inspect]
    end
  end

  def self.b64(bytes) = [bytes].pack("m0")
  def self.unb64(text) = text.unpack1("m0")

  def self.flip(bytes, index, mask = 1)
    bytes = bytes.dup
    bytes.setbyte(index, bytes.getbyte(index) ^ mask)
    bytes
  end

  # +message+ (made for +c+, a case as in outcomes) changed as +kind+ says,
  # by hand, as an attacker would: the parts are base64, "--" between them.
  # AES-256-GCM: ciphertext--iv--auth_tag. AES-256-CBC (6.1's signed form):
  # base64(ciphertext--iv)--HMAC hex; the "resigned_" kinds change the inner
  # message and sign it again with the sign secret, so that the cipher, not
  # the HMAC check, is what meets the change.
  def self.tampered(message, c, kind)
    if c["cipher"].end_with?("gcm")
      ciphertext, iv, tag = message.split("--").map { |part| unb64(part) }
      case kind
      when "ciphertext" then [flip(ciphertext, ciphertext.bytesize / 2), iv, tag]
      when "iv" then [ciphertext, flip(iv, iv.bytesize - 1), tag]
      when "auth_tag" then [ciphertext, iv, flip(tag, 15, 0x80)]
      when "ciphertext_short" then [ciphertext.byteslice(0...-1), iv, tag]
      when "tag_dropped" then [ciphertext, iv]
      when "truncated" then return message[0, message.size / 2]
      else raise ArgumentError, kind
      end.map { |part| b64(part) }.join("--")
    else
      data, signature = message.split("--")
      ciphertext, iv = unb64(data).split("--").map { |part| unb64(part) }
      inner = lambda do |c_bytes, iv_bytes|
        b64("#{b64(c_bytes)}--#{b64(iv_bytes)}")
      end
      case kind
      when "ciphertext" then "#{inner.(flip(ciphertext, 0), iv)}--#{signature}"
      when "iv" then "#{inner.(ciphertext, flip(iv, 0))}--#{signature}"
      when "signature" then "#{data}--#{signature.sub(/\A./) { |x| x == '0' ? '1' : '0' }}"
      when "truncated" then message[0, message.size / 2]
      when "signature_short" then message[0...-1]
      when "resigned_padding"
        # The last padding byte's low bit, through the block before it: no
        # PKCS#7 padding stays valid (p becomes p ^ 1 while the bytes before
        # it still say p), so the cipher rejects it every time.
        joined = iv + ciphertext
        joined = flip(joined, joined.bytesize - 17)
        signed(inner.(joined.byteslice(16..), joined.byteslice(0, 16)), c)
      when "resigned_iv" then signed(inner.(ciphertext, flip(iv, 0)), c) # the first plaintext byte
      when "resigned_short" then signed(inner.(ciphertext.byteslice(0...-1), iv), c)
      else raise ArgumentError, kind
      end
    end
  end

  # A wrong key (hex) for +message+, a CBC message made for +c+ with a sign
  # secret of its own, that leaves no valid PKCS#7 padding: its last byte,
  # decrypted, is 0 or above 16. Any other key would, about once in 256,
  # give valid padding, and Rails then parses the garbage (nil for a
  # purpose not found, JSON::ParserError, ...) instead of raising
  # InvalidMessage. The check decrypts here (JRuby's cipher); MRI's
  # answer for the same key shows whether it was right.
  def self.wrong_cbc_key(message, c)
    require "openssl"
    require "securerandom"
    ciphertext, iv = unb64(message.split("--").first).split("--").map { |part| unb64(part) }
    loop do
      key = SecureRandom.random_bytes(32)
      next if key == unhex(c["secret"])

      cipher = OpenSSL::Cipher.new(c["cipher"]).decrypt
      cipher.key = key
      cipher.iv = iv
      cipher.padding = 0
      last = (cipher.update(ciphertext) + cipher.final).getbyte(-1)
      return hex(key) if last.zero? || last > 16
    end
  end

  # +data+ signed as MessageVerifier signs it, with +c+'s sign secret.
  def self.signed(data, c)
    require "openssl"
    secret = unhex(c["sign_secret"] || c["secret"])
    "#{data}--#{OpenSSL::HMAC.hexdigest(OpenSSL::Digest.new(c['digest'] || 'SHA1'), secret, data)}"
  end

  # What this Ruby computes for +plan+:
  # * "keys": cases {"secret" or "secret_text", "salt" or "salt_hex",
  #   "options" ({"iterations", "hash_digest_class" (a name)}, or none),
  #   "key_size" (or none)}: KeyGenerator#generate_key's key in hex;
  # * "decrypt": cases {"cipher", "secret", "sign_secret", "digest",
  #   "serializer" ("marshal" or "json"), "message", "purpose"}:
  #   ["value", describe(value)] or ["raised", the exception's class];
  # * "encrypt": cases as those, "value" (a VALUES name) and "purpose",
  #   "expires_in" (seconds) or "expired" (expires_at an hour ago) in place
  #   of the message: the message.
  # In that order; with "fast_random", fast_random is required after Rails
  # (as an initializer would), and its counters around the keys and the
  # encryptions are part of the answer.
  def self.outcomes(plan)
    require "active_support"
    require "active_support/key_generator"
    require "active_support/message_encryptor"
    # expires_in: takes Time#advance, which a Rails application has loaded
    # (messages/metadata.rb does not require it).
    require "active_support/core_ext/time/calculations"
    require "json"
    require "fast_random" if plan["fast_random"]
    counters = -> { fast_random_counters if plan["fast_random"] }

    before = counters.()
    keys = plan.fetch("keys", []).map { |c| hex(key_generator(c)) }
    after_keys = counters.()
    decrypted = plan.fetch("decrypt", []).map { |c| decryption(c) }
    before_encrypt = counters.()
    encrypted = plan.fetch("encrypt", []).map { |c| encryption(c) }
    after = counters.()

    counted = plan["fast_random"] && { "derivations" => after_keys["derivations"] - before["derivations"],
                                       "openssl_draws" => after["openssl_draws"] - before_encrypt["openssl_draws"] }
    { "engine" => RUBY_ENGINE, "fast_random" => defined?(FastRandom::VERSION) ? FastRandom::VERSION : nil,
      "activesupport" => ActiveSupport::VERSION::STRING,
      "encryptor_source" => ActiveSupport::MessageEncryptor.instance_method(:encrypt_and_sign).source_location.first,
      "keys" => keys, "decrypted" => decrypted, "encrypted" => encrypted, "counted" => counted }
  end

  # PBKDF2 derivations fast_random made, and the random draws jruby-openssl
  # made from fast_random's generators (Cipher#random_iv among them).
  def self.fast_random_counters
    { "derivations" => Java::FastrandomKdf::Pbkdf2.derivations,
      "openssl_draws" => FastRandom.stats[:calls].values.sum { |kinds| kinds[:openssl] } }
  end

  def self.key_generator(c)
    secret = c.key?("secret_text") ? c["secret_text"] : unhex(c["secret"])
    salt = c.key?("salt_hex") ? unhex(c["salt_hex"]) : c["salt"]
    options = c["options"]&.to_h do |name, value|
      [name.to_sym, name == "hash_digest_class" ? OpenSSL::Digest.const_get(value) : value]
    end
    generator = options ? ActiveSupport::KeyGenerator.new(secret, options) : ActiveSupport::KeyGenerator.new(secret)
    c["key_size"] ? generator.generate_key(salt, c["key_size"]) : generator.generate_key(salt)
  end

  # MessageEncryptor.new as 6.1 takes it: the secret, for CBC the sign
  # secret as a second argument (or none: the secret signs), and options.
  def self.encryptor(c)
    options = { cipher: c.fetch("cipher") }
    options[:serializer] = JSON if c["serializer"] == "json"
    options[:digest] = c["digest"] if c["digest"]
    secrets = [unhex(c["secret"])]
    secrets << unhex(c["sign_secret"]) if c["sign_secret"]
    ActiveSupport::MessageEncryptor.new(*secrets, **options)
  end

  def self.decryption(c)
    purpose = c["purpose"]
    options = purpose ? { purpose: purpose } : {}
    ["value", describe(encryptor(c).decrypt_and_verify(c["message"], **options))]
  rescue StandardError => e
    ["raised", e.class.name]
  end

  def self.encryption(c)
    options = {}
    options[:purpose] = c["purpose"] if c["purpose"]
    options[:expires_in] = c["expires_in"] if c["expires_in"]
    options[:expires_at] = Time.now.utc - 3600 if c["expired"]
    encryptor(c).encrypt_and_sign(VALUES.fetch(c["value"]), **options)
  end
end

if $PROGRAM_NAME == __FILE__
  require "json"
  puts JSON.generate(RailsCrypto.outcomes(JSON.parse($stdin.read)))
end
