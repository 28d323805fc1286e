# frozen_string_literal: true

# JRuby 10.1 bundles minitest 6.0.0, whose gemspec wants prism, which JRuby
# does not bundle; minitest itself runs without it, so load it by path.
begin
  gem "minitest"
rescue Gem::MissingSpecError
  bundled = Gem::Specification.find_all_by_name("minitest").max_by(&:version)
  $LOAD_PATH.unshift(File.join(bundled.full_gem_path, "lib")) if bundled
end
require "minitest/autorun"
require_relative "support/file_times"
require_relative "support/run_guard"

# A test file run alone (bin/jruby -Itest FILE) loads the test builds as
# every pass of bin/test does (test/support/passes.rb): the JNI library with
# fault injection, and the jar of the Java test hooks (test/java); rake
# builds them first when they are missing or older than their sources. Where
# they cannot be built (no C compiler, another platform), the shipped
# library runs and the tests that inject faults fail saying they need the
# test build. FAST_RANDOM_NATIVE_LIBRARY, when set, wins: bin/test sets it
# in every pass.
root = File.expand_path("..", __dir__)
test_jar = File.join(root, "tmp/java-test/fast_random_test.jar")
test_library = File.join(root, "tmp/native/test/libfast_random.so")
stale = lambda do |built, sources|
  !File.file?(built) || sources.any? { |source| File.mtime(source) > File.mtime(built) }
end
native_stale = !ENV.key?("FAST_RANDOM_NATIVE_LIBRARY") && stale.(test_library, Dir[File.join(root, "ext/fast_random_native/*.[ch]")])
jar_stale = stale.(test_jar, Dir[File.join(root, "test/java/**/*"), File.join(root, "lib/fast_random/fast_random.jar")].select { |f| File.file?(f) })
if native_stale || jar_stale
  require "open3"
  out, status = Open3.capture2e("rake", "test_builds", chdir: root)
  warn "test_helper: rake test_builds failed, so the shipped library runs (no fault injection):\n#{out}" unless status.success?
end
ENV["FAST_RANDOM_NATIVE_LIBRARY"] = test_library if !ENV.key?("FAST_RANDOM_NATIVE_LIBRARY") && File.file?(test_library)
# The Java test hooks, beside the shipped jar in JRuby's class loader (their
# classes share its packages), and first: fast_random looks for their fault
# injector (a service of that loader) once, when it reaches its first fault site.
require test_jar if RUBY_ENGINE == "jruby" && File.file?(test_jar)
require "fast_random"
require "set"

module TestHelper
  ROOT = File.expand_path("..", __dir__)
  # The jar of the Java test hooks (test/java; rake test_builds), for child JRubies to require.
  TEST_JAR = File.join(ROOT, "tmp/java-test/fast_random_test.jar")
  UUID_V4 = /\A\h{8}-\h{4}-4\h{3}-[89ab]\h{3}-\h{12}\z/

  # NIST and Wycheproof vectors, copied into test/vectors (see its README).
  # Called from inside tests, so a missing file fails only those tests.
  def self.vector(name)
    path = File.join(ROOT, "test", "vectors", name)
    raise "test vector file #{path} is missing" unless File.exist?(path)

    path
  end

  # Until the warm-up is done the OS serves calls, not the DRBGs (and they
  # do not count toward a thread's own generator); it starts at a process's
  # second call, which a test run first may be making. Calls until it is done.
  def self.wait_for_warm_up(seconds = 60)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
    until Java::FastrandomRandom::WarmUp.done
      SecureRandom.uuid
      raise "the warm-up did not finish in #{seconds} s" if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline

      sleep 0.01
    end
  end

  # Whether the loaded jruby-openssl is one of the older releases that
  # fast_random supports (0.15.0 to 0.15.5, in JRuby 9.4.8 to 9.4.14 and
  # 10.0.0 to 10.0.4): no PKey#derive, private_to_der, RSA#sign_pss or EC#sign_raw,
  # and OpenSSL::PKey.read takes no PKCS#8 DER. Tests reach the same key or
  # secret another way there, and check that fast_random added none of them.
  def self.older_jruby_openssl?
    require "openssl"
    Gem::Version.new(JOpenSSL::VERSION) < Gem::Version.new("0.15.6") # the release, not the methods fast_random may change
  end

  # Whether JRuby +version+ itself keeps every runtime it ever made for the
  # JVM's life through its Java integration's per-class data
  # (jruby.ji.class.values, STABLE by default), so that a test of
  # fast_random's teardown runs it with jruby.ji.class.values=HARD_MAP (one
  # map per runtime). 9.4 keeps that data in ClassValues whose values hold
  # the ClassValue itself; so does 10.0.1.0 to 10.0.4.0's StableClassValue,
  # fixed in 10.0.5.0 (jruby/jruby c9b72f3 and b7c2c53). 10.0.0.0 and 10.1
  # leave runtimes free.
  def self.class_values_pin_runtimes?(version = JRUBY_VERSION)
    v = Gem::Version.new(version)
    v < Gem::Version.new("10") || (v > Gem::Version.new("10.0.0.0") && v < Gem::Version.new("10.0.5"))
  end

  # The private key of +der+ (PKCS#8, as MRI writes it) by OpenSSL::PKey.read;
  # on an older jruby-openssl, whose PKey.read takes no DER at all, the same
  # key of class +klass+ from +pem+, through its traditional DER.
  def self.read_private_der(klass, der, pem)
    older_jruby_openssl? ? klass.new(klass.new(pem).to_der) : OpenSSL::PKey.read(der)
  end

  # A public key of class +klass+ from its DER (SubjectPublicKeyInfo):
  # OpenSSL::PKey.read, or on an older jruby-openssl, whose PKey.read takes no
  # DER, +klass+.new of its PEM. Not of the DER itself: 0.15.0's EC.new first
  # asks BouncyCastle whether the bytes name a curve, which raises a Java
  # StringIndexOutOfBoundsException when the DER ends in a space (0x20).
  def self.read_der(klass, der)
    older_jruby_openssl? ? klass.new(pem("PUBLIC KEY", der)) : OpenSSL::PKey.read(der)
  end

  # The public key's PEM (SubjectPublicKeyInfo): #public_to_pem, or where
  # the release has none (0.15.0) from the Java key jruby-openssl holds.
  def self.public_pem(key)
    return key.public_to_pem if key.respond_to?(:public_to_pem)

    pem("PUBLIC KEY", String.from_java_bytes(key.to_java.getEncoded)) # jruby-openssl's Java public key
  end

  # A private key's PEM that OpenSSL reads: #to_pem, or on an older
  # jruby-openssl (whose EC PEM OpenSSL 3 cannot read) PKCS#8 from its Java key.
  def self.private_pem(key)
    return key.to_pem unless older_jruby_openssl?

    require "jruby"
    pem("PRIVATE KEY", String.from_java_bytes(JRuby.reference(key).getPrivateKey.getEncoded))
  end

  # DER as a PEM block labelled +label+ (64 columns, as OpenSSL writes it).
  def self.pem(label, der)
    "-----BEGIN #{label}-----\n#{[der].pack("m0").scan(/.{1,64}/).join("\n")}\n-----END #{label}-----\n"
  end

  # The ECDH secret of two EC keys: #derive, or #dh_compute_key where the
  # release has no #derive.
  def self.ecdh(key, peer)
    older_jruby_openssl? ? key.dh_compute_key(peer.public_key) : key.derive(peer)
  end

  # Runs the block on a thread of its own and returns its value; the block
  # puts each fiber it creates into the array it is given, which keeps them
  # reachable until that thread has ended. JRuby 10.1's fiber finalizer
  # (ThreadFiber#finalize, RubyThread#dieFromFinalizer) can kill the thread
  # that created the fiber, at random, once that fiber is collected: a fiber
  # created on minitest's main thread once ended a job mid-run, status 0, no
  # summary (test/support/run_guard.rb now says so). A fiber collected after
  # its creator has ended kills nothing.
  def self.fiber_thread
    fibers = []
    Thread.new { yield fibers }.value
  end

  # bin/jruby for the JRuby version that runs the tests (or +version+), as
  # the tests' child processes start: with the class-data archive, and,
  # for the many that live a few seconds, C1 only (--quick-start: a third of
  # the start-up time; they prove behaviour, not speed). A +long+ child
  # (dozens of runtimes, hundreds of MB through a cipher) keeps C2, which
  # C1 alone would make twice as slow.
  def self.jruby_command(version = child_jruby, long: false)
    [File.join(ROOT, "bin/jruby"), "--jruby", version, long ? "--start-archive" : "--quick-start"]
  end

  # This JRuby's release (bin/jruby runs any, fetching it first), or its
  # family's pinned release for a build that is no release (a snapshot).
  def self.child_jruby
    JRUBY_VERSION.match?(/\A\d+(\.\d+){3}\z/) ? JRUBY_VERSION : JRUBY_VERSION[/\A\d+\.\d+/]
  end

  # Runs Ruby code in a fresh JRuby process (same version as this one) and
  # returns [stdout, stderr, status].
  def self.jruby(code, *ruby_args, env: {}, long: false)
    require "open3"
    Open3.capture3(env, *jruby_command(long: long), *ruby_args, "-e", code)
  end

  # The path of the program +name+ on PATH, or nil.
  def self.executable(name)
    ENV.fetch("PATH", "").split(File::PATH_SEPARATOR).map { |dir| File.join(dir, name) }
       .find { |path| File.file?(path) && File.executable?(path) }
  end

  # Pearson's chi-square statistic of observed counts against equal expectation.
  def self.chi_square(counts, expected_each)
    counts.sum { |c| (c - expected_each)**2 / expected_each.to_f }
  end

  # An upper bound of the chi-square distribution with k degrees of freedom
  # that a fair generator exceeds with probability about 1e-6 (Wilson-Hilferty
  # approximation, z = 4.753), so a correct generator fails once in a million runs.
  def self.chi_square_limit(k)
    z = 4.753
    k * (1 - 2.0 / (9 * k) + z * Math.sqrt(2.0 / (9 * k)))**3
  end
end

module TestHelper
  # Whether the JNI library loads: bin/test points FAST_RANDOM_NATIVE_LIBRARY
  # at a test build (or, in one fallback pass, at a file that is missing).
  def self.native_library_expected?
    path = ENV["FAST_RANDOM_NATIVE_LIBRARY"]
    path.nil? || File.file?(path)
  end

  # bin/test also runs the suite with RDRAND hidden or the native library
  # missing; tests about the CPU generator expect what that run must show.
  def self.cpu_random_expected?
    ENV["FAST_RANDOM_HIDE_CPU_RANDOM"] != "1" && native_library_expected?
  end

  # bin/test's fallback pass on JRuby 9.4 runs without the JNI library, and
  # tests may hide libcrypto (FAST_RANDOM_HIDE_LIBCRYPTO=1): then the
  # native RSA and EC engines cannot run.
  def self.libcrypto_expected?
    ENV["FAST_RANDOM_HIDE_LIBCRYPTO"] != "1" && native_library_expected?
  end

  # Whether the :openssl RSA engine's private operation is fast_random's own
  # CRT (ext/fast_random_native/rsa_crt.c) for a key with primes of these
  # lengths: only on AVX-512 IFMA (real, or the C stand-ins of the test
  # build bin/test loads in its JRuby 10.1 main pass), for primes of one
  # length above 1024 bits; every other key is on OpenSSL's.
  def self.own_rsa_crt?(p_bits, q_bits = p_bits)
    libcrypto_expected? && Java::FastrandomJni::LibCrypto.public_exponentiation == "ifma" &&
      p_bits == q_bits && p_bits > 1024
  end

  OWN_CRT_ONLY = "fast_random's own RSA CRT runs only on AVX-512 IFMA, hidden or absent in this pass " \
                 "(bin/test's JRuby 10.1 main pass runs it on the test build's stand-ins)"

  # One of bin/test's two main passes (one per JRuby), not a fallback pass.
  # Heavy end-to-end tests run only there: the fallback passes change
  # FAST_RANDOM_* settings that those tests' child processes do not see.
  def self.main_pass?
    cpu_random_expected?
  end

  # Gives the calling thread its own generator now. A thread otherwise draws
  # from a shared generator until its ThreadGenerators::OWN_AFTER_CALLS-th
  # call; tests that look at "the thread's generator" start with this.
  def self.own_generator
    Java::FastrandomRandom::ThreadGenerators.own
  end

  def self.with_backend(name)
    previous = FastRandom.backend
    FastRandom.backend = name
    yield
  ensure
    FastRandom.backend = previous
  end
end

module TestHelper
  # The concurrency soak's size per worker (16 workers of each kind). bin/test
  # runs the full 1M in its two main passes; in the two fallback passes, which
  # exist for the seeding fallback and would only repeat the soak, it sets
  # FAST_RANDOM_SOAK=small: a tenth, to keep CI time in bounds.
  SOAK_FULL = 1_000_000
  SOAK_SMALL = 100_000

  def self.soak_per_worker
    ENV["FAST_RANDOM_SOAK"] == "small" ? SOAK_SMALL : SOAK_FULL
  end

  def self.soak_size_note
    return "16 workers x #{SOAK_FULL}" if soak_per_worker == SOAK_FULL

    "16 workers x #{SOAK_SMALL}, a tenth of the full soak, which bin/test's two main passes run " \
      "(FAST_RANDOM_SOAK=small: this fallback pass would only repeat it, and CI time is limited)"
  end

  # The SeedLog entries (Hashes: event, generator, thread, seed and state
  # digests) of every DRBG seeding while the block runs, and the block's value.
  def self.recording_seeds
    FastRandom::Generator.seed_log_start
    value = yield
    log = FastRandom::Generator.seed_log_stop
    [log, value]
  ensure
    FastRandom::Generator.seed_log_stop unless log
  end
end
