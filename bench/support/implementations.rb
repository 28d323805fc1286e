# frozen_string_literal: true

require "open3"
require "rbconfig"
require_relative "../../script/debian_root"
require_relative "../../script/jruby_versions"

module Bench
  # The Rubies every workload is compared on: MRI (the one running
  # bench/run.rb), stock JRuby and JRuby + fast_random in its configurations,
  # on each supported JRuby. A workload runs in a fresh process per
  # implementation; the environment picks fast_random's backend or RSA engine
  # through the gem's own variables.
  class Implementation
    ROOT = File.expand_path("../..", __dir__)
    JRUBY = File.join(ROOT, "bin/jruby")
    NATIVE_LIBRARY = File.join(ROOT, "lib/fast_random/linux-x86_64/libfast_random.so")
    SECURE_RANDOM = %w[secure_random threads cold request_id].freeze
    PUBLIC_KEY = %w[rsa rsa_threads ec ec_threads keys].freeze
    # jruby-openssl's ciphers, randomness, PBKDF2 and HMAC, and Rails' MessageEncryptor.
    CRYPTO = %w[crypto crypto_threads].freeze
    # What fast_random's JVM-wide provider changes (uuid_jvm: JRuby only).
    JVM = %w[uuid_jvm tls x509].freeze
    # jruby-openssl's SSLSocket data path: HTTPS and TLS 1.3 bulk transfers.
    TLS_DATA = %w[https].freeze

    attr_reader :key, :label, :jruby, :variant, :env, :workloads, :cases

    # jruby: "10.1" or "9.4", nil for MRI; variant: see support/harness.rb;
    # workloads: the bench/ scripts it runs; cases: for secure_random, the
    # calls to time when not all.
    def initialize(key:, label:, variant:, workloads:, jruby: nil, env: {}, cases: nil, needs_rdrand: false)
      @key = key
      @label = label
      @jruby = jruby
      @variant = variant
      @env = env
      @workloads = workloads
      @cases = cases
      @needs_rdrand = needs_rdrand
    end

    # The workloads bin/bench --root runs: their scripts parse on the
    # root's older MRI (Debian 11's 2.7) and need nothing but openssl.
    ROOT_WORKLOADS = %w[rsa rsa_threads ec ec_threads].freeze
    # Where a root's Debian ruby-benchmark-ips is (fr_root_packages installs it), for every row there.
    ROOT_IPS_DIR = "/usr/lib/ruby/vendor_ruby"

    class << self
      # The Debian root every implementation runs in (bin/bench --root,
      # script/debian_root.rb), its own MRI as the MRI row; nil: this machine.
      attr_accessor :root

      # The root's MRI: [RUBY_VERSION, RUBY_DESCRIPTION, OpenSSL's version, benchmark-ips's].
      def root_mri
        @root_mri ||= begin
          out, err, status = root.run("/usr/bin/ruby", "-ropenssl", "-rbenchmark/ips", "-e",
                                      "puts RUBY_VERSION, RUBY_DESCRIPTION, OpenSSL::OPENSSL_LIBRARY_VERSION, Benchmark::IPS::VERSION")
          raise "the #{root.name}'s MRI failed (#{status}): #{err}" unless status.success?

          out.lines(chomp: true)
        end
      end
    end

    def self.all(jrubies)
      [mri] + jrubies.flat_map { |version| jruby(version) }
    end

    def self.mri
      version = root ? root_mri.first : RUBY_VERSION
      new(key: "mri", label: "MRI #{version}", variant: "mri", workloads: SECURE_RANDOM + PUBLIC_KEY + CRYPTO + TLS_DATA + %w[tls x509 startup])
    end

    # JRuby 10.1 (the one most targets are set on) runs every configuration;
    # older JRubies stock and with fast_random's defaults.
    def self.jruby(version)
      base = { jruby: version }
      list = [
        new(key: "#{version}-stock", label: "JRuby #{version} stock", variant: "stock",
            workloads: SECURE_RANDOM + PUBLIC_KEY + CRYPTO + TLS_DATA + (version == "10.1" ? JVM : []) + %w[startup], **base),
        new(key: "#{version}-fast_random", label: "JRuby #{version} + fast_random", variant: "fast_random",
            workloads: SECURE_RANDOM + PUBLIC_KEY + CRYPTO + TLS_DATA + (version == "10.1" ? JVM : []) + %w[startup], **base),
      ]
      return list unless version == "10.1"

      list + [
        new(key: "#{version}-rdrand", label: "JRuby #{version} + fast_random :rdrand", variant: "fast_random",
            env: { "FAST_RANDOM_BACKEND" => "rdrand" }, workloads: SECURE_RANDOM, needs_rdrand: true, **base),
        # The default backend with the CPU's entropy hidden, so seeds come from
        # the OS alone: what the seed mixing costs (a target of bench/targets.yml).
        new(key: "#{version}-os_seeds", label: "JRuby #{version} + fast_random, OS-only seeds",
            variant: "fast_random", env: { "FAST_RANDOM_HIDE_CPU_RANDOM" => "1" }, workloads: %w[secure_random],
            cases: ["uuid", "random_bytes(4096)"], needs_rdrand: true, **base),
        new(key: "#{version}-rsa_gmp", label: "JRuby #{version} + fast_random, RSA :gmp", variant: "fast_random",
            env: { "FAST_RANDOM_RSA_ENGINE" => "gmp" }, workloads: %w[rsa], **base),
        new(key: "#{version}-rsa_java", label: "JRuby #{version} + fast_random, RSA :java", variant: "fast_random",
            env: { "FAST_RANDOM_RSA_ENGINE" => "java" }, workloads: %w[rsa], **base),
        new(key: "#{version}-jca", label: "JRuby #{version} + fast_random, JCA provider", variant: "fast_random",
            env: { "FAST_RANDOM_JCA" => "1" }, workloads: JVM, **base),
        # Handshakes on BoringSSL (opt-in, docs/tls.md), and what its records cost in bulk.
        new(key: "#{version}-tls_openssl", label: "JRuby #{version} + fast_random, OpenSSL TLS engine", variant: "fast_random",
            env: { "FAST_RANDOM_TLS" => "openssl" }, workloads: %w[tls https], **base),
      ]
    end

    def mri?
      jruby.nil?
    end

    def stock?
      variant == "stock"
    end

    def fast_random?
      variant == "fast_random"
    end

    # The stock implementation this one is compared with (itself for stock
    # JRuby; JRuby 10.1 stock for MRI).
    def stock_key
      mri? ? "10.1-stock" : "#{jruby}-stock"
    end

    # Why this implementation cannot run here, or nil.
    def unavailable
      return unless @needs_rdrand
      return "not built: no libfast_random.so for this platform" unless File.exist?(NATIVE_LIBRARY)

      "not available: the CPU has no RDRAND" unless self.class.cpu_has_rdrand?
    end

    def self.cpu_has_rdrand?
      File.read("/proc/cpuinfo").match?(/^flags\s*:.*\brdrand\b/)
    rescue SystemCallError
      false
    end

    # The command that runs a Ruby script or -e code here. Stock JRuby runs
    # with nothing added to its load path (bin/jruby --bare). In a root: its
    # MRI, or its Java 17 running the same jruby-complete jar.
    def command(*args)
      root = self.class.root
      return [root ? "/usr/bin/ruby" : RbConfig.ruby, *args] if mri?
      return [JRUBY, "--jruby", jruby, *("--bare" if stock?), *args] unless root

      [root.java, "-jar", jruby_jar, *(["-I", File.join(ROOT, "lib")] unless stock?), *args]
    end

    # Runs command(*args) with +env+ (nil values unset): [stdout and stderr, status].
    # In a root, the checkout is at its own path there (writable: the
    # workloads write their results into it) and so is the JRuby jar.
    def capture(env, *args)
      root = self.class.root
      return Open3.capture2e(env, *command(*args)) unless root

      mounts = mri? ? {} : { File.dirname(jruby_jar) => File.dirname(jruby_jar) }
      out, err, status = root.run(*command(*args), env: env, mounts: mounts, writable: { ROOT => ROOT })
      [out + err, status]
    end

    def jruby_jar
      @jruby_jar ||= JRubyVersions.jar(JRubyVersions.full(jruby)) or raise "no jruby-complete for JRuby #{jruby}"
    end

    # The same without bin/jruby's shell script around the JVM (for timing
    # process start).
    def direct_command(*args)
      return command(*args) if mri?

      out, err, status = Open3.capture3(*command("--print-command"))
      raise "bin/jruby --print-command failed: #{err}" unless status.success?

      out.lines(chomp: true) + args
    end

    # fast_random's own switches, cleared unless this implementation sets them.
    GEM_VARIABLES = %w[FAST_RANDOM_BACKEND FAST_RANDOM_RSA_ENGINE FAST_RANDOM_EC_ENGINE FAST_RANDOM_HIDE_CPU_RANDOM
                       FAST_RANDOM_NATIVE_LIBRARY FAST_RANDOM_JCA].freeze

    def environment
      GEM_VARIABLES.to_h { |name| [name, nil] }.merge("BENCH_VARIANT" => variant).merge(env)
    end
  end
end
