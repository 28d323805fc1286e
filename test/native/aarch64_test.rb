# frozen_string_literal: true

# Passes 10.1: the arm64 library runs in its own arm64 JVM under qemu, whatever the pass's settings.

require_relative "../test_helper"
require_relative "../../script/debian_root"
require "tmpdir"

# The linux-aarch64 JNI library, as the gem ships it, in a real arm64 JVM
# (Debian's OpenJDK 17 in the arm64 roots, under qemu-user): checked from
# plain Java (test/native/NativeCheck.java) through the JVM-wide provider
# and the engines, and compared with the x86-64 library's answers to the
# same program, keys and inputs on this machine; on Debian 12 (OpenSSL 3)
# and on Debian 11 (glibc 2.31, OpenSSL 1.1.1). Every run is one JVM start
# of a few seconds under emulation, so each is made once and shared.
class Aarch64Test < Minitest::Test
  LIB = File.join(DebianRoot::ROOT_CHECKOUT, "lib/fast_random")
  CHECK_CLASSES = File.join(DebianRoot::ROOT_CHECKOUT, "tmp/native/check")
  KEYS = "/keys" # where the keys are in the root

  class << self
    # The keys every run uses, made once by the JDK.
    def keys
      @keys ||= Dir.mktmpdir("fr-arm64-keys-").tap do |dir|
        Minitest.after_run { FileUtils.remove_entry(dir) }
        out, err, status = Open3.capture3(host_java, "-cp", classpath(LIB, CHECK_CLASSES), "NativeCheck", LIB, dir, "keys")
        raise "NativeCheck keys failed: #{out}#{err}" unless status.success?
      end
    end

    # {mode/cpu => [lines as a Hash, stderr, status]}, each run once.
    def runs
      @runs ||= {}
    end

    def host_java
      File.join(ENV_JAVA.fetch("java.home"), "bin", "java")
    end

    def classpath(lib, classes)
      [File.join(lib, "fast_random.jar"), classes].join(File::PATH_SEPARATOR)
    end
  end

  def setup
    problem = DebianRoot::ARM64.problem
    flunk "the ARM test bed is not ready: #{problem}" if problem
    assert File.file?(File.join(LIB, "linux-aarch64/libfast_random.so")), "rake compile built no linux-aarch64 library"
    assert File.file?(File.join(CHECK_CLASSES, "NativeCheck.class")), "rake test_builds built no NativeCheck"
  end

  # NativeCheck in the arm64 JVM: [{name => value}, stderr]. +archive+: the
  # host directory of an app.jar holding the library, which NativeCheck
  # then loads from inside the jar, as in a packaged application.
  def arm64(mode, cpu: "max", remove: [], archive: nil, root: DebianRoot::ARM64)
    key = [mode, cpu, remove, archive, root.suite]
    self.class.runs[key] ||= begin
      problem = root.problem
      flunk "the #{root.name} is not ready: #{problem}" if problem
      inside = DebianRoot::CHECKOUT
      lib_dir = archive ? "jar:file:/app/app.jar!/fast_random" : "#{inside}/lib/fast_random"
      mounts = { self.class.keys => KEYS }
      mounts[archive] = "/app" if archive
      out, err, status = root.run(root.java, "-XX:TieredStopAtLevel=1",
                                       "-cp", self.class.classpath("#{inside}/lib/fast_random", "#{inside}/tmp/native/check"),
                                       "NativeCheck", lib_dir, KEYS, mode,
                                       cpu: cpu, mounts: mounts, remove: remove)
      assert status.success?, "NativeCheck #{mode} on #{cpu} in the #{root.name} failed (#{root.describe(status)}):\n#{out}#{err}"
      [transcript(out), err]
    end
  end

  # NativeCheck on this machine's JVM and the x86-64 library (with the
  # memory access netty needs for the TLS engine on Java 25, as JRuby's
  # launcher gives it).
  def x86_64(mode)
    self.class.runs[[mode, :host]] ||= begin
      unsafe = ENV_JAVA["java.specification.version"].to_i >= 23 ? ["--sun-misc-unsafe-memory-access=allow"] : []
      out, err, status = Open3.capture3(self.class.host_java, *unsafe, "-cp", self.class.classpath(LIB, CHECK_CLASSES),
                                        "NativeCheck", LIB, self.class.keys, mode)
      assert status.success?, "NativeCheck #{mode} on x86-64 failed (#{status}):\n#{out}#{err}"
      [transcript(out), err]
    end
  end

  def transcript(out)
    lines = out.lines.map(&:chomp)
    assert_equal "done", lines.last.to_s.strip, "NativeCheck stopped early:\n#{out}"
    lines.to_h { |line| line.split(" ", 2).then { |name, value| [name, value.to_s] } }
  end

  def same(lines)
    lines.select { |name, _| name.start_with?("same.") }
  end

  def test_every_rsa_and_ec_operation_runs_on_libcrypto_on_aarch64
    lines, err = arm64("engines")
    assert_equal "linux-aarch64/libfast_random.so", lines["platform_file"]
    assert_equal "loaded", lines["native_library"]
    assert_equal "loaded", lines["libcrypto"]
    assert_equal %w[openssl openssl openssl], lines.values_at("rsa.engine", "rsa.public_exponentiation", "ec.engine"),
                 "on ARM, RSA (no IFMA) and EC are OpenSSL's"
    %w[rsa.sign_provider rsa.decrypt_provider_pkcs1 rsa.decrypt_provider_oaep ec.p256.sign_provider
       ec.p256.derive_provider ec.p521.sign_provider ec.p521.derive_provider].each do |name|
      assert_equal "FastRandom", lines[name], name
    end
    assert_equal %w[true true], lines.values_at("ec.p256.served_natively", "ec.p521.served_natively")
    assert_equal %w[0 0], lines.values_at("stats.rsa_fallbacks", "stats.ec_fallbacks"), "an engine failed and the JDK answered"
    assert_equal "6", lines["stats.rsa_openssl"], "sign, 2 verifications, 3 decryptions on libcrypto"
    assert_equal "48", lines["stats.ec_openssl"], "per curve: sign, 2 verifications, derive; and 40 verifications on P-521"
    assert_operator lines["ec.p521.table_verifications"].to_i, :>, 0, "no P-521 verification table was built and used"
    assert_empty err, "a warning or a Java exception on stderr"
  end

  # Debian 11 (glibc 2.31, OpenSSL 1.1.1w): the library built on Debian 12
  # loads (its glibc symbols are 2.17's, the Rakefile checks) and opens
  # libcrypto.so.1.1, whose answers are those of OpenSSL 3 on x86-64.
  def test_on_debian_11_the_library_runs_on_openssl_1_1_1
    lines, err = arm64("engines", root: DebianRoot::ARM64_BULLSEYE)
    x86, = x86_64("engines")
    assert_equal %w[loaded loaded], lines.values_at("native_library", "libcrypto")
    assert_match(/\Alibcrypto\.so\.1\.1 \(OpenSSL 1\.1\.1\w+ /, lines["libcrypto.opened"])
    assert_match(/\Alibcrypto\.so\.3 \(OpenSSL 3\./, x86["libcrypto.opened"])
    assert_equal %w[openssl openssl openssl], lines.values_at("rsa.engine", "rsa.public_exponentiation", "ec.engine")
    assert_equal %w[6 48 0 0], lines.values_at("stats.rsa_openssl", "stats.ec_openssl", "stats.rsa_fallbacks", "stats.ec_fallbacks")
    assert_equal "NativePRNGNonBlocking+RNDRRS", lines["generator.entropy"]
    assert_operator lines["ec.p521.table_verifications"].to_i, :>, 0, "no P-521 verification table was built on 1.1.1"
    assert_equal same(x86), same(lines), "OpenSSL 1.1.1 on aarch64 answers otherwise than OpenSSL 3 on x86-64"
    assert_empty err, "a warning or a Java exception on stderr"
  end

  def test_results_are_right_and_the_same_as_on_x86_64
    arm, = arm64("engines")
    x86, = x86_64("engines")
    assert_equal %w[loaded loaded openssl openssl 0 0],
                 x86.values_at("native_library", "libcrypto", "rsa.engine", "ec.engine", "stats.rsa_fallbacks", "stats.ec_fallbacks"),
                 "the x86-64 run did not run on the x86-64 library and libcrypto"
    expected = {
      "same.rsa.jdk_verifies" => "true", "same.rsa.verifies" => "true", "same.rsa.verifies_tampered" => "false",
      "same.rsa.decrypts_pkcs1" => "true", "same.rsa.decrypts_oaep" => "true",
      "same.rsa.inconsistent_key" => "refused: the key's CRT values do not belong to its modulus and private exponent"
    }
    %w[p256 p521].each do |curve|
      expected.merge!("same.ec.#{curve}.jdk_verifies" => "true", "same.ec.#{curve}.verifies_jdk_signature" => "true",
                      "same.ec.#{curve}.verifies_other_message" => "false", "same.ec.#{curve}.secret_is_jdks" => "true",
                      "same.ec.#{curve}.off_curve_key" => "verified false")
    end
    expected["same.ec.p521.repeated_verifications"] = "40 of 40"
    expected.each { |name, value| assert_equal value, arm[name], name }
    assert_match(/\A\h{512}\z/, arm["same.rsa.signature"])
    assert_equal same(x86), same(arm), "the aarch64 library's deterministic results differ from the x86-64 library's"
    assert_equal expected.size + 4, same(arm).size, "NativeCheck's results changed: update this test"
  end

  def test_rndr_and_rndrrs_seed_the_generators_where_the_cpu_has_them
    lines, = arm64("engines") # qemu's "max" CPU has FEAT_RNG
    assert_equal "RNDR yes", lines["cpu.random"]
    assert_equal "RNDRRS yes", lines["cpu.seed"]
    assert_equal %w[healthy healthy], lines.values_at("cpu.random_sample", "cpu.seed_sample")
    assert_equal "NativePRNGNonBlocking+RNDRRS", lines["generator.entropy"]
    assert_operator lines["generator.distinct_bytes"].to_i, :>, 32
    assert_match(/\Ano: RDRAND is an x86-64 instruction and this CPU is aarch64/, lines["cpu.rdrand_backend"],
                 "the :rdrand backend would claim RDRAND while running RNDR")
  end

  def test_a_cpu_without_feat_rng_seeds_from_the_os_without_a_warning
    lines, err = arm64("cpu", cpu: "cortex-a72")
    assert_equal "RNDR no: the CPU has no RNDR", lines["cpu.random"]
    assert_equal "RNDRRS no: the CPU has no RNDRRS", lines["cpu.seed"]
    assert_equal "true", lines["cpu.absent_as_expected"], "most ARM CPUs lack FEAT_RNG: not worth a warning"
    assert_equal "NativePRNGNonBlocking", lines["generator.entropy"]
    assert_operator lines["generator.distinct_bytes"].to_i, :>, 32
    assert_empty err
    x86, = x86_64("cpu")
    assert_equal %w[true false], [lines["cpu.no_instruction_is_quiet"], x86["cpu.no_instruction_is_quiet"]],
                 "an x86-64 CPU without RDRAND is worth a warning, an Arm CPU without RNDR is not"
  end

  def test_without_libcrypto_the_library_says_why_and_the_jdk_answers
    lines, err = arm64("no-libcrypto", remove: [DebianRoot::ARM64.libcrypto])
    x86, = x86_64("engines")
    assert_equal "loaded", lines["native_library"]
    assert_match(/\Ano usable libcrypto: libcrypto\.so\.3 could not be loaded \(.*No such file or directory\); libcrypto\.so\.1\.1 could not be loaded \(.*No such file or directory\)\z/,
                 lines["libcrypto"], "each soname tried, and why it could not be used")
    assert_equal %w[java java], lines.values_at("rsa.engine", "ec.engine")
    assert_equal lines["libcrypto"], lines["rsa.openssl_problem"]
    assert_equal x86["same.rsa.signature"], lines["same.rsa.signature"], "the JDK's signature, by way of the provider"
    assert_equal "true", lines["same.ec.p256.jdk_verifies"]
    assert_equal %w[0 0], lines.values_at("stats.rsa_openssl", "stats.ec_openssl")
    warnings = err.lines.map(&:chomp)
    refute_empty warnings, "libcrypto's absence went unsaid"
    warnings.each { |line| assert_match(/\Afast_random: .*no usable libcrypto: libcrypto\.so\.3 could not be loaded/, line) }
    assert_equal warnings.uniq, warnings, "a warning repeated"
  end

  # The OpenSSL TLS engine's aarch64 library (netty-tcnative's BoringSSL,
  # shipped beside fast_random's): loaded as the gem loads it, a client and
  # a server engine shake hands in memory, TLS 1.3 and 1.2, as on x86-64.
  def test_the_tls_engine_runs_on_aarch64
    lines, err = arm64("tls")
    x86, = x86_64("tls")
    assert_match(/\ABoringSSL \(netty-tcnative \d/, lines["tls.engine"])
    assert_equal x86["tls.engine"], lines["tls.engine"]
    assert_equal ["TLSv1.3 TLS_AES_128_GCM_SHA256", "TLSv1.2 TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"],
                 lines.values_at("tls.TLSv1.3", "tls.TLSv1.2")
    assert_equal same(x86), same(lines)
    assert_equal %w[true true], same(lines).values, "a message through each"
    assert_empty err, "a warning or a Java exception on stderr"
  end

  # A packaged application (a Warbler jar or war): the aarch64 library is an
  # entry of the archive, copied out (checked against the SHA-256 the jar
  # records) into the default copy directory and loaded from there.
  def test_the_library_loads_from_inside_a_jar_on_aarch64
    Dir.mktmpdir("fr-arm64-app-") do |app|
      out, status = Open3.capture2e(File.join(ENV_JAVA.fetch("java.home"), "bin", "jar"), "--create", "--file", File.join(app, "app.jar"),
                                    "-C", File.dirname(LIB), "fast_random/linux-aarch64/libfast_random.so")
      assert status.success?, out
      lines, err = arm64("engines", archive: app)
      directory, = arm64("engines")
      assert_equal ["loaded", "true true"], lines.values_at("native_library", "native_library_copied")
      assert_equal ["loaded", "false false"], directory.values_at("native_library", "native_library_copied")
      assert_equal %w[openssl openssl 6 48], lines.values_at("rsa.engine", "ec.engine", "stats.rsa_openssl", "stats.ec_openssl")
      assert_equal same(directory), same(lines), "the same results as the library in a directory"
      assert_empty err
    end
  end

  # The x86-64-only AVX-512 IFMA code (modexp_ifma.c, rsa_crt.c,
  # rsa_blinding.c) is not built into the aarch64 library, where it could
  # never run: ifma_aarch64.c answers its headers there.
  def test_the_aarch64_library_holds_no_ifma_code
    symbols = ->(arch) { IO.popen(["nm", File.join(LIB, "linux-#{arch}/libfast_random.so")], &:read).split.uniq }
    ifma_code = %w[ifma_mul ifma_exp_consttime ifma_exp_public rsa_crt_private rsa_crt_inverse]
    assert_equal ifma_code, ifma_code & symbols.("x86_64"), "nm no longer finds the x86-64 library's IFMA code: update this test"
    assert_empty ifma_code & symbols.("aarch64")
    assert_includes symbols.("aarch64"), "ifma_available"
  end
end
