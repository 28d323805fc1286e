# frozen_string_literal: true

# Passes main, 9.4-fallback: keys come from libcrypto, or from jruby-openssl's BouncyCastle without the library.

require_relative "../test_helper"
require_relative "../support/fail_over"
require_relative "../support/mri_ec"
require "jruby"
require "json"
require "openssl"

# EC key generation (EC.generate, EC#generate_key!, #generate_key) on the
# :openssl engine for P-256 and P-521: OpenSSL's own generator, the key
# built as BouncyCastle's generator builds jruby-openssl's. Checked against
# BouncyCastle's own keys (the same classes and encodings for the same
# values), against stock (the same structure, errors and curve names),
# against MRI (check_key accepts every key, ECDH secrets agree), and for
# what a generator owes: every key different, the private values uniform
# enough to see, a failing native call replaced by stock's generator.
class EcKeyGenerationTest < Minitest::Test
  include FailOver::Assertions

  EC = OpenSSL::PKey::EC
  NATIVE_CURVES = %w[prime256v1 secp521r1].freeze
  # Names jruby-openssl passes on as given, each with the curve OpenSSL calls it.
  NAMES = { "prime256v1" => "prime256v1", "secp256r1" => "prime256v1", "secp521r1" => "secp521r1",
            "secp384r1" => "secp384r1", "secp256k1" => "secp256k1", "secp224r1" => "secp224r1" }.freeze

  def setup
    FastRandom::EC.install
    @engine_before = FastRandom::EC.engine # the choice made: generation does not wait for it (test_the_first_generation_does_not_wait)
  end

  def teardown
    FastRandom::EC.install
    FastRandom::EC.engine = @engine_before
  end

  def native? = TestHelper.libcrypto_expected?

  # Key generations per engine during the block: {openssl: n, java: n}.
  def generations
    before = FastRandom::EC.stats
    yield
    after = FastRandom::EC.stats
    %i[openssl java].to_h { |engine| [engine, after[engine][:generate] - before[engine][:generate]] }
  end

  def stock
    FastRandom::EC.uninstall
    yield
  ensure
    FastRandom::EC.install
  end

  def ways
    {
      "EC.generate(name)" => ->(name) { EC.generate(name) },
      "EC.generate(group)" => ->(name) { EC.generate(EC::Group.new(name)) },
      "EC.new(name).generate_key" => ->(name) { EC.new(name).generate_key },
    }.merge(EC.method_defined?(:generate_key!) ? { "EC.new(name).generate_key!" => ->(name) { EC.new(name).generate_key! } } : {})
     .merge(generate_key_from_params? ? { "PKey.generate_key(EC key)" => ->(name) { OpenSSL::PKey.generate_key(EC.new(name)) } } : {})
  end

  # Whether OpenSSL::PKey.generate_key takes an EC key's parameters (jruby-openssl 0.16.2 and later).
  def generate_key_from_params?
    OpenSSL::PKey.respond_to?(:generate_key) && OpenSSL::PKey.generate_key(EC.new("prime256v1")).is_a?(EC)
  rescue StandardError
    false
  end



  # Each way, each name: P-256 and P-521 on libcrypto, the others on
  # jruby-openssl's code (counted as java), and the key works.
  def test_every_way_to_generate_runs_where_it_should
    NAMES.each do |name, curve|
      ways.each do |label, way|
        key = nil
        counts = generations { key = way.(name) }
        on_engine = native? && NATIVE_CURVES.include?(curve)
        assert_equal(on_engine ? { openssl: 1, java: 0 } : { openssl: 0, java: 1 }, counts, "#{label} #{name}")
        assert key.private_key?, "#{label} #{name}"
        assert key.public_key?, "#{label} #{name}"
        assert_equal stock { way.(name) }.group.curve_name, key.group.curve_name, "#{label} #{name}"
        assert key.verify("SHA256", key.sign("SHA256", "data"), "data"), "#{label} #{name}"
      end
    end
  end

  # What a generated key shows Ruby is a stock key's: the DER and PEM
  # structures (every tag, OID, version and length), the public key's
  # encodings, and a round trip through PEM. (Values differ, so the
  # structures are compared.)
  def test_a_generated_key_looks_like_a_stock_one
    NAMES.each_key do |name|
      ours = EC.generate(name)
      theirs = stock { EC.generate(name) }
      assert_equal shape(theirs.to_der), shape(ours.to_der), "to_der, #{name}"
      assert_equal shape(theirs.public_to_der), shape(ours.public_to_der), "public_to_der, #{name}" if ours.respond_to?(:public_to_der)
      assert_equal theirs.public_key.to_bn.to_s(2).bytesize, ours.public_key.to_bn.to_s(2).bytesize, "public point, #{name}"
      assert_equal theirs.to_pem.lines.first, ours.to_pem.lines.first, name
      # jruby-openssl 0.15.0 writes a PEM it cannot read back: so does a stock key there.
      assert_equal round_trip(theirs).class, round_trip(ours).class, name
      read = round_trip(ours)
      next if read.is_a?(Exception)

      assert_equal ours.private_key, read.private_key, name
      assert_equal ours.public_key.to_bn, read.public_key.to_bn, name
      assert_equal ours.to_der, read.to_der, name
      assert_equal ours.group.curve_name, ours.public_key.group.curve_name, name
    end
  end

  def round_trip(key)
    EC.new(key.to_pem)
  rescue StandardError => e
    e
  end

  # A DER encoding with the values blanked: tags, OIDs, lengths.
  def shape(der)
    walk = lambda do |node|
      case node
      when OpenSSL::ASN1::ObjectId then [:oid, node.oid]
      when OpenSSL::ASN1::Constructive then [node.class.name, node.tag, node.value.map(&walk)]
      when OpenSSL::ASN1::Integer then [:integer, node.value < 2 ? node.value.to_i : node.value.num_bytes > 8]
      else [node.class.name, node.tag, node.value.is_a?(String) ? node.value.bytesize : node.value.class.name]
      end
    end
    walk.(OpenSSL::ASN1.decode(der))
  end

  # The Java keys themselves: for the same values, fast_random's keys are
  # BouncyCastle's generator's, class for class and byte for byte (so
  # whatever jruby-openssl or a Java caller does with them is stock's).
  def test_the_java_keys_are_bouncycastle_s_generator_s
    bc = Java::OrgJrubyExtOpenssl::SecurityHelper.getSecurityProvider
    bc = bc.bouncyCastle if bc.respond_to?(:bouncyCastle)
    keys_class = java.lang.Class.forName("fastrandom.ec.jca.BouncyCastleEcKeys", true, JRuby.runtime.jruby_class_loader)
    named = keys_class.getDeclaredMethod("named", java.lang.String.java_class)
    named.setAccessible(true)
    big = java.math.BigInteger.java_class
    key_pair = keys_class.getDeclaredMethod("keyPair", big, big, big)
    key_pair.setAccessible(true)
    %w[prime256v1 secp256r1 P-256 secp521r1 P-521].each do |name|
      generator = java.security.KeyPairGenerator.getInstance("EC", bc)
      generator.java_send(:initialize, [java.security.spec.AlgorithmParameterSpec], java.security.spec.ECGenParameterSpec.new(name))
      theirs = generator.generateKeyPair
      keys = named.invoke(nil, name)
      refute_nil keys, name
      w = theirs.getPublic.getW
      ours = key_pair.invoke(keys, theirs.getPrivate.getS, w.getAffineX, w.getAffineY)
      [[theirs.getPublic, ours.getPublic], [theirs.getPrivate, ours.getPrivate]].each do |a, b|
        assert_equal a.java_class, b.java_class, name
        assert_equal a.getEncoded.to_a, b.getEncoded.to_a, name
        assert_equal a.getParams.java_class, b.getParams.java_class, name
        assert_equal a.getParams.getName, b.getParams.getName, name
        assert_equal [a.getAlgorithm, a.getFormat, a.hashCode, a.toString], [b.getAlgorithm, b.getFormat, b.hashCode, b.toString], name
        assert a.equals(b), name
      end
    end
    # Names BouncyCastle resolves otherwise (an OID, a name with a space) are left to it.
    assert_nil named.invoke(nil, "1.2.840.10045.3.1.7")
    assert_nil named.invoke(nil, "X9.62 prime256v1")
  end

  # MRI's OpenSSL accepts every key (check_key: the point is d G and on the
  # curve) and agrees on its ECDH secrets.
  def test_mri_accepts_the_keys_and_agrees_on_ecdh
    entries = NATIVE_CURVES.flat_map do |curve|
      peer = EC.generate(curve)
      Array.new(4) { { "curve" => curve, "key" => EC.generate(curve), "peer" => peer } }
    end
    values = entries.map do |entry|
      key = entry["key"]
      length = key.public_key.to_bn.to_s(2).bytesize / 2
      { "curve" => entry["curve"], "private" => MriEc.hex(key.private_key.to_s(2).rjust(length, "\0")),
        "public" => MriEc.hex(key.public_key.to_bn.to_s(2)), "peer_public" => MriEc.hex(entry["peer"].public_key.to_bn.to_s(2)) }
    end
    verdicts = MriEc.run("check_generated", JSON.generate(values))
    entries.zip(verdicts).each do |entry, mri|
      assert_equal true, mri["check_key"], entry["curve"]
      assert_equal entry["curve"], mri["curve"]
      assert_equal mri["secret"], MriEc.hex(TestHelper.ecdh(entry["key"], entry["peer"])), entry["curve"]
    end
  end

  # Every key is new, every private value in [1, n), and their top bits
  # are set about half the time (a generator stuck on a value or a bias
  # would show: 2,000 keys give 0.5 +- 0.011).
  def test_keys_are_all_different_and_in_range
    NATIVE_CURVES.each do |curve|
      keys = Array.new(curve == "secp521r1" ? 500 : 2_000) { EC.generate(curve) }
      privates = keys.map(&:private_key)
      order = keys.first.group.order
      assert_equal privates.size, privates.uniq.size, curve
      assert_equal keys.size, keys.map { |k| k.public_key.to_bn }.uniq.size, curve
      assert(privates.all? { |d| d >= 1 && d < order }, curve)
      top = privates.count { |d| d.num_bits == order.num_bits }.fdiv(privates.size)
      assert_in_delta 0.5, top, curve == "secp521r1" ? 0.1 : 0.05, "#{curve}: top bit share"
    end
  end

  # With the :java engine, generation is jruby-openssl's, counted as java.
  def test_the_java_engine_generates_on_jruby_openssl
    FastRandom::EC.engine = :java
    key = nil
    assert_equal({ openssl: 0, java: 1 }, generations { key = EC.generate("prime256v1") })
    assert key.verify("SHA256", key.sign("SHA256", "x"), "x")
  end

  # Bad curves and keys without a group get stock's errors, class and message.
  def test_bad_input_raises_what_stock_raises
    cases = {
      "unknown name" => -> { EC.generate("no-such-curve") },
      "empty name" => -> { EC.generate("") },
      "not a name" => -> { EC.generate(42) },
      "nil" => -> { EC.generate(nil) },
      "no group" => -> { EC.new.generate_key },
    }
    cases.each do |label, call|
      expected = stock { outcome(call) }
      assert_equal expected, outcome(call), label
    end
  end

  def outcome(call)
    result = call.call
    [:ok, result.class.name, result.private_key?]
  rescue StandardError => e
    [e.class.name, e.message.gsub(/0x\h+/, "0x...")]
  end

  # Threads generating at once (the first of each curve racing to make its
  # shared curve object) all get valid, distinct keys.
  def test_threads_generate_at_once
    keys = Array.new(4) do |i|
      Thread.new { Array.new(100) { |j| EC.generate(NATIVE_CURVES[(i + j) % 2]) } }
    end.flat_map(&:value)
    assert_equal 400, keys.map(&:private_key).uniq.size
    keys.each_slice(40) { |slice| assert(slice.all? { |k| k.verify("SHA256", k.sign("SHA256", "t"), "t") }) }
  end

  # A process's first generation runs on jruby-openssl's code (stock's
  # cost, no self-test: 19 ms cold, more than stock's whole first
  # generation); the second starts the engine's choice on a daemon thread,
  # after which generations are native.
  def test_the_first_generation_does_not_wait_for_the_engine
    skip "libcrypto unavailable on purpose in this pass" unless native?
    out, err, status = TestHelper.jruby(<<~RUBY)
      require "fast_random"
      require "openssl"
      count = -> { FastRandom::EC.stats.slice(:openssl, :java).transform_values { |v| v[:generate] } }
      threads = -> { Java::JavaLang::Thread.getAllStackTraces.keySet.map(&:getName).grep(/fast_random-EC/).size }
      OpenSSL::PKey::EC.generate("prime256v1")
      first = [count.call, threads.call]
      OpenSSL::PKey::EC.generate("prime256v1")
      second = count.call
      deadline = Time.now + 20
      OpenSSL::PKey::EC.generate("prime256v1") while count.call[:openssl].zero? && Time.now < deadline
      p [first, second, count.call[:openssl], FastRandom::EC.engine]
    RUBY
    assert status.success?, err
    first, second, native, engine = eval(out.lines.last) # rubocop:disable Security/Eval -- our own child's p output
    assert_equal [{ openssl: 0, java: 1 }, 0], first
    assert_equal({ openssl: 0, java: 2 }, second)
    assert_equal [1, :openssl], [native, engine]
  end

  # Fault injection at the native call: a generation that fails there
  # gets a key from stock's generator, one warning and a counted fallback;
  # the next generation is native again.
  def test_a_failing_generation_falls_back_to_stock_and_the_next_one_recovers
    skip "libcrypto unavailable on purpose in this pass" unless native?
    out, err, status = TestHelper.jruby(<<~RUBY)
      require "fast_random"
      require "openssl"
      hooks = Java::FastrandomJni::NativeTestHooks
      FastRandom::EC.engine # the engine's self-test first: it generates too
      check = ->(key) { key.private_key? && key.verify("SHA256", key.sign("SHA256", "x"), "x") && key.to_der.start_with?("0") }
      operations = %w[prime256v1 secp521r1].flat_map do |curve|
        [-> { check.(OpenSSL::PKey::EC.generate(curve)) }, -> { check.(OpenSSL::PKey::EC.new(curve).generate_key) }]
      end
      require #{FailOver::PATH.dump}
      p(FailOver.rounds(operations, stats: -> { FastRandom::EC.stats }, inject: -> { hooks.inject_generate_failures(1) }) do |middle, after|
        after[:openssl][:generate] == middle[:openssl][:generate] + 1 && middle[:java][:generate] == after[:java][:generate]
      end)
    RUBY
    assert_failed_over out, err, status, [[true, true, 1, 0, true]] * 4, /the openssl EC engine failed \(EC key generation failed/
  end
end
