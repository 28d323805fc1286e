# frozen_string_literal: true

# Passes main: end to end, in processes with a user's environment; each JRuby installs with its own RubyGems.

require_relative "../test_helper"
require "digest"
require_relative "../support/packaging"

# The java gem as users get it: `rake gem` builds
# pkg/fast_random-VERSION-java.gem, this JRuby's own `gem install --local`
# puts it into an empty GEM_HOME with no network, and `require "fast_random"`
# from a directory outside the checkout (bin/jruby --bare: nothing of the
# checkout on the load path) loads everything from the installed gem: the
# jar, the JNI library (RDRAND and the :openssl RSA engine), and the vendored
# JNA, jnagmp and libgmp (the :gmp engine).
class GemPackageTest < Minitest::Test
  include Packaging::EndToEnd

  INSTALLED = <<~'RUBY'
    require "fast_random"
    require "openssl"
    require "json"
    spec = Gem.loaded_specs.fetch("fast_random")
    loaded = ->(path) { File.read("/proc/self/maps").include?(File.join(spec.full_gem_path, path)) }
    uuid = SecureRandom.uuid
    rdrand = FastRandom.rdrand_available?
    engines = %i[openssl gmp].to_h { |name| [name, FastRandom::RSA.engine_problem(name)] }
    key = OpenSSL::PKey::RSA.new(2048)
    signatures = %i[openssl gmp].to_h do |name|
      FastRandom::RSA.engine = name
      before = FastRandom::RSA.stats.fetch(name).fetch(:private)
      signature = key.sign("SHA256", "fast_random")
      [name, key.public_key.verify("SHA256", signature, "fast_random") && FastRandom::RSA.stats.fetch(name).fetch(:private) - before]
    end
    puts JSON.generate(
      "gem_path" => spec.full_gem_path, "platform" => spec.platform.to_s, "version" => FastRandom::VERSION,
      "features" => $LOADED_FEATURES.grep(/fast_random/), "active" => FastRandom.active?,
      "uuid" => uuid, "uuid_calls" => FastRandom.stats.dig(:calls, :drbg, :uuid),
      "rdrand" => rdrand, "rdrand_problem" => FastRandom.rdrand_problem,
      "native_library" => loaded.("lib/fast_random/" + FastRandom::Generator::NATIVE_LIBRARY),
      "bundled_gmp" => loaded.("lib/fast_random/vendor/gmp/linux-x86-64/libgmp.so"),
      "engines" => engines, "signatures" => signatures, "cwd" => Dir.pwd
    )
  RUBY

  # Installs the java gem once per test process into a new GEM_HOME.
  def self.installed
    @installed ||= begin
      java_gem, = Packaging.gems
      home = Dir.mktmpdir("fast_random-gem-home-")
      Minitest.after_run { FileUtils.rm_rf(home) }
      Packaging.install(Packaging.jruby_command, java_gem, File.join(home, "gems"))
      File.join(home, "gems")
    end
  end

  def gem_dir
    File.join(self.class.installed, "gems", "fast_random-#{FastRandom::VERSION}-java")
  end

  def test_the_gem_holds_the_jar_the_native_library_and_the_vendored_libraries_with_their_licences
    expected = %W[
      lib/fast_random/fast_random.jar lib/fast_random/#{FastRandom::Generator::NATIVE_LIBRARY}
      lib/fast_random/linux-x86_64/libfast_random.so lib/fast_random/linux-aarch64/libfast_random.so
      lib/fast_random/vendor/gmp/linux-x86-64/libgmp.so
      lib/fast_random/vendor/LICENSES/jna/AL2.0 lib/fast_random/vendor/LICENSES/jna/LGPL2.1
      lib/fast_random/vendor/LICENSES/jnagmp/Apache-2.0 lib/fast_random/vendor/LICENSES/bouncycastle-rsa/Apache-2.0
      lib/fast_random/vendor/LICENSES/gmp/COPYING.LIBGMP lib/fast_random/vendor/LICENSES/gmp/GPL-2
      THIRD_PARTY_NOTICES.md LICENSE README.md CHANGELOG.md
    ]
    expected.each { |path| assert File.file?(File.join(gem_dir, path)), "the installed gem has no #{path}" }
    { "x86_64" => "Advanced Micro Devices X86-64", "aarch64" => "AArch64" }.each do |arch, machine|
      header = IO.popen(["readelf", "-h", File.join(gem_dir, "lib/fast_random/linux-#{arch}/libfast_random.so")], &:read)
      assert_match(/^\s*Machine:\s+#{machine}$/, header, "lib/fast_random/linux-#{arch}/ holds another architecture's library")
    end
    jars = Dir[File.join(gem_dir, "lib/fast_random/vendor/*.jar")].map { |jar| File.basename(jar)[/\A(.+)-\d/, 1] }.sort
    assert_equal %w[bouncycastle-rsa jna jnagmp], jars
    # The TLS engine's netty, never required (a class loader of fast_random's own reads them), and its JNI libraries.
    netty = Dir[File.join(gem_dir, "lib/fast_random/vendor/netty/*.jar")].map { |jar| File.basename(jar)[/\A(.+)-\d/, 1] }.sort
    assert_equal %w[netty-buffer netty-codec-base netty-common netty-handler netty-tcnative-classes], netty
    %w[x86_64/libnetty_tcnative_linux_x86_64.so aarch64/libnetty_tcnative_linux_aarch_64.so].each do |library|
      assert File.file?(File.join(gem_dir, "lib/fast_random/linux-#{library}")), "the installed gem has no #{library}"
    end
    assert_includes File.read(File.join(gem_dir, "lib/fast_random/vendor/LICENSES/netty-tcnative/LICENSE.boringssl.txt")), "BoringSSL"
    licensed = Dir[File.join(gem_dir, "lib/fast_random/vendor/LICENSES/*")].map { |dir| File.basename(dir) }
    assert_empty jars - licensed, "vendored jars without a licence directory"
    assert_includes File.read(File.join(gem_dir, "lib/fast_random/vendor/LICENSES/gmp/COPYING.LIBGMP")), "GNU LESSER GENERAL PUBLIC LICENSE"
  end

  # A packaged application loads the libraries only when they match what the
  # jar records (fastrandom/jni/libraries.sha256): it records every one the
  # gem ships, as shipped.
  def test_the_jar_records_the_sha256_of_every_library_the_gem_ships
    listing = IO.popen(["unzip", "-p", File.join(gem_dir, "lib/fast_random/fast_random.jar"), "fastrandom/jni/libraries.sha256"], &:read)
    recorded = listing.lines.to_h { |line| line.split.reverse }
    lib = File.join(gem_dir, "lib/fast_random")
    shipped = Dir.glob(["*/libfast_random.*", "*/libnetty_tcnative_*", "vendor/gmp/*/libgmp.*", "vendor/*.jar"], base: lib).sort
    assert_equal shipped, recorded.keys.sort
    shipped.each { |path| assert_equal Digest::SHA256.file(File.join(lib, path)).hexdigest, recorded[path], path }
  end

  def test_the_gemspec_is_complete
    spec = Gem::Specification.load(File.join(self.class.installed, "specifications", "fast_random-#{FastRandom::VERSION}-java.gemspec"))
    assert_equal "java", spec.platform.to_s
    assert_equal ["MIT"], spec.licenses
    assert_match(/RSA/, spec.description)
    refute_empty spec.summary
    assert_equal Gem::Requirement.new(">= 3.1"), spec.required_ruby_version
    %w[homepage_uri source_code_uri changelog_uri bug_tracker_uri].each { |key| assert_match(%r{\Ahttps://}, spec.metadata[key]) }
    assert_empty spec.runtime_dependencies
  end

  def test_require_from_outside_the_checkout_loads_everything_from_the_installed_gem
    home = self.class.installed
    result, err = Packaging.report(Packaging.jruby_command, INSTALLED, dir: @dir,
                                   env: { "GEM_HOME" => home, "GEM_PATH" => home, "FAST_RANDOM_GMP_LIBRARY" => "bundled" })
    assert_equal File.realpath(gem_dir), File.realpath(result["gem_path"])
    assert_equal ["java", FastRandom::VERSION, true], result.values_at("platform", "version", "active")
    refute_empty result["features"]
    result["features"].each { |feature| assert feature.start_with?(result["gem_path"]), "#{feature} is not from the installed gem" }
    assert_match TestHelper::UUID_V4, result["uuid"]
    assert_equal 1, result["uuid_calls"]
    assert result["rdrand"], "RDRAND from the installed gem: #{result['rdrand_problem']}"
    assert result["native_library"], "libfast_random.so was not loaded from the installed gem"
    assert result["bundled_gmp"], "the :gmp engine did not load the gem's libgmp (FAST_RANDOM_GMP_LIBRARY=bundled)"
    assert_equal({ "openssl" => nil, "gmp" => nil }, result["engines"])
    assert_equal({ "openssl" => 1, "gmp" => 1 }, result["signatures"])
    assert_equal File.realpath(@dir), File.realpath(result["cwd"])
    refute_match(/fast_random:/, err, "one-time warnings from a healthy installed gem")
  end
end
