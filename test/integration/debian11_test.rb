# frozen_string_literal: true

# Passes 10.1: the Debian 11 root runs its own JVMs and MRI, whatever the pass's settings.

require_relative "../test_helper"
require_relative "../../script/debian_root"
require_relative "../support/packaging"
require_relative "../../script/jruby_versions"
require "json"
require "tmpdir"

# The Linux that JRuby shops run, for real: a Debian 11 root (glibc 2.31,
# OpenSSL 1.1.1w, its own OpenJDK 17 and 11 and MRI 2.7), run with chroot
# on this machine, no emulation (script/debian_root.rb). The java gem
# from `rake gem` is installed there with JRuby 9.4's own `gem install
# --local`, as a user would; that root's MRI makes the keys and the answers
# (test/support/debian11/mri.rb) which JRuby's must equal, and checks
# what JRuby made (support/debian11/jruby.rb). Each JVM run is made once
# and shared by the tests that read it.
class Debian11Test < Minitest::Test
  ROOT = DebianRoot::BULLSEYE
  JRUBY = JRubyVersions.full("9.4")
  MESSAGE = "fast_random on Debian 11"
  # Where the host's directories are in the root.
  WORK = "/work"
  PKG = "/pkg"
  JRUBY_DIR = "/jruby"
  SUPPORT = "#{DebianRoot::CHECKOUT}/test/support/debian11".freeze
  GEMS = "#{WORK}/gems".freeze

  class << self
    # A host directory, writable in the root at WORK: MRI's keys and
    # answers, the installed gem, and what each JRuby run made.
    def work
      @work ||= Dir.mktmpdir("fr-debian11-").tap { |dir| Minitest.after_run { FileUtils.remove_entry(dir) } }
    end

    # {key => [parsed JSON, stderr]}, each run once.
    def runs
      @runs ||= {}
    end
  end

  def setup
    problem = ROOT.problem
    flunk "the Debian 11 test bed is not ready: #{problem}" if problem
  end

  def work = self.class.work

  def jruby_jar
    @jruby_jar ||= JRubyVersions.jar(JRUBY) or flunk "no jruby-complete #{JRUBY}"
  end

  # Runs +command+ in the root with the work directory, the gem and the
  # JRuby jar mounted; fails on a non-zero exit. [stdout, stderr].
  def in_root(*command, env: {}, remove: [])
    out, err, status = ROOT.run(*command, env: env, remove: remove, writable: { work => WORK },
                                mounts: { File.dirname(Packaging::JAVA_GEM) => PKG, File.dirname(jruby_jar) => JRUBY_DIR })
    assert status.success?, "#{command.join(" ")} in the #{ROOT.name} failed (#{ROOT.describe(status)}):\n#{out}#{err}"
    [out, err]
  end

  def jruby_command(java_version = 17)
    [ROOT.java(java_version), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-jar", "#{JRUBY_DIR}/#{File.basename(jruby_jar)}"]
  end

  # MRI's keys and answers, and the gem installed into GEMS: once.
  def prepared
    self.class.runs[:prepared] ||= begin
      in_root("/usr/bin/ruby", "#{SUPPORT}/mri.rb", "make", WORK)
      Packaging.gems
      out, = in_root(*jruby_command, "-S", "gem", "install", "--local", "--no-document", "--install-dir", GEMS,
                     "#{PKG}/#{File.basename(Packaging::JAVA_GEM)}", env: { "GEM_HOME" => GEMS, "GEM_PATH" => GEMS })
      assert_match(/Successfully installed fast_random-#{Regexp.escape(FastRandom::VERSION)}-java/, out)
      JSON.parse(File.read(File.join(work, "mri.json")))
    end
  end

  # support/debian11/jruby.rb in +mode+, under -w unless +quiet+ (as users
  # run): [what it made, stderr]. The installed gem, but for "faults", which
  # takes the checkout's lib and the test build of the library (its fault
  # injection).
  def jruby(mode, java_version: 17, remove: [], quiet: false)
    self.class.runs[[mode, java_version]] ||= begin
      prepared
      env, load_path = { "GEM_HOME" => GEMS, "GEM_PATH" => GEMS }, []
      if mode == "faults"
        env = { "FAST_RANDOM_NATIVE_LIBRARY" => "#{DebianRoot::CHECKOUT}/tmp/native/test/libfast_random.so" }
        load_path = ["-I#{DebianRoot::CHECKOUT}/lib"]
      end
      _, err = in_root(*jruby_command(java_version), *("-w" unless quiet), *load_path, "#{SUPPORT}/jruby.rb", WORK, mode, env: env, remove: remove)
      [JSON.parse(File.read(File.join(work, "#{mode}.json"))), err]
    end
  end

  # MRI's verdicts on what JRuby's run +mode+ made.
  def mri_verdicts(mode)
    jruby(mode)
    out, = in_root("/usr/bin/ruby", "#{SUPPORT}/mri.rb", "verify", WORK, mode)
    JSON.parse(out)
  end

  # What the seeds mix in on this CPU (the root runs on it): RDSEED, else RDRAND, else nothing.
  def cpu_entropy
    flags = File.read("/proc/cpuinfo")[/^flags\s*:(.*)$/, 1].to_s.split
    %w[rdseed rdrand].find { |flag| flags.include?(flag) }&.upcase
  end

  # stderr less what -w adds on a CPU without RDRAND (seeding from the OS alone is said then).
  def without_cpu_remarks(err)
    cpu_entropy ? err : err.lines.grep_v(/\Afast_random: .*(RDRAND|RDSEED)/).join
  end

  def test_the_installed_gem_runs_rsa_and_ec_on_openssl_1_1_1_with_mris_results
    mri = prepared
    made, err = jruby("full")
    assert_empty without_cpu_remarks(err), "a warning at require (under -w) or an exception"
    assert_match(/\AOpenSSL 1\.1\.1\w+ /, mri["openssl"], "the root's MRI is not on OpenSSL 1.1.1")
    assert_equal ["openssl", "openssl", "libcrypto.so.1.1 (#{mri["openssl"]})"],
                 [made["rsa_engine"], made["ec_engine"], made["rsa_stats"]["libcrypto"]]
    assert_equal made["rsa_stats"]["libcrypto"], made["ec_stats"]["libcrypto"]
    assert_equal [nil, nil], made.values_at("rsa_problem", "ec_problem")
    assert_equal ["NativePRNGNonBlocking", *cpu_entropy].join("+"), made["entropy"]
    assert_match(/\A\h{8}-\h{4}-4\h{3}-[89ab]\h{3}-\h{12}\z/, made["uuid"])

    %w[rsa2048_sha256 rsa2048_sha1 rsa2048_sha512 rsa4096_sha256 p256_secret p521_secret].each do |name|
      assert_equal mri[name], made[name], "#{name}: not MRI's bytes"
    end
    assert_equal [MESSAGE, MESSAGE], made.values_at("rsa_pkcs1_decrypted", "rsa_oaep_decrypted")
    assert_equal [true, true, true], made.values_at("rsa_verifies_mri", "p256_verifies_mri", "p521_verifies_mri")
    assert_equal({ "rsa_pkcs1_decrypts" => true, "rsa_oaep_decrypts" => true, "p256_verifies" => true, "p521_verifies" => true,
                   "generated_p256_verifies" => true, "generated_rsa_verifies" => true, "jca_p256_verifies" => true },
                 mri_verdicts("full"))

    rsa, ec = made.values_at("rsa_stats", "ec_stats")
    assert_equal [0, 0, 0, 0], [rsa["fallbacks"], ec["fallbacks"], rsa["java"].values.sum, ec["java"].values.sum],
                 "an operation ran on jruby-openssl's code"
    assert_equal 8, rsa["openssl"]["private"], "4 signatures, 2 decryptions, the generated key's and the provider's"
    assert_operator ec["openssl"]["derive"], :>=, 3, "2 dh_compute_key and the provider's ECDH"
    assert_operator ec["openssl"]["generate"], :>=, 1, "EC.generate"
    # The verification tables, built on OpenSSL 1.1.1's EC_GROUP_precompute_mult, decide right.
    assert_equal ["1100 of 1100", "40 of 40", false, false],
                 made.values_at("p256_repeated_verifications", "p521_repeated_verifications",
                                "p256_verifies_other_message", "p521_verifies_other_message")
    assert_equal 2, ec["verify_tables"], "a table each for the P-256 and P-521 keys verified past their counts"
    assert_operator ec["table_verifications"], :>=, 76 + 24, "verifications the tables decided"
  end

  def test_the_jvm_wide_provider_serves_java_code_on_openssl_1_1_1
    mri = prepared
    made, = jruby("full")
    assert_equal %w[FastRandom FastRandom FastRandom], made.values_at("jca_rsa_provider", "jca_p256_provider", "jca_ecdh_provider")
    assert_equal mri["rsa2048_sha256"], made["jca_rsa_signature"], "SHA256withRSA: MRI's bytes"
    assert_equal mri["p256_secret"], made["jca_p256_secret"], "ECDH: MRI's secret"
    assert mri_verdicts("full")["jca_p256_verifies"]
  end

  def test_java_11_runs_the_installed_gem_on_openssl_1_1_1
    mri = prepared
    made, err = jruby("smoke", java_version: 11)
    assert_empty without_cpu_remarks(err)
    assert_match(/\A11\./, made["java"])
    assert_equal %w[openssl openssl], made.values_at("rsa_engine", "ec_engine")
    assert_equal mri.values_at("rsa2048_sha256", "p256_secret"), made.values_at("rsa2048_sha256", "p256_secret")
  end

  # Failure paths on 1.1.1: the known-answer self-tests pass, and an
  # operation whose libcrypto call fails is answered by jruby-openssl's
  # code, right; the next one is libcrypto's again.
  def test_self_tests_pass_and_injected_failures_give_right_answers_on_openssl_1_1_1
    mri = prepared
    made, err = jruby("faults")
    assert_equal ["fast_random: the openssl RSA engine failed (injected fault (LibCrypto.injectFaults)); such operations run on jruby-openssl's Java code",
                  "fast_random: the openssl EC engine failed (injected fault (LibCrypto.injectFaults)); such operations run on jruby-openssl's Java code"],
                 without_cpu_remarks(err).lines.map(&:chomp),
                 "one warning per engine for its failures, and no self-test failed (a curve's is a warning)"
    assert_nil made["rsa_self_test"]
    assert_equal %w[openssl openssl], made.values_at("rsa_engine", "ec_engine"), "the engines' self-tests passed"
    assert made["crt_checks_results"], "OpenSSL 1.1.1's RSA checks its CRT result (else ours would)"
    signature, secret = mri.values_at("rsa2048_sha256", "p256_secret")
    assert_equal({ "rsa_sign" => [signature, signature], "rsa_decrypt" => [MESSAGE, MESSAGE],
                   "ec_sign" => %w[verified verified], "ecdh" => [secret, secret] }, made["faulted"])
    assert_equal [2, 2], [made["rsa_stats"]["fallbacks"], made["ec_stats"]["fallbacks"]], "each operation failed once"
  end

  # A minimal container without libssl: one warning naming the sonames
  # tried (what RSA and EC then run on only under -w), RSA on :gmp, EC on
  # jruby-openssl's code, every answer right.
  def test_without_a_libcrypto_it_says_why_once_and_answers_right
    mri = prepared
    made, err = jruby("no-libcrypto", remove: [ROOT.libcrypto], quiet: true)
    warnings = err.lines.map(&:chomp)
    assert_equal 1, warnings.size, "one warning:\n#{err}"
    assert_match(/\Afast_random: no usable libcrypto: libcrypto\.so\.3 could not be loaded \(.*\); libcrypto\.so\.1\.1 could not be loaded \(.*No such file or directory\): RSA and EC run without OpenSSL/,
                 warnings.first)
    assert_equal %w[gmp java], made.values_at("rsa_engine", "ec_engine")
    assert_match(/\Ano usable libcrypto: libcrypto\.so\.3 could not be loaded/, made["rsa_problem"])
    assert_nil made["rsa_stats"]["libcrypto"]
    %w[rsa2048_sha256 rsa2048_sha1 rsa2048_sha512 rsa4096_sha256 p256_secret p521_secret].each do |name|
      assert_equal mri[name], made[name], "#{name}: not MRI's bytes"
    end
    assert_equal [MESSAGE, MESSAGE], made.values_at("rsa_pkcs1_decrypted", "rsa_oaep_decrypted")
    assert mri_verdicts("no-libcrypto").values.all?, "MRI (with its libcrypto back) refused something"
  end
end

# The build's check (Rakefile: glibc_floor_problem, `rake glibc_floor`):
# both shipped libraries pass, and libraries this machine links the plain
# way are refused, naming what they need: getrandom (glibc 2.25), and
# DT_RELR relocations (-z pack-relative-relocs: GLIBC_ABI_DT_RELR, 2.36),
# a requirement of the library as a whole, with no symbol to show it.
class GlibcFloorTest < Minitest::Test
  SOURCE = <<~C
    #include <sys/random.h>
    static int values[64];
    int *pointers[64] = { &values[0], &values[1], &values[2], &values[3], &values[4], &values[5], &values[6] };
    long fill(char *buffer) { return getrandom(buffer, 1, 0); }
  C

  def floor(library = nil)
    Open3.capture2e("rake", library ? "glibc_floor[#{library}]" : "glibc_floor", chdir: DebianRoot::ROOT_CHECKOUT)
  end

  def test_the_build_refuses_a_library_that_needs_a_newer_glibc
    out, status = floor
    assert status.success?, out
    assert_match(%r{linux-x86_64/libfast_random\.so, .*linux-aarch64/libfast_random\.so: glibc 2\.17 or later}, out)
    Dir.mktmpdir("fr-glibc-") do |dir|
      File.write(File.join(dir, "new.c"), SOURCE)
      { "plain.so" => [], "relr.so" => ["-Wl,-z,pack-relative-relocs"] }.each do |name, flags|
        built, status = Open3.capture2e("gcc", "-shared", "-fPIC", *flags, "-o", File.join(dir, name), File.join(dir, "new.c"))
        assert status.success?, built
      end
      out, status = floor(File.join(dir, "plain.so"))
      refute status.success?, "a library needing glibc 2.25 passed:\n#{out}"
      assert_match(/plain\.so needs a glibc newer than 2\.17: getrandom@GLIBC_2\.25/, out)
      out, status = floor(File.join(dir, "relr.so"))
      refute status.success?, "a library with DT_RELR relocations passed:\n#{out}"
      assert_match(/relr\.so needs a glibc newer than 2\.17: .*\(the library as a whole\) GLIBC_ABI_DT_RELR/, out)
    end
  end
end
