# frozen_string_literal: true

# Passes main: load orders, the same with or without the library (engine_choice_test.rb covers that); one per jruby-openssl.

require_relative "../test_helper"

# FastRandom::RSA and the require hook, whatever the load order (every
# FastRandom::RSA method before openssl: test/rsa/engine_choice_test.rb): `require "openssl"`
# always completes (even if installing fast_random's RSA fails), Kernel#require
# stays private, and code that redefines, wraps or aliases
# OpenSSL::PKey::RSA's methods sees the calls it sees on stock JRuby.
# Each case runs in a fresh JRuby, so the load order is real.
class OpenSSLLoadOrderTest < Minitest::Test
  # What a complete jruby-openssl load defines, and whether RSA works.
  OPENSSL_COMPLETE = <<~RUBY
    key = OpenSSL::PKey::RSA.new(1024)
    complete = [OpenSSL.respond_to?(:secure_compare), defined?(OpenSSL::SSL::SSLContext::DEFAULT_PARAMS).nil?,
                defined?(OpenSSL::PKey::EC).nil?, key.public_key.verify("SHA256", key.sign("SHA256", "x"), "x")]
  RUBY

  # Without the JNI library there is no :openssl engine to choose.
  NO_LIBRARY = !TestHelper.native_library_expected?

  # [last line of stdout, fast_random's warnings about RSA]
  def run_jruby(code, env = {})
    out, err, status = TestHelper.jruby(code, env: env)
    assert status.success?, "jruby failed: #{err}"
    [out.lines.last.to_s.strip, err.lines.grep(/\Afast_random: .*RSA/).map(&:strip)]
  end

  # A library file that loads openssl and uses it at once (before its own
  # require returns) already gets fast_random's OpenSSL::Random and RSA.
  def test_openssl_is_hooked_as_soon_as_it_is_complete
    require "tmpdir"
    Dir.mktmpdir do |dir|
      File.write(File.join(dir, "uses_openssl_at_once.rb"),
                 'require "openssl"; USED = [OpenSSL::Random.method(:random_bytes).owner, FastRandom::RSA.installed?]')
      out, = run_jruby("require 'fast_random'; $LOAD_PATH << #{dir.dump}; require 'uses_openssl_at_once'; p USED")
      assert_equal "[FastRandom::OpenSSLRandomMethods, true]", out
    end
  end

  def test_an_engine_chosen_before_openssl_is_applied_when_it_arrives
    (NO_LIBRARY ? %w[gmp java] : %w[gmp java openssl]).each do |engine|
      out, warnings = run_jruby(<<~RUBY)
        require "fast_random"
        FastRandom::RSA.engine = :#{engine}
        chosen = FastRandom::RSA.engine
        require "openssl"
        #{OPENSSL_COMPLETE}
        p [chosen, complete, FastRandom::RSA.engine, FastRandom::RSA.stats[:#{engine}][:private]]
      RUBY
      assert_equal "[:#{engine}, [true, false, false, true], :#{engine}, 1]", out, engine
      assert_empty warnings, engine
    end
  end

  def test_the_environment_chooses_before_openssl_too
    out, = run_jruby(<<~RUBY, "FAST_RANDOM_RSA_ENGINE" => "gmp")
      require "fast_random"
      FastRandom::RSA.installed? # loads FastRandom::RSA, which reads the environment
      require "openssl"
      #{OPENSSL_COMPLETE}
      p [complete, FastRandom::RSA.engine]
    RUBY
    assert_equal "[[true, false, false, true], :gmp]", out
  end

  def test_an_engine_that_cannot_run_is_refused_before_openssl_too
    out, = run_jruby(<<~RUBY, "FAST_RANDOM_HIDE_LIBCRYPTO" => "1", "FAST_RANDOM_GMP_LIBRARY" => "/nonexistent/libgmp.so")
      require "fast_random"
      errors = %i[openssl gmp].map do |engine|
        FastRandom::RSA.engine = engine
      rescue FastRandom::Error => e
        e.class
      end
      require "openssl"
      #{OPENSSL_COMPLETE}
      p [errors, complete, FastRandom::RSA.engine]
    RUBY
    assert_equal "[[FastRandom::EngineUnavailableError, FastRandom::EngineUnavailableError], " \
                 "[true, false, false, true], :java]", out
  end

  # Fault injection at the load order: installing fast_random's RSA fails as
  # openssl loads. openssl still loads completely, RSA stays stock, one warning.
  def test_a_failing_rsa_install_never_breaks_require_openssl
    out, warnings = run_jruby(<<~RUBY)
      require "fast_random"
      FastRandom::RSA.singleton_class.prepend(Module.new { def install = raise(NoMethodError, "injected") })
      require "openssl"
      #{OPENSSL_COMPLETE}
      p [complete, FastRandom::RSA.installed?, OpenSSL::Random.method(:random_bytes).owner]
    RUBY
    assert_equal "[[true, false, false, true], false, FastRandom::OpenSSLRandomMethods]", out
    assert_equal 1, warnings.size, warnings.inspect
    assert_match(/RSA stays on jruby-openssl's Java code .*NoMethodError: injected/, warnings.first)
  end

  def test_kernel_require_stays_private_while_the_hook_waits_for_openssl
    out, = run_jruby(<<~RUBY)
      # A configuration DSL that answers anything, require included, through method_missing.
      class Dsl
        def method_missing(name, *args) = [name, *args]
        def respond_to_missing?(*) = true
      end
      stock = [Object.new.respond_to?(:require), Kernel.respond_to?(:require), Dsl.new.require("x")]
      require "fast_random"
      hooked = [Object.new.respond_to?(:require), Kernel.respond_to?(:require), Dsl.new.require("x")]
      Kernel.require "set"
      p [stock == hooked, hooked, Kernel.private_method_defined?(:require)]
    RUBY
    assert_equal '[true, [false, true, [:require, "x"]], true]', out
  end

  # Which of jruby-openssl's methods fast_random replaces, seen from outside:
  # each method object before and after `require "fast_random"`, where one
  # call site ran jruby-openssl's PBKDF2 before (so JRuby has it cached).
  REPLACED = <<~RUBY
    require "jruby"; require "openssl"
    targets = { "RSA#" => OpenSSL::PKey::RSA, "EC#" => OpenSSL::PKey::EC, "Cipher#" => OpenSSL::Cipher,
                "KDF." => OpenSSL::KDF.singleton_class, "PKCS5." => OpenSSL::PKCS5.singleton_class }
    methods = lambda do
      targets.flat_map { |label, mod| mod.public_instance_methods.map { |name| [label + name.to_s, JRuby.reference(mod).searchMethod(name.to_s)] } }.to_h
    end
    derive = -> { OpenSSL::KDF.pbkdf2_hmac("p", salt: "s", iterations: 1, length: 16, hash: "SHA256") }
    stock_key = derive.()
    before = methods.()
    require "fast_random"
    after = methods.()
    derivations = Java::FastrandomKdf::Pbkdf2.derivations
    p [after.keys.reject { |name| before[name].equal?(after[name]) }.sort, derive.() == stock_key,
       Java::FastrandomKdf::Pbkdf2.derivations - derivations,
       before["KDF.pbkdf2_hmac"].java_class.simple_name.include?("HandleMethod")]
  RUBY

  # What fast_random replaces must not depend on how JRuby binds Java
  # methods: with -Xinvokedynamic.handles=true jruby-openssl's are method
  # handles (HandleMethod) rather than generated invokers, and were taken
  # for Ruby redefinitions, left in place. A call site that already ran
  # jruby-openssl's method runs fast_random's once it is installed.
  def test_the_same_methods_are_replaced_however_jruby_binds_them
    invokers, = run_jruby(REPLACED)
    handles, = run_jruby(REPLACED, "FAST_RANDOM_JAVA_OPTS" => "-Djruby.invokedynamic.handles=true")
    replaced, same_key, derivations, handle = eval(invokers) # rubocop:disable Security/Eval -- our own child's p output
    refute handle, "jruby-openssl's methods were bound by method handles without the option"
    assert_equal [replaced, same_key, derivations, true], eval(handles), # rubocop:disable Security/Eval
                 "the option took effect (HandleMethod), and the same methods were replaced"
    always = %w[Cipher#auth_data= Cipher#update EC#dh_compute_key EC#dsa_sign_asn1 EC#dsa_verify_asn1 KDF.pbkdf2_hmac
                PKCS5.pbkdf2_hmac PKCS5.pbkdf2_hmac_sha1]
    # RSA's methods only with the PSS ones they go with (RsaModule).
    since_0_15_6 = %w[EC#derive EC#sign_raw EC#verify_raw RSA#sign RSA#sign_pss RSA#sign_raw RSA#verify RSA#verify_pss RSA#verify_raw]
    assert_equal (always + (TestHelper.older_jruby_openssl? ? [] : since_0_15_6)).sort, replaced
    assert_equal [true, 1], [same_key, derivations], "the call site that ran jruby-openssl's PBKDF2 runs fast_random's"
  end

  # What code around OpenSSL::PKey::RSA's methods sees, on stock JRuby and
  # with fast_random loaded at each point: instrumentation prepended before
  # fast_random arrives, a polyfill that aliases and wraps sign_raw, a
  # later redefinition of verify_pss.
  PATCHES = <<~RUBY
    require "fast_random" if ENV["AT"] == "first"
    require "openssl"
    module Instrument
      CALLS = []
      %i[sign verify sign_pss].each { |m| define_method(m) { |*a, **kw| CALLS << m; super(*a, **kw) } }
    end
    OpenSSL::PKey::RSA.prepend(Instrument)
    class OpenSSL::PKey::RSA
      alias_method :unpatched_sign_raw, :sign_raw
      def sign_raw(*args) = [:polyfill, unpatched_sign_raw(*args).bytesize]
    end
    require "fast_random" if ENV["AT"] == "after_patches"
    key = OpenSSL::PKey::RSA.new(1024)
    pss = key.sign_pss("SHA256", "x", salt_length: :digest, mgf1_hash: "SHA256")
    verified = key.verify_pss("SHA256", pss, "x", salt_length: :auto, mgf1_hash: "SHA256")
    class OpenSSL::PKey::RSA
      def verify_pss(*, **) = :redefined
    end
    hash = OpenSSL::Digest.digest("SHA256", "x")
    p [verified, key.verify_pss("SHA256", pss, "x", salt_length: :auto, mgf1_hash: "SHA256"),
       key.sign_raw("SHA256", hash, "rsa_padding_mode" => "pss"), key.verify("SHA256", key.sign("SHA256", "x"), "x"),
       Instrument::CALLS]
  RUBY

  # The same on jruby-openssl 0.15.0-0.15.5, which has no PSS or raw
  # methods (and where fast_random replaces no RSA method): the EC methods
  # fast_random replaces there, ECDSA's and ECDH's.
  PATCHES_OLDER = <<~RUBY
    require "fast_random" if ENV["AT"] == "first"
    require "openssl"
    module Instrument
      CALLS = []
      %i[dsa_sign_asn1 dsa_verify_asn1].each { |m| define_method(m) { |*a| CALLS << m; super(*a) } }
    end
    OpenSSL::PKey::EC.prepend(Instrument)
    class OpenSSL::PKey::EC
      alias_method :unpatched_dh_compute_key, :dh_compute_key
      def dh_compute_key(*args) = [:polyfill, unpatched_dh_compute_key(*args).bytesize]
    end
    require "fast_random" if ENV["AT"] == "after_patches"
    key = OpenSSL::PKey::EC.generate("prime256v1")
    digest = OpenSSL::Digest.digest("SHA256", "x")
    verified = key.dsa_verify_asn1(digest, key.dsa_sign_asn1(digest))
    class OpenSSL::PKey::EC
      def dsa_verify_asn1(*) = :redefined
    end
    p [verified, key.dsa_verify_asn1(digest, "x"), key.dh_compute_key(OpenSSL::PKey::EC.generate("prime256v1").public_key),
       Instrument::CALLS]
  RUBY

  def test_redefinitions_polyfills_and_instrumentation_see_what_they_see_on_stock
    patches, expected = if TestHelper.older_jruby_openssl?
                          [PATCHES_OLDER, "[true, :redefined, [:polyfill, 32], [:dsa_sign_asn1, :dsa_verify_asn1, :dsa_verify_asn1]]"]
                        else
                          [PATCHES, "[true, :redefined, [:polyfill, 128], true, [:sign_pss, :sign, :verify]]"]
                        end
    stock, = run_jruby(patches, "AT" => "never")
    assert_equal expected, stock
    %w[first after_patches].each do |at|
      out, = run_jruby(patches, "AT" => at)
      assert_equal stock, out, "fast_random required #{at}"
    end
  end
end
