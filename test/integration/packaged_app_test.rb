# frozen_string_literal: true

# Passes 10.1, 9.4: end to end, in a packaged jar with a user's environment; each JRuby resolves uri:classloader: paths its own way.

require_relative "../test_helper"
require_relative "../support/packaged_app"
require_relative "../support/mri_keys"
require "tmpdir"

# An application packaged as Warbler packages one (test/support/packaged_app.rb):
# one executable jar holding JRuby, the gems and the app, run with
# `java -jar app.jar`. fast_random's JNI library and the bundled libgmp
# are entries of the archive, which fast_random copies out (checked
# against the SHA-256 its jar records) and loads; the copy directory is
# the default, under a home of the test's own (-Duser.home).
class PackagedAppTest < Minitest::Test
  include Packaging::EndToEnd

  MESSAGE = "fast_random in a packaged jar"

  # MRI: whether the EC signature (base64 on stdin) verifies.
  MRI_VERIFY = <<~'RUBY'
    require "openssl"
    ec = OpenSSL::PKey::EC.new(File.read(File.join(ARGV[0], "p256.pem")))
    print ec.verify("SHA256", $stdin.read.unpack1("m0"), ARGV[1])
  RUBY

  def mri(script, *args, input: "")
    out, err, status = Open3.capture3(*Packaging.mri_command, "-e", script, *args, stdin_data: input)
    assert status.success?, "MRI failed: #{err}"
    out
  end

  def test_the_packaged_jar_runs_every_engine_natively
    jruby = TestHelper.child_jruby
    mri_signature = MriKeys.write(@dir, MESSAGE)
    jar = PackagedApp.jar(jruby)
    home = File.join(@dir, "home")
    report, out, err, status = PackagedApp.run(jar, jruby, @dir, MESSAGE, "full",
                                               env: { "FAST_RANDOM_GMP_LIBRARY" => "bundled" },
                                               jvm: ["-Duser.home=#{home}"])
    assert status.success?, "java -jar app.jar failed (#{status}):\n#{out}#{err}"
    assert_empty err.lines.grep(/fast_random/), "no warning"

    assert_equal "uri:classloader:/gems/#{PackagedApp::GEM_DIR}/lib/fast_random", report["library_dir"],
                 "fast_random came from the archive's gems, through RubyGems"
    assert_equal [true, nil, true, true], report.values_at("native_loaded", "native_failure", "archived", "private_copy")
    assert_equal %w[openssl openssl], report.values_at("rsa_engine", "ec_engine")
    assert_equal mri_signature, report["rsa_signature"], "a PKCS#1 v1.5 signature is the same bytes as MRI's"
    assert report["ec_verifies"]
    assert_equal "true", mri(MRI_VERIFY, @dir, MESSAGE, input: report["ec_signature"]), "MRI verifies the EC signature"
    assert_equal({ "private" => 1, "public" => 0 }, report["rsa_stats"]["openssl"])
    assert_equal({ "sign" => 1, "verify" => 1, "derive" => 0, "generate" => 0 }, report["ec_stats"]["openssl"])
    assert_equal [0, 0], [report["rsa_stats"]["fallbacks"], report["ec_stats"]["fallbacks"]]
    assert_match(/\+RDSEED\z/, report["entropy"], "seeded with the CPU's entropy, through the native library") if TestHelper.cpu_random_expected?

    assert_equal mri_signature, report["gmp_signature"], ":gmp on the libgmp the gem bundles"
    assert_match(%r{\Abundled GMP 6\.\d+\.\d+ \(a private copy of uri:classloader:/gems/#{PackagedApp::GEM_DIR}/lib/fast_random/vendor/gmp/linux-x86-64/libgmp\.so\)\z},
                 report["gmp_library"])
    assert_equal({ "private" => 1, "public" => 0 }, report["gmp_stats"])

    assert_equal ["FastRandom", true], report.values_at("jca_provider", "jca_verifies"), "Java's signature through the JVM-wide provider"
    assert_equal 2, report["jca_rsa_stats"]["private"], "served by the :openssl engine"

    tls = report["tls"]
    assert_equal [MESSAGE.reverse, %w[openssl openssl], true, true], tls.values_at("reply", "engines", "archived", "private_copy"),
                 "TLS on the OpenSSL engine, its library copied out of the archive"
    assert_match(/\ABoringSSL \(netty-tcnative \d+\.\d+\.\d+\.Final\)\z/, tls["version"])

    second = report["second"]
    refute_equal report["classes"], second["classes"], "the second runtime loaded fast_random's classes anew"
    assert_equal ["openssl", "openssl", nil, true], second.values_at("rsa_engine", "ec_engine", "native_failure", "private_copy")
    assert_equal mri_signature, second["rsa_signature"]

    copies = File.join(home, ".cache", "fast_random", "native")
    assert_equal "700", format("%o", File.stat(copies).mode & 0o777), "the default copy directory, made private"
    assert_empty Dir.children(copies), "every copy deleted once loaded"
  end
end
