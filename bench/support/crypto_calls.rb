# frozen_string_literal: true

require_relative "request_stack"

module Bench
  # The timed loops of bench/crypto.rb and bench/crypto_threads.rb (methods,
  # for the reason support/calls.rb gives): each makes a new OpenSSL::Cipher
  # per message and takes the steps ActiveSupport::MessageEncryptor takes
  # (encrypt or decrypt, key, IV, empty auth_data for GCM, update, final,
  # the tag), or calls PBKDF2 or HMAC as Rails does.
  module CryptoCalls
    KEY = ("k" * 32).b.freeze
    IV = ("i" * 12).b.freeze
    SECRET = ("s" * 32).b.freeze
    SALT = "authenticated encrypted cookie"
    # What MessageEncryptor encrypts (as JSON): a small session.
    MESSAGE = { "user_id" => 42, "session" => "0123456789abcdef", "flash" => ["saved"] }.freeze

    RANDOM_IV = "Cipher#random_iv (new aes-256-gcm, key, random_iv)"
    FIXED_IV = "new aes-256-gcm, key, iv ="
    GCM_RANDOM_IV = "AES-256-GCM encrypt 200 B, random_iv"
    GCM_DECRYPT = "AES-256-GCM decrypt 200 B"
    CBC_RANDOM_IV = "AES-256-CBC encrypt 200 B, random_iv"
    ENCRYPTOR_ROUND_TRIP = "MessageEncryptor encrypt_and_sign + decrypt_and_verify"
    ENCRYPTOR_DECRYPT = "MessageEncryptor decrypt_and_verify"
    ENCRYPTOR_DISTINCT = "MessageEncryptor decrypt_and_verify, distinct messages"
    # The MessageEncryptor rows.
    ENCRYPTOR = [ENCRYPTOR_ROUND_TRIP, ENCRYPTOR_DECRYPT, ENCRYPTOR_DISTINCT].freeze
    # How many distinct messages ENCRYPTOR_DISTINCT decrypts in turn: as many sessions as a busy server sees.
    DISTINCT = 1024
    PBKDF2_SHA256 = "PKCS5.pbkdf2_hmac SHA-256, 1,000 iterations"
    PBKDF2_SHA1 = "PKCS5.pbkdf2_hmac_sha1, 1,000 iterations"
    HKDF = "KDF.hkdf SHA-256, 32 B"
    HMAC = "HMAC.hexdigest SHA-256, 200 B"
    # Message sizes of the GCM encryptions, in bytes, by their name's suffix.
    SIZES = { "200 B" => 200, "4 KB" => 4096, "10 KB" => 10_240, "64 KB" => 65_536 }.freeze
    GCM = SIZES.keys.to_h { |size| [size, "AES-256-GCM encrypt #{size}"] }.freeze
    MESSAGES = SIZES.transform_values { |bytes| ("m" * bytes).b.freeze }.freeze

    # bench/crypto.rb's calls, in the report's order.
    SINGLE = [RANDOM_IV, FIXED_IV, *GCM.values, GCM_RANDOM_IV, GCM_DECRYPT, CBC_RANDOM_IV, ENCRYPTOR_ROUND_TRIP,
              ENCRYPTOR_DECRYPT, ENCRYPTOR_DISTINCT, PBKDF2_SHA256, PBKDF2_SHA1, HKDF, HMAC].freeze
    # bench/crypto_threads.rb's calls.
    THREADED = [GCM["200 B"], GCM_DECRYPT, CBC_RANDOM_IV, GCM["64 KB"]].freeze
    # Calls per chunk (see Bench.in_chunks): fewer for the slow ones.
    CHUNKS = Hash.new(100).merge(PBKDF2_SHA256 => 1, PBKDF2_SHA1 => 1, GCM["64 KB"] => 10).freeze

    module_function

    # Rails 6.1's MessageEncryptor (aes-256-gcm, JSON), or nil and why it did not load.
    def message_encryptor
      RequestStack.prepare_load_path
      require "active_support"
      require "active_support/message_encryptor"
      require "json"
      [ActiveSupport::MessageEncryptor.new(SECRET, cipher: "aes-256-gcm", serializer: JSON), nil]
    rescue LoadError, StandardError => e
      [nil, "#{e.class}: #{e.message.split("\n").join(" ")}"]
    end

    # SHA-256 of MESSAGES["200 B"]'s ciphertext and tag under KEY and IV, and
    # the PBKDF2-HMAC-SHA256 key of the loop, both as MRI's OpenSSL makes them.
    GCM_200_DIGEST = "ebcaf8a97af314ecb1209f028285df782b336bda1234bb05ac59b310ea733159"
    PBKDF2_KEY = "e914a9d5d0187cd7acfb52830e1330c54fcc9b05596b213c914a69596c371436"
    # The HKDF-SHA256 key of the loop, as MRI's OpenSSL makes it.
    HKDF_KEY = "ac04e2260a5304f75c6b9979db1a9bcf3d675edd4aaf0ec1018179c0e4d245e6"

    # What the loops rely on works here, with MRI's bytes.
    def check(encryptor)
      ciphertext, tag = gcm(MESSAGES["200 B"], IV)
      raise "AES-256-GCM gives other bytes than MRI" unless OpenSSL::Digest.hexdigest("SHA256", ciphertext + tag) == GCM_200_DIGEST
      raise "AES-256-GCM does not round-trip" unless gcm_decrypt(ciphertext, tag) == MESSAGES["200 B"]
      raise "PBKDF2 gives another key than MRI" unless OpenSSL::PKCS5.pbkdf2_hmac(SECRET, SALT, 1000, 32, "sha256").unpack1("H*") == PBKDF2_KEY
      raise "HKDF gives another key than MRI" unless hkdf.unpack1("H*") == HKDF_KEY
      return unless encryptor && encryptor.decrypt_and_verify(encryptor.encrypt_and_sign(MESSAGE)) != MESSAGE

      raise "MessageEncryptor does not round-trip"
    end

    # Makes the call named +name+ n times, in chunks.
    def run(name, n, encryptor = nil)
      Bench.in_chunks(n, CHUNKS[name]) { |chunk| once(name, chunk, encryptor) }
    end

    def once(name, n, encryptor)
      case name
      when RANDOM_IV then ivs(n, true)
      when FIXED_IV then ivs(n, false)
      when GCM_RANDOM_IV then gcm_loop(MESSAGES["200 B"], n, true)
      when GCM_DECRYPT then decrypt_loop(n)
      when CBC_RANDOM_IV then cbc_loop(n)
      when ENCRYPTOR_ROUND_TRIP then encryptor_loop(encryptor, n)
      when ENCRYPTOR_DECRYPT then encryptor_decrypt_loop(encryptor, n)
      when ENCRYPTOR_DISTINCT then encryptor_distinct_loop(encryptor, n)
      when PBKDF2_SHA256 then n.times { OpenSSL::PKCS5.pbkdf2_hmac(SECRET, SALT, 1000, 32, "sha256") }
      when PBKDF2_SHA1 then n.times { OpenSSL::PKCS5.pbkdf2_hmac_sha1(SECRET, SALT, 1000, 32) }
      when HKDF then n.times { hkdf }
      when HMAC then hmac_loop(n)
      else gcm_loop(MESSAGES.fetch(GCM.key(name)), n, false)
      end
    end

    # HKDF-SHA256 of SECRET (stock jruby-openssl already beats MRI here: the row shows it stays so).
    def hkdf
      OpenSSL::KDF.hkdf(SECRET, salt: SALT, info: "cookie", length: 32, hash: "SHA256")
    end

    def ivs(n, random)
      i = 0
      while i < n
        cipher = OpenSSL::Cipher.new("aes-256-gcm")
        cipher.encrypt
        cipher.key = KEY
        random ? cipher.random_iv : cipher.iv = IV
        i += 1
      end
    end

    # One GCM encryption as MessageEncryptor makes it: [ciphertext, tag].
    def gcm(message, iv)
      cipher = OpenSSL::Cipher.new("aes-256-gcm")
      cipher.encrypt
      cipher.key = KEY
      iv ? cipher.iv = iv : cipher.random_iv
      cipher.auth_data = ""
      encrypted = cipher.update(message)
      encrypted << cipher.final
      [encrypted, cipher.auth_tag]
    end

    def gcm_loop(message, n, random_iv)
      iv = random_iv ? nil : IV
      i = 0
      while i < n
        gcm(message, iv)
        i += 1
      end
    end

    def gcm_decrypt(ciphertext, tag)
      cipher = OpenSSL::Cipher.new("aes-256-gcm")
      cipher.decrypt
      cipher.key = KEY
      cipher.iv = IV
      cipher.auth_tag = tag
      cipher.auth_data = ""
      decrypted = cipher.update(ciphertext)
      decrypted << cipher.final
    end

    def decrypt_loop(n)
      ciphertext, tag = gcm(MESSAGES["200 B"], IV)
      i = 0
      while i < n
        gcm_decrypt(ciphertext, tag)
        i += 1
      end
    end

    def cbc_loop(n)
      message = MESSAGES["200 B"]
      i = 0
      while i < n
        cipher = OpenSSL::Cipher.new("aes-256-cbc")
        cipher.encrypt
        cipher.key = KEY
        cipher.random_iv
        encrypted = cipher.update(message)
        encrypted << cipher.final
        i += 1
      end
    end

    def encryptor_loop(encryptor, n)
      i = 0
      while i < n
        encryptor.decrypt_and_verify(encryptor.encrypt_and_sign(MESSAGE))
        i += 1
      end
    end

    def encryptor_decrypt_loop(encryptor, n)
      token = encryptor.encrypt_and_sign(MESSAGE)
      i = 0
      while i < n
        encryptor.decrypt_and_verify(token)
        i += 1
      end
    end

    # Tokens of DISTINCT sessions, each its own IV and ciphertext, made once.
    def distinct_tokens(encryptor)
      @distinct_tokens ||= Array.new(DISTINCT) { |i| encryptor.encrypt_and_sign(MESSAGE.merge("user_id" => i)) }.freeze
    end

    # The index goes on from call to call: benchmark-ips calls with n of 1 while it warms up and about 100 ms'
    # worth after, which restarting at 0 would spend on the first tokens only.
    def encryptor_distinct_loop(encryptor, n)
      tokens = distinct_tokens(encryptor)
      at = @distinct_at || 0
      i = 0
      while i < n
        encryptor.decrypt_and_verify(tokens[(at + i) % DISTINCT])
        i += 1
      end
      @distinct_at = (at + n) % DISTINCT
    end

    # Runs +name+ in 1 s windows until the JVM's JIT is done with it: three windows in a row with under 10 ms of
    # compilation each, at least 3 s, at most 60 s (MRI: 3 s). benchmark-ips's warm-up (3 s) ends mid-ramp on a
    # busy 2-core machine, where JRuby's rows take 10 to 30 s to reach their compiled speed. Returns the seconds.
    def settle(name, encryptor)
      jit = RUBY_ENGINE == "jruby" ? java.lang.management.ManagementFactory.getCompilationMXBean : nil
      seconds = quiet = 0
      while seconds < 60 && (seconds < 3 || quiet < 3)
        compiled = jit ? jit.getTotalCompilationTime : 0
        started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        once(name, CHUNKS[name], encryptor) while Process.clock_gettime(Process::CLOCK_MONOTONIC) - started < 1
        quiet = jit && jit.getTotalCompilationTime - compiled >= 10 ? 0 : quiet + 1
        seconds += 1
      end
      seconds
    end

    def hmac_loop(n)
      message = MESSAGES["200 B"]
      i = 0
      while i < n
        OpenSSL::HMAC.hexdigest("SHA256", SECRET, message)
        i += 1
      end
    end
  end
end
