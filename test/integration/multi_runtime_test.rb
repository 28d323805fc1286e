# frozen_string_literal: true

# Passes all: teardown differs per JRuby; each runtime's private copy of the library must see the hidden features, or be absent.

require_relative "../test_helper"
require "json"
require "open3"
require "tmpdir"

# Several JRuby runtimes in one JVM, each loading fast_random through a
# class loader of its own (org.jruby.embed.ScriptingContainer, as JVM
# applications embed Ruby; jruby-rack's pools and redeploys do the same,
# see test/integration/servlet_deploy_test.rb). test/support/runtimes.rb runs each scenario
# in a JRuby of its own and reports JSON.
class MultiRuntimeTest < Minitest::Test
  HEAVY = "several JRuby runtimes per scenario: bin/test's main passes run this " \
          "(a fallback pass changes FAST_RANDOM_* settings these runtimes would only repeat)"

  def scenario(*args, java_options: nil, env: {})
    env = java_options ? env.merge("FAST_RANDOM_JAVA_OPTS" => java_options) : env
    out, err, status = Open3.capture3(env, *TestHelper.jruby_command(long: true), File.expand_path("../support/runtimes.rb", __dir__), *args)
    assert status.success?, "runtimes.rb #{args.join(' ')} failed:\n#{err[-4000..] || err}"
    JSON.parse(out.lines.last)
  end

  # [EC, RSA]: what this runtime, alone in its JVM, gets; the native
  # engines wherever the pass has the library.
  # What a runtime wrote to its $stderr, but the one warning a pass without
  # the CPU's generator expects from every runtime (test/random/cpu_random_test.rb).
  def warnings(report)
    report["errors"].lines.grep_v(/seeding from the OS only, without CPU entropy/).join
  end

  def expected_engines
    require "openssl"
    engines = [FastRandom::EC.engine.to_s, FastRandom::RSA.engine.to_s]
    assert_equal %w[openssl openssl], engines if TestHelper.libcrypto_expected?
    engines
  end

  class << self
    attr_accessor :together_result
  end

  # Three runtimes alive at once, then the provider's ownership among them:
  # one child JRuby for the two tests that read it.
  def together = self.class.together_result ||= scenario("together", "3")

  def test_every_runtime_gets_the_native_engines_and_its_own_stats
    result = together
    reports = result["reports"]
    assert_equal 3, reports.size
    assert_equal 3, reports.map { |r| r["loader"] }.uniq.size, "each runtime loads fast_random through its own class loader"
    reports.each_with_index do |report, i|
      assert_equal expected_engines, report.values_at("ec_engine", "rsa_engine"), "runtime #{i}: #{report}"
      assert_equal TestHelper.cpu_random_expected?, report["rdrand"], "runtime #{i}: #{report['rdrand_problem']}"
      # The first loads the gem's file; the others their private copies.
      assert_equal i.positive? && TestHelper.native_library_expected?, report["private_copy"], "runtime #{i}"
      # 50 from the shared work, then 10, 20, 30: each runtime counts its own calls only.
      assert_equal 50 + 10 * (i + 1), report["uuid_calls"], "runtime #{i}'s stats"
      assert_equal "", warnings(report), "runtime #{i} warned" if TestHelper.native_library_expected?
    end
  end

  def test_the_jvm_wide_provider_has_one_owner_and_leaves_with_it
    own = together["ownership"]
    assert_equal true, own["first_install"]
    assert_equal false, own["second_install"], "a second runtime's install answers false"
    assert_equal false, own["second_installed"], "and says its own is not installed"
    assert_equal true, own["first_installed"]
    assert_equal 1, own["second_warnings"], "with one warning on the second runtime's $stderr"
    assert_equal "FastRandom", own["default_secure_random"]
    assert_nil own["after_first_teardown"], "the owner's teardown takes the provider out"
    refute_equal "FastRandom", own["default_after_teardown"], "new SecureRandom() is the JDK's again"
    assert_equal true, own["second_install_after"], "then another runtime may install its own"
    assert_equal true, own["second_installed_after"]
    assert_nil own["after_all_teardowns"]
  end

  def test_a_teardown_does_not_disturb_another_runtimes_calls_in_flight
    skip HEAVY unless TestHelper.main_pass?

    result = scenario("in_flight")
    assert_equal [true, true], result["alive_before"], "the survivor's workers were running when the other runtime went"
    assert result["rounds"].all? { |r| r.is_a?(Integer) && r.positive? }, "every worker finished cleanly: #{result['rounds']}"
    assert result["rounds"].zip(result["rounds_at_teardown"]).all? { |after, at| after >= at + 3 },
           "every worker went on working after the teardown: #{result['rounds_at_teardown']} then #{result['rounds']}"
    assert_equal expected_engines, result["survivor"].values_at("ec_engine", "rsa_engine")
    assert_equal "", result["survivor_errors"]
    assert_nil result["provider_after"]
  end

  # The heap fixed and touched from the start (so resident memory shows
  # what is not heap: classes, code, native libraries), soft references
  # cleared at every collection (JRuby and the JDK cache softly; a
  # collected runtime is one no longer even softly reachable).
  #
  # glibc gives a thread its own malloc arena, up to eight per core, and an
  # arena's pages stay resident: runtimes on threads of their own (9.4, below)
  # made resident memory jump by 100 MB (12%) between two samples in one run
  # of three with no runtime left behind. Two arenas (MALLOC_ARENA_MAX=2) keep
  # that out of the measure, which a leak of native memory per runtime is not.
  def teardown_loop(count, *options)
    scenario("teardown", count.to_s, *("own_thread" if JRUBY_VERSION.start_with?("9.4")), *options,
             java_options: "-Xms600m -Xmx600m -XX:+AlwaysPreTouch -XX:SoftRefLRUPolicyMSPerMB=0" \
                           "#{' -Djruby.ji.class.values=HARD_MAP' if TestHelper.class_values_pin_runtimes?}",
             env: { "MALLOC_ARENA_MAX" => "2" })
  end

  # TEARDOWNS runtimes, each doing a request's crypto (uuids, RSA signing, EC
  # verification through jruby-openssl), every other one installing the
  # JVM-wide provider and making the JDK cache a SecureRandom of it
  # (UUID.randomUUID), every third a TLS connection on the OpenSSL engine
  # (netty in a class loader of fast_random's, BoringSSL's contexts and
  # sessions in native memory, a private copy of its JNI library), each
  # torn down without uninstalling anything.
  # On JRuby 10.1 every runtime runs on the process's main thread, which
  # outlives them all. Some releases keep every runtime reachable in ways
  # that have nothing to do with fast_random (test/integration/servlet_deploy_test.rb's
  # control shows them without fast_random): 9.4 and 10.0.1.0 to 10.0.4.0
  # keep per-class data in ClassValues that hold the runtime (see
  # TestHelper.class_values_pin_runtimes?), run here with
  # jruby.ji.class.values=HARD_MAP; 9.4 also leaves thread-locals holding a
  # runtime on each thread that ran its Ruby code, so there each runtime
  # lives on a thread of its own.
  #
  # Every one of their class loaders must be collected, whatever their
  # number. Resident memory after all of them may exceed that after half by
  # 10% (some 80 MB of 800): a runtime kept alive in any way (its classes
  # alone take tens of MB) shows at once, and native memory each leaves
  # behind (libcrypto's keys, copies of the library) from some 7 MB a
  # runtime. Fifty, as this test had before, took two minutes per JRuby and
  # only moved that bound to 3 MB.
  TEARDOWNS = 24

  def test_torn_down_runtimes_leave_nothing_behind
    skip HEAVY unless TestHelper.main_pass?

    result = teardown_loop(TEARDOWNS)
    assert_equal({ expected_engines.join("/") => TEARDOWNS }, result["engines"])
    assert_equal 0, result["providers_left"], "no teardown left the provider in the JVM's list"
    assert_equal 0, result["alive"], "class loaders of torn-down runtimes still reachable: #{result['alive_indexes']}"
    rss = result["rss_mb"].transform_keys(&:to_i)
    half, all = rss.fetch(TEARDOWNS / 2), rss.fetch(TEARDOWNS)
    assert all <= half * 1.10, "resident memory grew from #{half} MB after #{TEARDOWNS / 2} runtimes to #{all} MB after #{TEARDOWNS}"
    assert_match TestHelper::UUID_V4, result["uuid_after"], "a SecureRandom the JDK kept works on after its runtime went"
  end
end

class MultiRuntimeTest
  # Where the private copy cannot be made safely, that runtime runs on the
  # Java engines and says why, once; the next runtime with a private
  # directory gets the native engines, and no copy is left on disk.
  def test_a_private_copy_is_made_only_where_no_one_else_can_write
    skip "no native library in this pass (FAST_RANDOM_NATIVE_LIBRARY is missing): nothing to copy" unless TestHelper.native_library_expected?

    Dir.mktmpdir("fast_random-copies") do |dir|
      result = scenario("copy_faults", dir)
      { "writable_by_others" => /others may write to it/, "a_file" => /not a directory/,
        "a_link_others_may_replace" => %r{the symbolic link .*/open/link on the way to it is in .*/open, which is writable by others} }.each do |name, why|
        report = result["cases"].fetch(name)
        assert_equal %w[java gmp], report.values_at("ec_engine", "rsa_engine"), "#{name}: #{report}"
        assert_equal false, report["rdrand"], name
        assert_match why, report["ec_problem"], name
        assert_match(/loaded by another class loader in this JVM .* could not be loaded from/, report["ec_problem"])
        assert_match why, report["errors"], "#{name}: the runtime says why"
      end
      good = result["cases"].fetch("private")
      assert_equal expected_engines, good.values_at("ec_engine", "rsa_engine")
      assert_equal true, good["private_copy"]
      assert_equal "", warnings(good)
      assert_empty result["left_in_private_dir"], "the copy is deleted once loaded"
      assert_equal expected_engines, result["first"].values_at("ec_engine", "rsa_engine"), "the first runtime never noticed"
    end
  end
end
