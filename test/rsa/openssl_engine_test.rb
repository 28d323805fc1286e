# frozen_string_literal: true

# Passes all: the :openssl engine's availability and exponentiation follow the library and IFMA.

require_relative "../test_helper"
require_relative "../support/rsa_engine_contract"

# The :openssl RSA engine (OpenSSL's libcrypto 3 through the JNI library),
# driven through its Java classes: the engine contract, then what is its own
# (native keys: caching, freeing, handles, loading). bin/test also runs the
# suite with the JNI library missing, where the tests below check that the
# engine reports why instead.
class RsaOpenSslEngineTest < Minitest::Test
  include RsaEngineContract

  Engine = Java::FastrandomRsa::OpenSslRsaEngine
  LibCrypto = Java::FastrandomJni::LibCrypto
  LibCryptoException = Java::FastrandomJni::LibCryptoException

  def self.engine_class
    Engine
  end

  def setup
    return if TestHelper.libcrypto_expected? || name == "test_availability_matches_the_environment"

    skip "libcrypto unavailable on purpose in this pass (#{Engine.unavailable_reason})"
  end

  def engine
    @engine ||= Engine.new
  end

  def test_availability_matches_the_environment
    if TestHelper.libcrypto_expected?
      assert_nil Engine.unavailable_reason
      assert_nil Engine.self_test
      assert_match(/\AOpenSSL 3\./, LibCrypto.version)
      assert_equal "openssl", engine.name
      assert_equal ["libcrypto.so.3", "libcrypto.so.3 (#{LibCrypto.version})"], [LibCrypto.soname, LibCrypto.opened_description],
                   "this machine's OpenSSL 3 is the one tried first"
      assert_equal LibCrypto.opened_description, FastRandom::RSA.stats[:libcrypto]
    else
      reason = Engine.unavailable_reason
      assert_match(/hidden by FAST_RANDOM_HIDE_LIBCRYPTO|native library .* is missing/, reason)
      assert_equal reason, Engine.self_test
      assert_nil LibCrypto.opened_description
      key = RsaTestKeys.key(1024, 65_537)
      error = assert_raises(RsaEngineException) { Engine.new.private_operation(key.engine_key, 5) }
      assert_includes error.message, reason
    end
  end

  # Public operations run on fast_random's AVX-512 IFMA code where the CPU
  # has it, or on the C stand-ins of the test build bin/test loads in its
  # JRuby 10.1 main pass (unless FAST_RANDOM_HIDE_IFMA=1, as in its fallback pass),
  # else on OpenSSL's BN_mod_exp_mont: either way x^e mod n exactly, for every
  # size and exponent, at the edges (0, 1, n - 1) and for random x.
  def test_public_operations_are_exact_on_either_exponentiation
    flags = File.read("/proc/cpuinfo")[/^flags\s*:.*$/].to_s.split
    standin = ENV["FAST_RANDOM_NATIVE_LIBRARY"].to_s.include?("/standin/")
    ifma = (standin || (flags.include?("avx512f") && flags.include?("avx512ifma"))) && ENV["FAST_RANDOM_HIDE_IFMA"] != "1"
    assert_equal ifma ? "ifma" : "openssl", LibCrypto.public_exponentiation
    random = Random.new(42)
    [[512, 3], [1024, 65_537], [2048, 3], [2048, 65_537], [3072, 65_537], [4096, 65_537]].each do |bits, e|
      key = RsaTestKeys.key(bits, e)
      [0, 1, key.n - 1, *Array.new(50) { random.rand(key.n) }].each do |x|
        assert_equal x.pow(key.e, key.n), engine.public_operation(key.n, key.e, x).to_i, "#{bits} bits, e=#{e}"
      end
    end
    # An exponent far larger than RSA's.
    n = RsaTestKeys.key(2048, 65_537).n
    assert_equal 12_345.pow(2**521 - 1, n), engine.public_operation(n, 2**521 - 1, 12_345).to_i
  end

  def test_least_recently_used_keys_are_evicted_and_freed
    engine = Engine.new(4)
    key = RsaTestKeys.key(1024, 65_537)
    before = LibCrypto.live_keys
    identities = Array.new(10) { JObject.new }
    identities.each { |identity| assert_equal 7.pow(key.d, key.n), engine.private_operation(key.engine_key(identity), 7) }
    assert_equal 4, engine.private_key_cache.size
    hits, misses, evictions, = engine.private_key_cache.stats.to_a
    assert_equal [0, 10, 6], [hits, misses, evictions]
    assert_equal before + 4, LibCrypto.live_keys
    # The most recent four are still cached; the first one has to be rebuilt.
    engine.private_operation(key.engine_key(identities.last), 7)
    engine.private_operation(key.engine_key(identities.first), 7)
    assert_equal [1, 11, 7], engine.private_key_cache.stats.to_a.first(3)
    engine.clear_caches
    assert_equal 0, engine.private_key_cache.size
    assert_equal before, LibCrypto.live_keys
  end

  # A native key frees all it holds: its IFMA copy of n too (about 5 KB,
  # leaked before). 40,000 public keys made and closed in a process with a
  # fixed 64 MB heap would add about 200 MB of native memory if any of it
  # stayed; the process's resident memory must grow by far less.
  def test_closed_native_keys_leave_no_native_memory_behind
    out, err, status = TestHelper.jruby(<<~RUBY, "-J-Xms64m", "-J-Xmx64m")
      require "fast_random"
      lc = Java::FastrandomJni::LibCrypto
      n = java.math.BigInteger.new("#{RsaTestKeys.key(4096, 65_537).n}")
      e = java.math.BigInteger.value_of(65_537)
      rss = -> { File.read("/proc/self/status")[/^VmRSS:[[:space:]]+([0-9]+)/, 1].to_i * 1024 }
      make = ->(count) { count.times { lc.new_public_key(n, e).close } }
      make.call(4_000)
      java.lang.System.gc
      before = rss.call
      make.call(40_000)
      java.lang.System.gc
      puts before, rss.call - before
    RUBY
    assert status.success?, err
    resident, growth = out.split.map(&:to_i)
    assert_operator resident, :>, 0, "VmRSS not read"
    assert_operator growth, :<, 48 * 1024 * 1024, "native keys leaked: resident memory grew #{growth >> 20} MB"
  end

  def test_native_keys_are_freed_when_their_identity_is_collected
    engine = Engine.new
    before = LibCrypto.live_keys
    use_dropped_keys(engine, 5000)
    assert_operator engine.private_key_cache.size, :<=, 1024
    assert_operator LibCrypto.live_keys, :<=, before + 1024

    size = nil
    50.times do
      java.lang.System.gc
      sleep 0.05
      size = engine.private_key_cache.size # polls the reference queue
      break if size < 10
    end
    assert_operator size, :<, 10, "native keys whose identity was collected must be freed"
    assert_operator engine.private_key_cache.stats.to_a[3], :>, 0
    assert_operator LibCrypto.live_keys, :<, before + 10
  end

  def test_a_key_without_an_identity_is_freed_after_the_call
    key = RsaTestKeys.key(1024, 65_537)
    before = LibCrypto.live_keys
    assert_equal 9.pow(key.d, key.n), engine.private_operation(key.engine_key(nil), 9)
    assert_equal 0, engine.private_key_cache.size
    assert_equal before, LibCrypto.live_keys
  end

  def test_native_handles_cannot_be_reached_or_misused_from_ruby
    # The natives taking raw handles are private; only Key objects reach them.
    %i[privateRaw private_raw publicRaw public_raw signPkcs1 sign_pkcs1 verifyPkcs1 verify_pkcs1
       freeKey free_key open version0].each do |name|
      refute_respond_to LibCrypto, name
      assert_raises(NoMethodError) { LibCrypto.public_send(name, 1, nil, 256) }
    end
    assert_raises(LibCryptoException) { LibCrypto.new_private_key(1, nil, nil, nil, nil, nil, nil, nil, false) }
    key = RsaTestKeys.key(1024, 65_537)
    native = key.native_key
    input = ([0] * 127 + [3]).pack("C*").to_java_bytes
    assert_equal 3.pow(key.d, key.n), java.math.BigInteger.new(1, native.private_raw(input)).to_i
    # Wrong lengths are refused in C, not read past.
    assert_raises(LibCryptoException) { native.private_raw([1, 2, 3].pack("C*").to_java_bytes) }
    assert_raises(LibCryptoException) { native.private_raw(nil) }
    native.close
    native.close
    assert_nil native.private_raw(input)
    assert_nil native.public_raw(input)
    assert_nil native.sign_pkcs1(LibCrypto::Hash::SHA256, input, 0, 3, false)
    assert_nil native.verify_pkcs1(LibCrypto::Hash::SHA256, input, 0, 3, false, input)

    public_key = LibCrypto.new_public_key(key.n, key.e)
    assert_raises(LibCryptoException) { public_key.private_raw(input) }
    assert_equal 3.pow(key.e, key.n), java.math.BigInteger.new(1, public_key.public_raw(input)).to_i
    public_key.close
  end

  # Below the engine's consistency check: a native key built from a
  # corrupted CRT value stands for a fault in the CRT step, the one that
  # could reveal a prime factor (Boneh, DeMillo and Lipton; Lenstra). With
  # nothing else checking, the CRT's own check (rsa_crt.c, as OpenSSL's
  # rsa_ossl_mod_exp: the CRT result raised to e must give the input back,
  # else it is recomputed without CRT) must return the right result. The
  # engine probes exactly this once and then checks nothing more, as MRI.
  def test_the_crt_recomputes_a_faulty_result_itself
    assert Engine.crt_checks_results, "the private operation does not check its CRT results"
    refute engine.checks_results
    key = RsaTestKeys.key(1024, 65_537)
    input = ([0] * 127 + [5]).pack("C*").to_java_bytes
    [{ dp: key.dp ^ 2 }, { dq: key.dq ^ 8 }, { qinv: key.qinv ^ 4 }, { dp: key.dp ^ 2, dq: key.dq ^ 2 }].each do |corruption|
      bad = key.with(**corruption)
      native = bad.native_key
      begin
        assert_equal 5.pow(key.d, key.n), java.math.BigInteger.new(1, native.private_raw(input)).to_i, corruption.inspect
      ensure
        native.close
      end
    end
  end

  # What OpenSSL's check leaves: its recomputation without CRT is not checked
  # again, so a second fault, in d as well, gives a wrong result (which does
  # not reveal a factor: it is wrong modulo both primes). A key made with
  # check_results (what the engine does where libcrypto's own check is
  # missing) checks every final result in C and returns nothing then.
  def test_result_checks_in_c_stop_what_openssls_check_lets_through
    key = RsaTestKeys.key(1024, 65_537)
    input = ([0] * 127 + [5]).pack("C*").to_java_bytes
    bad = key.with(d: key.d ^ 2, dp: key.dp ^ 2)
    unchecked = bad.native_key
    checked = bad.native_key(check_results: true)
    begin
      refute_equal 5.pow(key.d, key.n), java.math.BigInteger.new(1, unchecked.private_raw(input)).to_i
      error = assert_raises(LibCryptoException) { checked.private_raw(input) }
      assert_match(/public-exponent check/, error.message)
      [key.p, key.q, key.d].each { |secret| refute_includes error.message, secret.to_s(16) }
      digest = ("\0" * 32).to_java_bytes
      error = assert_raises(LibCryptoException) { checked.sign_pkcs1(LibCrypto::Hash::SHA256, digest, 0, 32, true) }
      assert_match(/public-exponent check/, error.message)
    ensure
      unchecked.close
      checked.close
    end
  end

  def test_a_key_closed_while_in_use_is_freed_after_the_call
    key = RsaTestKeys.key(2048, 65_537)
    native = key.native_key
    before = LibCrypto.live_keys
    input = ([0] * 255 + [7]).pack("C*").to_java_bytes
    workers = Array.new(4) { Thread.new { Array.new(50) { native.private_raw(input) } } }
    sleep 0.01
    native.close
    results = workers.flat_map(&:value)
    expected = 7.pow(key.d, key.n)
    assert(results.all? { |r| r.nil? || java.math.BigInteger.new(1, r).to_i == expected })
    assert_equal before - 1, LibCrypto.live_keys
  end

  def test_missing_libcrypto_is_reported_not_a_crash
    code = <<~RUBY
      require "fast_random"
      engine = Java::FastrandomRsa::OpenSslRsaEngine
      error = begin
        engine.new.public_operation(187, 7, 2)
      rescue Java::FastrandomRsa::RsaEngineException => e
        e.message
      end
      p [engine.unavailable_reason, engine.self_test, error, File.read("/proc/self/maps").include?("libcrypto.so.3")]
    RUBY
    out, err, status = TestHelper.jruby(code, env: { "FAST_RANDOM_HIDE_LIBCRYPTO" => "1" })
    assert status.success?, err
    reason = "libcrypto hidden by FAST_RANDOM_HIDE_LIBCRYPTO"
    assert_equal [reason, reason, "the openssl RSA engine is unavailable: #{reason}", false].inspect, out.lines.last.strip
  end

  def test_libcrypto_is_loaded_on_first_use_only
    out, err, status = TestHelper.jruby(<<~RUBY)
      require "fast_random"
      loaded = -> { File.read("/proc/self/maps").include?("libcrypto.so.3") }
      before = loaded.call
      SecureRandom.uuid
      middle = loaded.call
      p [before, middle, Java::FastrandomRsa::OpenSslRsaEngine.self_test, loaded.call]
    RUBY
    assert status.success?, err
    assert_equal "[false, false, nil, true]", out.lines.last.strip
  end

  # FAST_RANDOM_HIDE_IFMA and the test build's FAST_RANDOM_TEST_OPENSSL_VERSION
  # are read from Ruby's ENV once, at the require, and reach the C side when
  # libcrypto is opened: on the stand-in build (IFMA on any CPU) pretending
  # to be 3.0.4 with IFMA hidden gives the engine's notice for libcrypto
  # before 3.0.8, not the one for 3.0.4's broken IFMA code. Set after the
  # require, they change nothing.
  def test_hide_ifma_and_the_openssl_version_in_ruby_s_env_count_before_the_require_only
    standin = File.join(TestHelper::ROOT, "tmp/native/standin/libfast_random.so")
    skip "no stand-in build of the native library (rake native_test)" unless File.file?(standin)
    env = { "FAST_RANDOM_NATIVE_LIBRARY" => standin, "FAST_RANDOM_HIDE_LIBCRYPTO" => nil,
            "FAST_RANDOM_HIDE_IFMA" => nil, "FAST_RANDOM_TEST_OPENSSL_VERSION" => nil }
    set = 'ENV["FAST_RANDOM_HIDE_IFMA"] = "1"; ENV["FAST_RANDOM_TEST_OPENSSL_VERSION"] = "30000040"'
    results = [true, false].map do |before|
      out, err, status = TestHelper.jruby(<<~RUBY, env: env)
        #{set if before}
        require "fast_random"
        #{set unless before}
        crypto = Java::FastrandomJni::LibCrypto
        p [crypto.public_exponentiation, crypto.private_path_notice.to_s[/3\.0\.4|predates OpenSSL 3\.0\.8/]]
      RUBY
      assert status.success?, err
      out.lines.last.strip
    end
    assert_equal ['["openssl", "predates OpenSSL 3.0.8"]', '["ifma", nil]'], results
  end

  # OpenSSL 1.1.1 fixed CVE-2022-4304 in 1.1.1t, and vendors backported the
  # fix to older letters (RHEL 8's 1.1.1k), which the version number cannot
  # tell: below 1.1.1t the notice is given only under -w.
  def test_on_openssl_1_1_1_the_unblinding_notice_is_said_below_1_1_1t_under_verbose_only
    skip "the C side's version rule, the same on every JRuby: run once, in the 10.1 main pass" unless JRUBY_VERSION.start_with?("10.") && TestHelper.main_pass?
    test_library = File.join(TestHelper::ROOT, "tmp/native/test/libfast_random.so")
    skip "no test build of the native library (rake native_test)" unless File.file?(test_library)
    sign = 'require "fast_random"; require "openssl"; OpenSSL::PKey::RSA.new(1024).sign("SHA256", "x"); ' \
           'p Java::FastrandomJni::LibCrypto.private_path_notice.to_s[/predates OpenSSL 3\.0\.8.s and 1\.1\.1t.s/]'
    said = { "1010113f" => [[], ["-w"]], "1010114f" => [["-w"]] }.flat_map do |version, flags_list|
      flags_list.map do |flags|
        env = { "FAST_RANDOM_NATIVE_LIBRARY" => test_library, "FAST_RANDOM_HIDE_LIBCRYPTO" => nil,
                "FAST_RANDOM_TEST_OPENSSL_VERSION" => version, "FAST_RANDOM_RSA_ENGINE" => "openssl" }
        out, err, status = TestHelper.jruby(sign, *flags, env: env)
        assert status.success?, err
        [version, flags, out.lines.last.strip, err.lines.grep(/CVE-2022-4304/).size]
      end
    end
    assert_equal [["1010113f", [], '"predates OpenSSL 3.0.8\'s and 1.1.1t\'s"', 0],
                  ["1010113f", ["-w"], '"predates OpenSSL 3.0.8\'s and 1.1.1t\'s"', 1],
                  ["1010114f", ["-w"], "nil", 0]], said
  end

  private

  # Builds `count` native keys whose identities are dropped at once.
  def use_dropped_keys(engine, count)
    key = RsaTestKeys.key(1024, 65_537)
    count.times { engine.private_operation(key.engine_key(JObject.new), 2) }
    nil
  end
end
