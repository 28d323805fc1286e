# frozen_string_literal: true

# Passes aarch64: JRuby itself under qemu takes some 30 s a start, so this runs on request (bin/test --aarch64-jruby).

require_relative "../test_helper"
require_relative "../../script/debian_root"
require_relative "../support/mri_keys"
require_relative "../../script/jruby_versions"
require "json"
require "tmpdir"

# JRuby on ARM, end to end: JRuby 9.4 (jruby-complete, on the arm64 root's
# Java 17) requires fast_random from the checkout in the arm64 root under
# qemu, signs with keys MRI made, and reports its engines; MRI on this
# machine then checks the signatures. test/native/aarch64_test.rb checks
# the library itself, from plain Java, on every bin/test run.
class Aarch64JRubyTest < Minitest::Test
  JRUBY = JRubyVersions.full("9.4")
  MESSAGE = "fast_random on aarch64"

  # Run in the root: the JSON of what fast_random did.
  SCRIPT = <<~'RUBY'
    require "openssl"
    require "fast_random"
    require "json"
    message = ARGV[1]
    rsa = OpenSSL::PKey::RSA.new(File.read(File.join(ARGV[0], "rsa.pem")))
    ec = OpenSSL::PKey::EC.new(File.read(File.join(ARGV[0], "p256.pem")))
    result = {
      "platform" => RbConfig::CONFIG["host_cpu"], "java_arch" => ENV_JAVA["os.arch"],
      "rsa_signature" => [rsa.sign("SHA256", message)].pack("m0"),
      "ec_signature" => [ec.sign("SHA256", message)].pack("m0"),
      "ec_verifies" => ec.verify("SHA256", ec.sign("SHA256", message), message),
      "uuid" => SecureRandom.uuid, "hex" => SecureRandom.hex(16),
      "rsa_engine" => FastRandom::RSA.engine, "ec_engine" => FastRandom::EC.engine,
      "gmp_problem" => FastRandom::RSA.engine_problem(:gmp),
      "rsa_stats" => FastRandom::RSA.stats, "ec_stats" => FastRandom::EC.stats,
      "entropy" => FastRandom::Generator.entropy_source, "backend" => FastRandom.backend,
      "rdrand_problem" => FastRandom.rdrand_problem
    }
    FastRandom::RSA.engine = :gmp
    result["gmp_signature"] = [rsa.sign("SHA256", message)].pack("m0")
    result["gmp_stats"] = FastRandom::RSA.stats[:gmp]
    puts JSON.generate(result)
  RUBY

  # MRI: whether the signatures the root made verify.
  MRI_VERIFY = <<~'RUBY'
    require "openssl"
    require "json"
    made = JSON.parse($stdin.read)
    rsa = OpenSSL::PKey::RSA.new(File.read(File.join(ARGV[0], "rsa.pem")))
    ec = OpenSSL::PKey::EC.new(File.read(File.join(ARGV[0], "p256.pem")))
    print JSON.generate("rsa" => rsa.verify("SHA256", made["rsa_signature"].unpack1("m0"), ARGV[1]),
                        "ec" => ec.verify("SHA256", made["ec_signature"].unpack1("m0"), ARGV[1]))
  RUBY

  def setup
    problem = DebianRoot::ARM64.problem
    flunk "the ARM test bed is not ready: #{problem}" if problem
  end

  def mri(script, *args, input: "")
    out, err, status = Open3.capture3(ENV.fetch("FAST_RANDOM_MRI", "/usr/bin/ruby"), "-e", script, *args, stdin_data: input)
    assert status.success?, "MRI failed: #{err}"
    out
  end

  def test_jruby_on_arm_signs_on_libcrypto_and_mri_agrees
    Dir.mktmpdir("fr-arm64-jruby-") do |keys|
      mri_rsa_signature = MriKeys.write(keys, MESSAGE)
      jar = JRubyVersions.jar(JRUBY) or flunk "no jruby-complete #{JRUBY}"
      out, err, status = DebianRoot::ARM64.run(DebianRoot::ARM64.java, "-XX:TieredStopAtLevel=1", "-jar", "/jruby/#{File.basename(jar)}",
                                       "-I#{DebianRoot::CHECKOUT}/lib", "-e", SCRIPT, "/keys", MESSAGE,
                                       mounts: { File.dirname(jar) => "/jruby", keys => "/keys" })
      assert status.success?, "JRuby in the arm64 root failed (#{DebianRoot::ARM64.describe(status)}):\n#{out}#{err}"
      assert_empty err, "a warning or an exception"
      made = JSON.parse(out.lines.last)

      assert_equal %w[aarch64 aarch64], made.values_at("platform", "java_arch")
      assert_equal %w[openssl openssl], made.values_at("rsa_engine", "ec_engine")
      assert_equal mri_rsa_signature, made["rsa_signature"], "a PKCS#1 v1.5 signature is the same bytes as MRI's"
      assert_equal({ "rsa" => true, "ec" => true }, JSON.parse(mri(MRI_VERIFY, keys, MESSAGE, input: out.lines.last)))
      assert made["ec_verifies"]
      assert_equal({ "private" => 1, "public" => 0 }, made["rsa_stats"]["openssl"])
      assert_equal({ "sign" => 2, "verify" => 1, "derive" => 0, "generate" => 0 }, made["ec_stats"]["openssl"])
      assert_equal [0, 0], [made["rsa_stats"]["fallbacks"], made["ec_stats"]["fallbacks"]]
      assert_equal "NativePRNGNonBlocking+RNDRRS", made["entropy"], "qemu's max CPU has RNDRRS"
      assert_equal "drbg", made["backend"]
      assert_match(/RDRAND is an x86-64 instruction/, made["rdrand_problem"])
      assert_match(/\A\h{8}-\h{4}-4\h{3}-[89ab]\h{3}-\h{12}\z/, made["uuid"])
      assert_match(/\A\h{32}\z/, made["hex"])

      assert_nil made["gmp_problem"], "the :gmp engine on the system's libgmp (Debian's libgmp10 for arm64)"
      assert_equal mri_rsa_signature, made["gmp_signature"]
      assert_equal({ "private" => 1, "public" => 0 }, made["gmp_stats"])
    end
  end
end
