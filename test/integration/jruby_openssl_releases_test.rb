# frozen_string_literal: true

# Passes main, hooks: what is hooked follows what the loaded jruby-openssl has, so each release's own classes count.

require_relative "../test_helper"
require "json"
require "open3"
require "tmpdir"

# fast_random hooks into a jruby-openssl by what it has, not by its version
# number (README, "Supported versions"): a release newer than any the suite
# ran on gets every hook when its classes have what fast_random needs and
# the checks at load pass (test_a_future_release_*); a capability whose
# method is missing, or whose check fails, stays jruby-openssl's whole, with
# one warning naming why, and the others are hooked; only a release below
# the floor is left alone by its number. A newer release is simulated by
# JOpenSSL::VERSION, set before openssl loads the rest of jruby-openssl, on
# the real classes of this JRuby's own jruby-openssl; a missing method by
# removing it, a wrong answer by redefining one in Ruby (fast_random leaves
# Ruby redefinitions in place), a changed method that fast_random replaces
# by redefining it in Java (JavaRedefinitions, test/java). Each case in a
# fresh JRuby.
class JRubyOpenSslReleasesTest < Minitest::Test
  # What is hooked, and whether the calls work and reach fast_random's code
  # (counters read around the report's own calls; "at_load", read right
  # after the require, says whether the checks at load ran).
  REPORT = <<~'RUBY'
    require TEST_JAR # first: fast_random looks for its fault injector once, at its first fault site
    require "fast_random"
    require "openssl"
    require "json"
    hooks = Java::OrgJrubyExtFastrandom::InstallFaults
    ops = lambda do
      [FastRandom::RSA.stats.values_at(:openssl, :gmp, :java).sum { |counts| counts.values.sum },
       FastRandom::EC.stats.values_at(:openssl, :java).sum { |counts| counts.values.sum }, FastRandom::AES.stats[:jdk]]
    end
    at_load = ops.().map(&:positive?)
    draws = -> { FastRandom.stats[:calls].values.sum { |kinds| kinds[:openssl] } }
    rsa = OpenSSL::PKey::RSA.new(1024)
    ec = OpenSSL::PKey::EC.generate("prime256v1")
    before = ops.()
    works = [rsa.public_key.verify("SHA256", rsa.sign("SHA256", "m"), "m"), ec.verify("SHA256", ec.sign("SHA256", "m"), "m")]
    cipher = OpenSSL::Cipher.new("aes-256-gcm").encrypt
    cipher.key = "k" * 32
    cipher.iv = "i" * 12
    works << (((cipher.update("m") + cipher.final).bytesize == 1) rescue $!.class.name)
    # fast_random's PBKDF2 raises MRI's KDFError for 0 iterations; jruby-openssl's gives a key of zeros.
    works << (OpenSSL::PKCS5.pbkdf2_hmac("p", "s", 0, 4, "sha256") rescue $!.class.name)
    after = ops.()
    drawn = draws.()
    cipher.random_iv
    tls = [FastRandom::TLS.installed?, FastRandom::TLS.problem] # first: on a release not tested, its check runs at this first ask
    replaced = [OpenSSL::PKey::RSA, OpenSSL::PKey::EC, OpenSSL::Cipher, OpenSSL::PKCS5.singleton_class,
                OpenSSL::KDF.singleton_class, OpenSSL::X509::Certificate,
                OpenSSL::X509::CRL, OpenSSL::SSL::SSLSocket].to_h { |target| [target.inspect, hooks.replaced(target).to_a] }
    puts JSON.generate(
      "version" => JOpenSSL::VERSION, "works" => works, "served" => before.zip(after).map { |b, a| a > b },
      "at_load" => at_load, "engines" => [FastRandom::RSA.engine, FastRandom::EC.engine].map(&:to_s),
      "installed" => [FastRandom::RSA.installed?, FastRandom::EC.installed?, FastRandom::AES.installed?],
      "problems" => [FastRandom::RSA.engine_problem(:openssl), FastRandom::EC.engine_problem(:openssl)],
      "replaced" => replaced, "random" => OpenSSL::Random.method(:random_bytes).owner.to_s, "random_iv_drawn" => draws.() > drawn,
      "tls" => tls,
      "derive_owner" => (OpenSSL::PKey::EC.instance_method(:derive).owner.to_s rescue nil),
      "stock_derive_owner" => (STOCK_DERIVE_OWNER if defined?(STOCK_DERIVE_OWNER))
    )
  RUBY

  # The report after +setup+ (Ruby run first), and fast_random's warnings.
  def report(setup = "", env: {})
    code = "TEST_JAR = #{TestHelper::TEST_JAR.dump}\n#{setup}\n#{REPORT}"
    out, err, status = TestHelper.jruby(code, env: env)
    assert status.success?, "jruby failed: #{err}"
    [JSON.parse(out.lines.last), err.lines.grep(/\Afast_random: /).map(&:strip)]
  end

  # This JRuby's own jruby-openssl, as it is: the suite tested it, so
  # nothing is checked at load (no RSA, EC or AES operation by then: the
  # X.509 check's verifications would count as RSA's and EC's too), and
  # this is what a newer release must match.
  def baseline
    @@baseline ||= report # rubocop:disable Style/ClassVars -- one child for every case of this process
  end

  def future_version(version = "0.17.0")
    <<~RUBY
      require "jopenssl/version"
      JOpenSSL.send(:remove_const, :VERSION)
      JOpenSSL::VERSION = #{version.dump}
    RUBY
  end

  # Ruby that loads openssl and makes +type+#+name+ (an OpenSSL::X509
  # class) a Java method running the lambda +body+ (receiver first, then
  # the arguments; the release's own method is stock_+name+), before
  # fast_random hooks in.
  def x509_method_in_java(type, name, body)
    <<~RUBY
      require TEST_JAR
      require "openssl"
      OpenSSL::X509::#{type}.send(:alias_method, :stock_#{name}, :#{name})
      Java::OrgJrubyExtFastrandom::JavaRedefinitions.redefine(OpenSSL::X509::#{type}, "#{name}", #{body})
    RUBY
  end

  # The warning of a capability that failed its check at load.
  def failed_check(capability, what)
    "jruby-openssl 0.17.0, a release fast_random was not tested on, failed fast_random's #{capability} check at load: #{what}"
  end

  # The report where X.509's methods stayed jruby-openssl's and all else is as on this JRuby's own release.
  def with_x509_stock
    baseline[0].merge("replaced" => baseline[0]["replaced"].merge("OpenSSL::X509::Certificate" => [], "OpenSSL::X509::CRL" => []))
  end

  def test_this_jrubys_own_release_is_hooked_whole_and_not_checked_at_load
    result, warnings = baseline
    assert_empty warnings
    native = TestHelper.native_library_expected?
    assert_equal [[true, true, true, "OpenSSL::KDF::KDFError"], [true, true, true], [nil, nil], [false, false, false], true],
                 result.values_at("works", "installed", "problems", "at_load", "random_iv_drawn")
    assert_equal [true, true, true], result["served"]
    assert_equal [native ? "openssl" : "java"] * 2, result["engines"] if TestHelper.libcrypto_expected? || !native
    assert_equal %w[auth_data= update], result["replaced"]["OpenSSL::Cipher"]
    assert_equal %w[pbkdf2_hmac pbkdf2_hmac_sha1], result["replaced"]["#<Class:OpenSSL::PKCS5>"]
    assert_equal [%w[sign verify], %w[verify]], result["replaced"].values_at("OpenSSL::X509::Certificate", "OpenSSL::X509::CRL")
    assert_includes result["replaced"]["OpenSSL::PKey::EC"], "dsa_sign_asn1"
    assert_equal [[true, nil], %w[accept accept_nonblock connect connect_nonblock session_reused? sysread sysread_nonblock syswrite
                                  syswrite_nonblock]],
                 [result["tls"], result["replaced"]["OpenSSL::SSL::SSLSocket"].sort]
  end

  # Hooked exactly as the release it really is, after the checks at load
  # (which run, and reach fast_random's engines, because the suite never
  # ran on a 0.17.0), with no warning.
  def test_a_future_release_with_what_fast_random_needs_is_hooked_with_no_warning
    result, warnings = report(future_version)
    assert_empty warnings
    assert_equal ["0.17.0", [true, true, true]], result.values_at("version", "at_load")
    assert_equal baseline[0].except("version", "at_load"), result.except("version", "at_load")
  end

  # On jruby-openssl's own RSA and EC code (the :java engines, as where
  # no native engine loads), the checks go through the same methods and
  # hold just the same: where fast_random hands a call to jruby-openssl's
  # method (PSS by options, say), that method must take it as given.
  def test_a_future_release_on_the_java_engines_is_hooked_with_no_warning
    result, warnings = report(future_version, env: { "FAST_RANDOM_RSA_ENGINE" => "java", "FAST_RANDOM_EC_ENGINE" => "java" })
    assert_empty warnings
    assert_equal [%w[java java], [true, true, true], [nil, nil], [true, true, true]],
                 result.values_at("engines", "installed", "problems", "at_load")
  end

  # The method AES replaces and the one PBKDF2 replaces gone: each of those
  # stays jruby-openssl's, whole (none of its methods replaced, AES's
  # provider services off), with one warning each naming the method; RSA,
  # EC and OpenSSL::Random are hooked and checked as ever.
  def test_a_release_without_a_method_fast_random_needs_leaves_that_capability_stock
    result, warnings = report(<<~RUBY)
      #{future_version}
      require "openssl"
      OpenSSL::Cipher.send(:remove_method, :update)
      OpenSSL::KDF.singleton_class.send(:remove_method, :pbkdf2_hmac)
      OpenSSL::SSL::SSLSocket.send(:remove_method, :syswrite_nonblock)
    RUBY
    tls_problem = "OpenSSL::SSL::SSLSocket's data path stays jruby-openssl's: jruby-openssl 0.17.0 has no " \
                  "OpenSSL::SSL::SSLSocket#syswrite_nonblock, which fast_random's TLS needs"
    assert_equal ["fast_random: AES stays on jruby-openssl's Java code: jruby-openssl 0.17.0 has no OpenSSL::Cipher#update, " \
                  "which fast_random's AES needs",
                  "fast_random: PBKDF2 stays on jruby-openssl's Java code: jruby-openssl 0.17.0 has no OpenSSL::KDF.pbkdf2_hmac, " \
                  "which fast_random's PBKDF2 needs", "fast_random: #{tls_problem}"], warnings
    expected = baseline[0].merge(
      "installed" => [true, true, false], "at_load" => [true, true, false], "served" => [true, true, false],
      "works" => [true, true, "NoMethodError", "\x00" * 4], "tls" => [false, tls_problem],
      "replaced" => baseline[0]["replaced"].merge("OpenSSL::Cipher" => [], "#<Class:OpenSSL::PKCS5>" => [],
                                                  "#<Class:OpenSSL::KDF>" => [], "OpenSSL::SSL::SSLSocket" => [])
    )
    assert_equal expected.except("version"), result.except("version")
  end

  # A release whose RSA, EC and OpenSSL::Random give wrong answers (here Ruby
  # redefinitions, which fast_random leaves in place, of private_encrypt,
  # dh_compute_key and Cipher#random_key) fails those checks at load: RSA
  # and EC are taken out again whole (provider services and every method
  # they had replaced, EC's inherited #derive inherited again), and
  # Cipher#random_iv draws from jruby-openssl's own source again; one
  # warning each saying what failed. AES and PBKDF2 are hooked; X.509's
  # methods, which run on RSA's and EC's engines, are not put in.
  def test_a_release_failing_checks_at_load_leaves_those_capabilities_stock
    result, warnings = report(<<~RUBY)
      #{future_version}
      require "openssl"
      STOCK_DERIVE_OWNER = (OpenSSL::PKey::EC.instance_method(:derive).owner.to_s rescue nil)
      OpenSSL::PKey::RSA.class_eval do
        alias_method :stock_private_encrypt, :private_encrypt
        def private_encrypt(*args) = stock_private_encrypt(*args).reverse
      end
      OpenSSL::PKey::EC.class_eval do
        alias_method :stock_dh_compute_key, :dh_compute_key
        def dh_compute_key(*args) = stock_dh_compute_key(*args).reverse
      end
      OpenSSL::Cipher.class_eval do
        alias_method :stock_random_key, :random_key
        def random_key = stock_random_key[0, 15]
      end
      OpenSSL::SSL::SSLSocket.class_eval do
        alias_method :stock_syswrite_nonblock, :syswrite_nonblock
        def syswrite_nonblock(data, *options) = stock_syswrite_nonblock(data.reverse, *options)
      end
    RUBY
    tls_problem = "OpenSSL::SSL::SSLSocket's data path stays jruby-openssl's: " \
                  "#{failed_check("TLS", "what the client sent is not what the server read").sub("at load", "at its first use")}"
    rsa_problem = failed_check("RSA", "RSA#private_encrypt gave another answer than MRI")
    ec_problem = failed_check("EC", "EC#dh_compute_key gave another secret than MRI")
    assert_equal ["fast_random: Cipher#random_iv and random_key stay on jruby-openssl's SecureRandom " \
                  "(#{failed_check("OpenSSL::Random", "Cipher#random_key gave one of another length")})",
                  "fast_random: RSA stays on jruby-openssl's Java code: #{rsa_problem}",
                  "fast_random: EC stays on jruby-openssl's Java code: #{ec_problem}", "fast_random: #{tls_problem}"], warnings
    expected = with_x509_stock.merge(
      "engines" => %w[java java], "installed" => [false, false, true], "problems" => [rsa_problem, ec_problem],
      "served" => [false, false, true], "at_load" => [true, true, true], "random_iv_drawn" => false,
      "derive_owner" => result["stock_derive_owner"], "stock_derive_owner" => result["stock_derive_owner"],
      "tls" => [false, tls_problem],
      "replaced" => with_x509_stock["replaced"].merge("OpenSSL::PKey::RSA" => [], "OpenSSL::PKey::EC" => [], "OpenSSL::SSL::SSLSocket" => [])
    )
    assert_equal expected.except("version"), result.except("version")
  end

  # On a future release with +changed+ (Ruby run before fast_random), the
  # X.509 check at load finds +what+ (bytes' hashes as "..."): one warning,
  # and Certificate#sign, #verify and CRL#verify stay jruby-openssl's, all
  # three (none replaced); RSA, EC and the rest are hooked, checked and
  # served by the engines, as on this JRuby's own release.
  def assert_x509_stays_stock(changed, what)
    result, warnings = report(future_version + changed)
    assert_equal ["fast_random: X509::Certificate#sign, #verify and CRL#verify stay jruby-openssl's: #{failed_check("X.509", what)}"],
                 warnings.map { |warning| warning.gsub(/\(hash \h+\)/, "(hash ...)") }
    assert_equal with_x509_stock.merge("at_load" => [true, true, true]).except("version"), result.except("version")
  end

  # A release whose Certificate#verify was tightened (a Java method, as
  # jruby-openssl's are) to refuse every certificate signed with RSA answers
  # otherwise than fast_random's would, on MRI's RSA certificate.
  def test_a_release_whose_certificate_verify_changed_keeps_x509_stock
    tightened = "->(cert, key) { !cert.signature_algorithm.include?('RSA') && cert.stock_verify(key) }"
    assert_x509_stays_stock(x509_method_in_java("Certificate", "verify", tightened),
                            "OpenSSL::X509::Certificate#verify gives true where jruby-openssl's gives false (MRI's RSA certificate)")
  end

  # A Certificate#sign that signs otherwise (here always with SHA-512):
  # the RSA certificate signed again is not stock's bytes.
  def test_a_release_whose_certificate_sign_changed_keeps_x509_stock
    assert_x509_stays_stock(x509_method_in_java("Certificate", "sign", "->(cert, key, _digest) { cert.stock_sign(key, 'SHA512') }"),
                            "OpenSSL::X509::Certificate#sign gives 727 bytes (hash ...) where jruby-openssl's gives 727 bytes " \
                            "(hash ...) (MRI's RSA certificate signed again with SHA256)")
  end

  # A CRL#verify that raises a Java exception for CRLs signed with ECDSA:
  # any exception in the check is a failure, said in one line (no stack
  # trace), as any other difference.
  def test_a_release_whose_crl_verify_raises_keeps_x509_stock
    raising = "->(crl, key) { crl.signature_algorithm.start_with?('ecdsa') ? raise(java.lang.UnsupportedOperationException.new('ECDSA')) : " \
              "crl.stock_verify(key) }"
    assert_x509_stays_stock(x509_method_in_java("CRL", "verify", raising), "it raised java.lang.UnsupportedOperationException: ECDSA")
  end

  # Ed25519 keys (OpenSSL::PKey::PKey, from jruby-openssl 0.16.1) go
  # through the provider fast_random puts into jruby-openssl, which hands
  # them to BouncyCastle untouched (faster than OpenSSL 3.0's Ed25519:
  # docs/ec.md): the same signatures (Ed25519's are deterministic), raw
  # keys, PEM and verdicts as stock, and X25519's and #derive's errors as
  # stock's; nothing counted as fast_random's. On older releases the same
  # NoMethodErrors, so the comparison holds everywhere.
  ED25519 = <<~'RUBY'
    require "openssl"
    require "json"
    counted = -> { defined?(FastRandom::RSA) ? [FastRandom::RSA.stats.to_s, FastRandom::EC.stats[:openssl].values_at(:sign, :verify)] : ["", [0, 0]] }
    before = counted.()
    answer = lambda do |&block|
      value = block.()
      value.is_a?(String) && value.encoding == Encoding::BINARY ? value.unpack1("H*") : value
    rescue StandardError, NotImplementedError => e
      [e.class.name, e.message]
    end
    key = OpenSSL::PKey.new_raw_private_key("ED25519", "\x01".b * 32) rescue nil
    public_key = OpenSSL::PKey.read(key.public_to_pem) rescue nil
    signature = key.sign(nil, "message") rescue nil
    generated = OpenSSL::PKey.generate_key("ED25519") rescue nil
    results = [
      answer.() { OpenSSL::PKey.new_raw_private_key("ED25519", "\x01".b * 32).class.name },
      answer.() { key.sign(nil, "message") }, answer.() { key.raw_public_key }, answer.() { public_key.oid },
      answer.() { public_key.verify(nil, signature, "message") }, answer.() { public_key.verify(nil, signature, "massage") },
      answer.() { OpenSSL::PKey.read(key.private_to_pem).raw_private_key }, answer.() { key.public_to_der },
      answer.() { generated.verify(nil, generated.sign(nil, "m"), "m") }, answer.() { key.derive(public_key) },
      answer.() { OpenSSL::PKey.generate_key("X25519") }, answer.() { OpenSSL::PKey.new_raw_private_key("X25519", "\x01".b * 32) }
    ]
    after = counted.()
    puts JSON.generate("results" => results, "rsa_unchanged" => before[0] == after[0], "eddsa_native" => after[1].sum - before[1].sum)
  RUBY

  def test_ed25519_and_x25519_keys_are_served_as_stock_serves_them
    answers = [false, true].map do |with_fast_random|
      out, err, status = TestHelper.jruby((with_fast_random ? "require 'fast_random'\n" : "") + ED25519)
      assert status.success?, "jruby failed: #{err}"
      assert_empty err.lines.grep(/\Afast_random: /)
      JSON.parse(out.lines.last)
    end
    stock, ours = answers
    assert_equal stock["results"], ours["results"]
    assert ours["rsa_unchanged"], "no RSA operation counted"
    assert_equal 0, ours["eddsa_native"], "no EC operation counted"
    require "openssl"
    return if Gem::Version.new(JOpenSSL::VERSION) < Gem::Version.new("0.16.1") # Ed25519 keys came with 0.16.1

    assert_equal ["OpenSSL::PKey::PKey", true, false], ours["results"].values_at(0, 4, 5)
  end

  # Two runtimes that share fast_random's classes (its jar on the JVM's
  # class path, as in a servlet container's lib/) but each load their own
  # jruby-openssl: one runtime's failed check takes RSA out of that runtime
  # alone, in either order, and each reports what serves it.
  SHARED_CLASSES = <<~'RUBY'
    java_import "org.jruby.embed.ScriptingContainer"
    java_import "org.jruby.embed.LocalContextScope"
    failing = <<~CODE
      require "jopenssl/version"
      JOpenSSL.send(:remove_const, :VERSION)
      JOpenSSL::VERSION = "0.17.0"
      require "openssl"
      OpenSSL::PKey::RSA.class_eval do
        alias_method :stock_private_encrypt, :private_encrypt
        def private_encrypt(*args) = stock_private_encrypt(*args).reverse
      end
      require "fast_random"
    CODE
    report = <<~CODE
      key = OpenSSL::PKey::RSA.new(1024)
      count = -> { FastRandom::RSA.stats.values_at(:openssl, :gmp, :java).sum { |c| c.values.sum } }
      before = count.()
      key.sign("SHA256", "m")
      [FastRandom::RSA.installed?, FastRandom::RSA.engine.to_s, count.() > before,
       Java::FastrandomJca::ProviderHook.java_class.class_loader == java.lang.ClassLoader.system_class_loader].inspect
    CODE
    results = [false, true].map do |failing_first|
      runtimes = Array.new(2) do
        ScriptingContainer.new(LocalContextScope::SINGLETHREAD).tap { |c| c.load_paths = [LIB] }
      end
      plain, broken = runtimes
      (failing_first ? [[broken, failing], [plain, 'require "fast_random"; require "openssl"']]
                     : [[plain, 'require "fast_random"; require "openssl"'], [broken, failing]]).each { |r, code| r.run_scriptlet(code) }
      result = [plain.run_scriptlet(report), broken.run_scriptlet(report)]
      runtimes.each(&:terminate)
      result
    end
    puts results.inspect
  RUBY

  def test_a_failed_check_in_one_runtime_leaves_another_that_shares_fast_randoms_classes_alone
    command = IO.popen([File.join(TestHelper::ROOT, "bin/jruby"), "--jruby", TestHelper.child_jruby, "--bare", "--print-command"],
                       &:read).lines.map(&:chomp)
    jar = command[command.index("-jar") + 1]
    Dir.mktmpdir("fast_random-shared") do |dir|
      # fast_random's classes name BouncyCastle's, so it goes on the class path too: the JRuby's own.
      entry = IO.popen(["unzip", "-Z1", jar], &:read).lines.map(&:chomp).find { |e| e.match?(%r{/bcprov-jdk18on-[\d.]+\.jar\z}) }
      refute_nil entry, "#{jar} carries no BouncyCastle provider jar"
      system("unzip", "-q", "-j", "-o", jar, entry, "-d", dir, exception: true)
      class_path = [jar, File.join(dir, File.basename(entry)), File.join(TestHelper::ROOT, "lib/fast_random/fast_random.jar")]
      script = File.join(dir, "shared.rb")
      File.write(script, "LIB = #{File.join(TestHelper::ROOT, "lib").dump}\n#{SHARED_CLASSES}")
      out, err, status = Open3.capture3(*command[0...command.index("-jar")], "-cp", class_path.join(File::PATH_SEPARATOR),
                                        "org.jruby.Main", script)
      assert status.success?, err
      require "openssl"
      plain = [true, FastRandom::RSA.engine.to_s, true, true].inspect # this process's engine: the same settings
      broken = '[false, "java", false, true]'
      assert_equal [[plain, broken], [plain, broken]].inspect, out.lines.last.strip
    end
  end

  # Below the floor the number decides: nothing of jruby-openssl is touched,
  # with one warning; SecureRandom is fast_random's all the same.
  def test_a_release_older_than_the_floor_stays_stock
    result, warnings = report(future_version("0.14.2-SNAPSHOT"))
    assert_equal ["fast_random: jruby-openssl 0.14.2-SNAPSHOT is older than fast_random supports (0.15.0 and later): " \
                  "RSA, EC, AES, PBKDF2, OpenSSL::Random and SSLSocket's data path stay jruby-openssl's own"], warnings
    assert_equal [[true, true, true, "\x00" * 4], [false, false, false], %w[java java], "#<Class:OpenSSL::Random>",
                  [false, false, false], false],
                 result.values_at("works", "served", "engines", "random", "installed", "random_iv_drawn")
    assert_equal [[]] * 8, result["replaced"].values
    assert_equal false, result["tls"][0]
    assert_match(/older than fast_random supports/, result["problems"][0])
  end
end
