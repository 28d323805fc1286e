# frozen_string_literal: true

# Passes main: Rails' crypto on each JRuby's jruby-openssl; AES and PBKDF2 need no native library or hidden CPU feature.

require_relative "../test_helper"
require_relative "../support/rails_stack"
require_relative "../support/rails_crypto"
require "openssl"
require "json"

# Rails' own ActiveSupport::KeyGenerator and ActiveSupport::MessageEncryptor
# (Debian's activesupport 6.1, unmodified; test/support/rails_crypto.rb runs
# them) on JRuby with fast_random interoperate with MRI both ways, and agree
# with stock JRuby (no fast_random), the reference for the JRuby side:
# * KeyGenerator#generate_key gives MRI's bytes, every key derived by
#   fast_random's PBKDF2;
# * messages (Marshal and JSON serializers, purpose: and expires_in:/
#   expires_at: metadata) encrypted with AES-256-GCM and with AES-256-CBC
#   (6.1's HMAC-signed form, one secret or two, SHA1 or SHA256) on one side
#   decrypt to equal values on the other, and a wrong purpose or an expired
#   message gives nil everywhere; every IV is fresh, fast_random's ones
#   drawn from its generators;
# * tampered messages (ciphertext, IV, auth tag or signature changed, parts
#   cut off or dropped; for CBC also changed and signed again, so that the
#   cipher itself meets the change), wrong keys and wrong sign secrets give
#   the same outcome on every side: InvalidMessage where the cipher or
#   Rails' tag check rejects the message, MessageVerifier::InvalidSignature
#   where 6.1's HMAC check does (it runs first for CBC, and 6.1 re-raises
#   it as it is), and what expected_outcome says for the one change that
#   decrypts.
#
# Rails runs in child processes only (its core extensions stay out of this
# test process), one at a time, each once: MRI encrypts; stock JRuby
# decrypts MRI's messages and encrypts; JRuby with fast_random (required
# after Rails, as an initializer would) decrypts MRI's and stock's and
# encrypts; MRI decrypts fast_random's and stock's. The tampering is done
# here, by hand, on the messages each side made. VERBOSE=1 prints each
# run's time.
class MessageEncryptorTest < Minitest::Test
  INVALID_MESSAGE = "ActiveSupport::MessageEncryptor::InvalidMessage"
  INVALID_SIGNATURE = "ActiveSupport::MessageVerifier::InvalidSignature"
  PARSER_ERROR = "JSON::ParserError"

  # The encryptors: 6.1's MessageEncryptor.new(secret[, sign_secret], cipher:, digest:).
  CIPHERS = {
    "gcm" => { "cipher" => "aes-256-gcm" },
    "cbc" => { "cipher" => "aes-256-cbc", "sign_secret" => true },
    "cbc_one_secret" => { "cipher" => "aes-256-cbc" },
    "cbc_sha256" => { "cipher" => "aes-256-cbc", "sign_secret" => true, "digest" => "SHA256" },
  }.freeze
  # [value name, serializer]: the JSON ones are JSON's own types.
  SERIALIZED = [%w[string marshal], %w[unicode marshal], %w[binary marshal], %w[empty marshal], %w[hash marshal],
                %w[long marshal], %w[string json], %w[unicode json], %w[json_hash json], %w[long json]].freeze
  METADATA = [{}, { "purpose" => "login" }, { "expires_in" => 3600 }, { "purpose" => "login", "expires_in" => 3600 },
              { "expired" => true }].freeze

  # What is tampered with: three more messages of each encryptor, made as
  # these say, each changed in these ways.
  TAMPERED = [["hash", "marshal", {}], ["hash", "marshal", { "purpose" => "login", "expires_in" => 3600 }],
              ["json_hash", "json", {}]].freeze
  GCM_TAMPERING = %w[ciphertext iv auth_tag ciphertext_short tag_dropped truncated wrong_key].freeze
  CBC_TAMPERING = %w[ciphertext iv signature truncated signature_short wrong_sign_secret wrong_key
                     resigned_padding resigned_iv resigned_short].freeze

  # Rails' own answer to each tampering of a message made for case +c+ (see
  # the class comment): the HMAC check meets every change of a signed CBC
  # message, and a wrong key where the key signs; the cipher meets a wrong
  # key otherwise (one that breaks the padding: RailsCrypto.wrong_cbc_key),
  # and the changes signed again: the padding always breaks, a partial
  # block breaks the cipher's final, and the first plaintext byte changed
  # breaks Marshal's header (TypeError, InvalidMessage), the JSON
  # (JSON::ParserError, which 6.1 lets through), or, for a message with a
  # purpose, the metadata's JSON, which leaves a message without the
  # purpose asked for: nil, as for a wrong purpose. Every outcome is fixed
  # by the message's structure, none by chance.
  def self.expected_outcome(c, tampering)
    raised = lambda do
      return INVALID_MESSAGE if c["encryptor"] == "gcm"
      return INVALID_SIGNATURE if tampering == "wrong_key" && c["encryptor"] == "cbc_one_secret"
      return PARSER_ERROR if tampering == "resigned_iv" && c["serializer"] == "json"
      return INVALID_MESSAGE if %w[wrong_key resigned_padding resigned_iv resigned_short].include?(tampering)

      INVALID_SIGNATURE
    end
    return ["value", ["nil"]] if tampering == "resigned_iv" && c["purpose"]

    ["raised", raised.()]
  end

  # The keys: Rails' secret_key_base (128 hex characters, used as text) and
  # binary secrets, Rails' own salts and random binary ones, 1,000
  # iterations as Rails' application key generator uses and one at
  # KeyGenerator's default (2**16); the default key size (64) and 32, the
  # ciphers' key length. hash_digest_class came in Rails 7.0: 6.1 ignores
  # it, so those keys are SHA1's on every side.
  def self.key_cases
    salts = ["authenticated encrypted cookie", "signed encrypted cookie", "encrypted cookie", "signed cookie"]
    cases = []
    4.times do |i|
      secret = i.even? ? { "secret_text" => SecureRandom.hex(64) } : { "secret" => SecureRandom.hex(32 + i) }
      salt = i < 2 ? { "salt" => salts[i] } : { "salt_hex" => SecureRandom.hex(8 * i) }
      [{ "iterations" => 1000 }, { "iterations" => 1000, "hash_digest_class" => "SHA256" },
       { "iterations" => 1000, "hash_digest_class" => "SHA1" }].each do |options|
        cases << secret.merge(salt, "options" => options, "key_size" => 32)
      end
      cases << secret.merge(salt, "options" => { "iterations" => 1000 })
    end
    cases << { "secret_text" => SecureRandom.hex(64), "salt" => salts[2], "key_size" => 32 }
  end

  # Every encryption each side makes: each encryptor with each value and
  # serializer, the metadata in turn (every pair of encryptor and metadata,
  # and of serializer and metadata, comes up), and the messages to tamper with.
  def self.encrypt_cases
    CIPHERS.each_with_index.flat_map do |(name, cipher), turn|
      secrets = { "secret" => SecureRandom.hex(32) }
      secrets["sign_secret"] = SecureRandom.hex(64) if cipher["sign_secret"]
      made = lambda do |value, serializer, metadata, tamper|
        cipher.merge(secrets, "encryptor" => name, "value" => value, "serializer" => serializer, **metadata,
                              "tamper" => tamper)
      end
      in_turn = SERIALIZED.each_with_index.map do |(value, serializer), i|
        made.(value, serializer, METADATA[(i + turn) % METADATA.size], false)
      end
      in_turn + TAMPERED.map { |value, serializer, metadata| made.(value, serializer, metadata, true) }
    end
  end

  # What each side decrypts of +messages+, made by +source+ for +cases+:
  # each message as sent (with its purpose), with a wrong purpose or one it
  # was not given, and the tampered ones; each with the outcome Rails gives
  # ("expect", which the sides do not see) and a label for messages.
  def self.decrypt_requests(source, cases, messages)
    cases.zip(messages).flat_map do |c, message|
      request = c.slice("cipher", "secret", "sign_secret", "digest", "serializer", "purpose")
                 .merge("message" => message, "tampering" => nil)
      value = ["value", c["expired"] ? ["nil"] : RailsCrypto.describe(RailsCrypto::VALUES.fetch(c["value"]))]
      metadata = c.slice("purpose", "expires_in", "expired")
      label = "#{source}'s #{c['encryptor']} #{c['serializer']} #{c['value']} #{metadata}"
      requests = [request.merge("expect" => value, "label" => label)]
      requests << request.merge("purpose" => c["purpose"] ? "other" : "login", "expect" => ["value", ["nil"]],
                                "label" => "#{label}, wrong purpose")
      if c["tamper"]
        tamperings = c["cipher"].end_with?("gcm") ? GCM_TAMPERING : CBC_TAMPERING
        requests += tamperings.map { |tampering| tampered_request(request, c, tampering, label) }
      end
      requests
    end
  end

  def self.tampered_request(request, c, tampering, label)
    expect = expected_outcome(c, tampering)
    request = request.merge("tampering" => tampering, "expect" => expect, "label" => "#{label}, #{tampering}")
    case tampering
    when "wrong_key"
      wrong = c["sign_secret"] ? RailsCrypto.wrong_cbc_key(request["message"], c) : SecureRandom.hex(32)
      request.merge("secret" => wrong)
    when "wrong_sign_secret" then request.merge("sign_secret" => SecureRandom.hex(64))
    else request.merge("message" => RailsCrypto.tampered(request["message"], c, tampering))
    end
  end

  # The four runs, once for all the tests of this class (an exception is
  # kept and raised in each test).
  def self.exchange
    @exchange ||= begin
      keys = key_cases
      encrypt = encrypt_cases
      # --quick-start's C1 only, as the servlet harness runs: in a short
      # process that loads Rails, C2 costs more than it gains (about half the CPU time).
      jruby = [*TestHelper.jruby_command, *RailsStack.load_path_args]
      run = {}
      requests = {}

      # What a side is given of the requests: not what the test expects.
      sent = ->(*lists) { lists.flatten.map { |request| request.except("expect", "label", "tampering") } }
      clock = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
      timed = lambda do |name, &work|
        run_started = clock.()
        run[name] = work.call
        puts "\n  MessageEncryptor exchange, #{name}: #{(clock.() - run_started).round(1)} s" if ENV["VERBOSE"]
      end

      timed.(:mri) { RailsCrypto.run_mri("keys" => keys, "encrypt" => encrypt) }
      requests[:mri] = decrypt_requests("MRI", encrypt, run[:mri]["encrypted"])
      timed.(:stock) do
        RailsCrypto.run_jruby(jruby, { "keys" => keys, "decrypt" => sent.(requests[:mri]), "encrypt" => encrypt })
      end
      requests[:stock] = decrypt_requests("stock JRuby", encrypt, run[:stock]["encrypted"])
      timed.(:fast) do
        plan = { "fast_random" => true, "keys" => keys, "decrypt" => sent.(requests[:mri], requests[:stock]),
                 "encrypt" => encrypt }
        RailsCrypto.run_jruby(jruby, plan)
      end
      requests[:fast] = decrypt_requests("fast_random", encrypt, run[:fast]["encrypted"])
      timed.(:mri_decrypt) { RailsCrypto.run_mri("decrypt" => sent.(requests[:fast], requests[:stock])) }

      { keys: keys, encrypt: encrypt, run: run, requests: requests }
    rescue StandardError => e
      e
    end
  end

  def setup
    skip "Rails' crypto runs on JRuby here, against MRI; this is #{RUBY_ENGINE}" unless RUBY_ENGINE == "jruby"
    unless TestHelper.main_pass?
      skip "the Rails exchange runs in bin/test's main passes only, as the other end-to-end tests (docs/testing.md)"
    end
    problem = RailsStack.problem
    skip problem if problem

    exchange = self.class.exchange
    raise exchange if exchange.is_a?(Exception)

    @keys, @encrypt, @run, @requests = exchange.values_at(:keys, :encrypt, :run, :requests)
  end

  # [request, outcome] of what +side+ decrypted, the requests made from
  # +sources+' messages (in the order the side was given them).
  def decrypted(side, *sources)
    requests = sources.flat_map { |source| @requests.fetch(source) }
    outcomes = @run.fetch(side)["decrypted"]
    assert_equal requests.size, outcomes.size, "#{side} decrypted as many messages as it was given"
    requests.zip(outcomes)
  end

  # Everything the sides decrypted: [decrypting side, request, outcome].
  def all_decryptions
    [[:stock, :mri], [:fast, :mri, :stock], [:mri_decrypt, :fast, :stock]].flat_map do |side, *sources|
      decrypted(side, *sources).map { |request, outcome| [side, request, outcome] }
    end
  end

  def assert_outcomes(pairs_by_side)
    failures = pairs_by_side.reject { |_side, request, outcome| outcome == request["expect"] }
    shown = failures.first(5).map do |side, request, outcome|
      "#{side} decrypting #{request['label']}: #{outcome.inspect[0, 300]}, expected #{request['expect'].inspect[0, 300]}"
    end
    assert_empty shown, "#{failures.size} of #{pairs_by_side.size} decryptions"
  end

  def test_key_generator_gives_mri_s_keys_on_jruby_with_fast_random_and_stock
    mri = @run[:mri]["keys"]
    assert_equal @keys.map { |c| 2 * c.fetch("key_size", 64) }, mri.map(&:size), "MRI's key sizes, in hex digits"
    @keys.each_with_index do |c, i|
      assert_equal mri[i], @run[:fast]["keys"][i], "fast_random, #{c}"
      assert_equal mri[i], @run[:stock]["keys"][i], "stock, #{c}"
    end
    assert_equal @keys.size, @run[:fast]["counted"]["derivations"], "keys fast_random's PBKDF2 derived"

    # 6.1 derives with SHA1 whatever hash_digest_class says; other inputs, other keys.
    by_input = @keys.zip(mri).group_by do |c, _key|
      c.except("options").merge("iterations" => c.dig("options", "iterations"))
    end
    assert_equal 9, by_input.size
    by_input.each_value { |same| assert_equal 1, same.map(&:last).uniq.size, same.map(&:first).inspect }
    assert_equal by_input.size, by_input.values.map { |same| same.first.last }.uniq.size
  end

  def test_messages_from_jruby_decrypt_on_mri_and_from_mri_on_jruby
    plain = all_decryptions.reject { |_side, request, _outcome| request["tampering"] }
    assert_outcomes(plain)
    # Five sets of messages decrypted (MRI's on stock and on fast_random,
    # stock's on fast_random and on MRI, fast_random's on MRI), each message
    # once with its purpose: those not expired give their value.
    values = plain.count { |_side, request, _outcome| request["expect"] != ["value", ["nil"]] }
    assert_equal 5 * @encrypt.count { |c| !c["expired"] }, values, "decryptions that give a value"
  end

  def test_tampered_messages_wrong_keys_and_wrong_sign_secrets_raise_on_jruby_and_mri
    tampered = all_decryptions.select { |_side, request, _outcome| request["tampering"] }
    assert_outcomes(tampered)
    kinds = tampered.map { |_side, _request, outcome| outcome.first == "raised" ? outcome.last : outcome.inspect }
    assert_equal [INVALID_MESSAGE, INVALID_SIGNATURE, PARSER_ERROR, '["value", ["nil"]]'].sort, kinds.uniq.sort
    # Five sets of messages, as above, each with these tamperings.
    assert_equal 5 * TAMPERED.size * (GCM_TAMPERING.size + 3 * CBC_TAMPERING.size), tampered.size
  end

  # Stock JRuby is the reference: on the same messages (MRI's), JRuby with
  # fast_random gives what stock gives, decryption by decryption; MRI gives
  # for fast_random's messages what it gives for stock's, and fast_random
  # for stock's what MRI does.
  def test_fast_random_and_stock_jruby_agree
    mri_made = @requests[:mri].size
    fast = @run[:fast]["decrypted"]
    assert_same_outcomes @requests[:mri], @run[:stock]["decrypted"], fast.first(mri_made),
                         "MRI's messages on stock JRuby and on fast_random"

    on_mri = @run[:mri_decrypt]["decrypted"]
    stock_made = @requests[:stock].size
    assert_equal stock_made, @requests[:fast].size
    assert_same_outcomes @requests[:stock], on_mri.last(stock_made), on_mri.first(stock_made),
                         "on MRI, stock's messages and fast_random's"
    assert_same_outcomes @requests[:stock], on_mri.last(stock_made), fast.last(stock_made),
                         "stock's messages on MRI and on fast_random"
  end

  # +reference+ and +outcomes+, the outcomes of +requests+ (or of requests
  # made alike from other messages), are the same, one by one.
  def assert_same_outcomes(requests, reference, outcomes, what)
    assert_equal reference.size, outcomes.size, what
    differing = requests.each_index.reject { |i| reference[i] == outcomes[i] }
    shown = differing.first(5).map do |i|
      "#{requests[i]['label']}: #{outcomes[i].inspect[0, 300]}, the reference #{reference[i].inspect[0, 300]}"
    end
    assert_empty shown, "#{what}: #{differing.size} of #{requests.size} differ"
  end

  def test_each_side_ran_rails_6_1_as_it_claims_and_made_fresh_ivs
    mri, stock, fast = @run.values_at(:mri, :stock, :fast)
    assert_equal "ruby", mri["engine"]
    assert_equal %w[jruby jruby], [stock["engine"], fast["engine"]]
    assert_nil stock["fast_random"], "stock JRuby loaded fast_random"
    assert_equal FastRandom::VERSION, fast["fast_random"]
    assert_match(/\A6\.1\./, mri["activesupport"])
    assert_equal [mri["activesupport"]] * 3, [mri, stock, fast].map { |side| side["activesupport"] }
    [stock, fast].each do |side|
      assert_equal File.join(RailsStack.library_dir("activesupport"), "active_support/message_encryptor.rb"),
                   side["encryptor_source"]
    end
    assert_operator fast["counted"]["openssl_draws"], :>=, @encrypt.size,
                    "random IVs drawn from fast_random's generators (one per encryption)"

    ivs = [mri, stock, fast].flat_map do |side|
      @encrypt.zip(side["encrypted"]).map do |c, message|
        if c["cipher"].end_with?("gcm")
          _ciphertext, iv, tag = message.split("--").map { |part| RailsCrypto.unb64(part) }
          assert_equal 16, tag.bytesize, message
          assert_equal 12, iv.bytesize, message
        else
          data, signature = message.split("--")
          assert_match(/\A\h{#{c['digest'] == 'SHA256' ? 64 : 40}}\z/, signature)
          iv = RailsCrypto.unb64(RailsCrypto.unb64(data).split("--").last)
          assert_equal 16, iv.bytesize, message
        end
        iv
      end
    end
    assert_equal 3 * @encrypt.size, ivs.size
    assert_equal ivs.size, ivs.uniq.size, "a random IV repeated"
  end
end
