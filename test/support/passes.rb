# frozen_string_literal: true

# bin/test's passes, and which test files run in each.
#
# A pass is one JRuby with one set of FAST_RANDOM_* settings. Each test file
# says in one line near its top which passes it belongs to and why:
#
#   # Passes all: the generators seed differently with and without RDRAND.
#   # Passes 10.1, 9.4: end to end; its processes see no pass's settings.
#
# "all" is the four passes of 10.1 and 9.4, "main" their first two,
# "fallback" the other two; "10.0" (the oldest supported JRuby 10.0, with
# its older jruby-openssl) is named by the files that exercise the hooks.
# A file runs in the passes where its outcome can differ: the fallback
# passes for what depends on the CPU's features or the native library,
# both JRubies where the JRuby or its jruby-openssl makes a difference.
# Plain Ruby, loaded by bin/test's runner (on MRI) and by the suite's own
# check that every file belongs to a pass (test/passes_test.rb).
require_relative "../../script/jruby_versions"

module Passes
  ROOT = File.expand_path("../..", __dir__)

  Pass = Struct.new(:name, :jruby, :env, :proves, keyword_init: true) do
    # The full JRuby version ("10.0" is 10.0.0.0, as script/env.sh maps it).
    def jruby_version = JRubyVersions.full(jruby)
  end

  TEST_LIBRARY = File.join(ROOT, "tmp/native/test/libfast_random.so")
  STANDIN_LIBRARY = File.join(ROOT, "tmp/native/standin/libfast_random.so")

  # Every pass loads a test build of the JNI library (the Rakefile's
  # native_test): the one with fault injection, and on JRuby 10.1 the one
  # whose AVX-512 IFMA code runs on C stand-ins, so that pass exercises
  # fast_random's own RSA private operation on any x86_64 CPU. The fallback
  # passes run the concurrency soak at a tenth of its size: it is there for
  # the seeding, which the full soak of the main passes would only repeat.
  # What a pass leaves out, it unsets, so that none of the caller's own
  # settings turns a main pass into something else.
  UNSET = { "FAST_RANDOM_HIDE_CPU_RANDOM" => nil, "FAST_RANDOM_HIDE_IFMA" => nil, "FAST_RANDOM_HIDE_LIBCRYPTO" => nil,
            "FAST_RANDOM_SOAK" => nil, "FAST_RANDOM_JRUBY_OPENSSL" => nil }.freeze
  ALL = [
    Pass.new(name: "10.1", jruby: "10.1",
             env: UNSET.merge("FAST_RANDOM_NATIVE_LIBRARY" => STANDIN_LIBRARY),
             proves: "everything on JRuby 10.1, fast_random's own RSA CRT included (on the IFMA stand-ins)"),
    Pass.new(name: "9.4", jruby: "9.4",
             env: UNSET.merge("FAST_RANDOM_NATIVE_LIBRARY" => TEST_LIBRARY),
             proves: "everything on the older JRuby and its jruby-openssl"),
    Pass.new(name: "10.1-fallback", jruby: "10.1",
             env: UNSET.merge("FAST_RANDOM_NATIVE_LIBRARY" => TEST_LIBRARY, "FAST_RANDOM_HIDE_CPU_RANDOM" => "1",
                              "FAST_RANDOM_HIDE_IFMA" => "1", "FAST_RANDOM_SOAK" => "small"),
             proves: "seeding from the OS alone, RSA without fast_random's IFMA code"),
    Pass.new(name: "9.4-fallback", jruby: "9.4",
             env: UNSET.merge("FAST_RANDOM_NATIVE_LIBRARY" => "/nonexistent/libfast_random.so", "FAST_RANDOM_SOAK" => "small"),
             proves: "everything without the native library (:gmp or :java RSA, EC on Java code)"),
    Pass.new(name: "10.0", jruby: "10.0",
             env: UNSET.merge("FAST_RANDOM_NATIVE_LIBRARY" => TEST_LIBRARY),
             proves: "the hooks on the oldest supported JRuby 10.0 and its jruby-openssl 0.15.3 (no RSA#sign_pss, EC#sign_raw or #derive)"),
    # jruby-openssl is on no Maven repository, and its build may not be
    # scripted here: this pass runs where FAST_RANDOM_JRUBY_OPENSSL names
    # the lib/ of one built by hand (docs/testing.md), ahead of JRuby's own.
    Pass.new(name: "jruby-openssl", jruby: "10.1",
             env: UNSET.merge("FAST_RANDOM_NATIVE_LIBRARY" => TEST_LIBRARY, # bin/jruby's, so MRI's children get no jruby-openssl
                              "FAST_RANDOM_JRUBY_OPENSSL" => ENV["FAST_RANDOM_JRUBY_OPENSSL"]),
             proves: "the hooks on the jruby-openssl in FAST_RANDOM_JRUBY_OPENSSL (0.16.1: derive moved to OpenSSL::PKey::PKey)"),
    # On request only (bin/test --aarch64-jruby): its files start JRuby in
    # the arm64 root under qemu (script/debian_root.rb), where Debian
    # bookworm's Java 17 runs JRuby 9.4; the pass's own JRuby only drives them.
    Pass.new(name: "aarch64", jruby: "9.4",
             env: UNSET.merge("FAST_RANDOM_NATIVE_LIBRARY" => TEST_LIBRARY),
             proves: "JRuby 9.4 and the gem's linux-aarch64 library in an arm64 JVM under qemu (bin/test --aarch64-jruby)")
  ].freeze

  NAMES = ALL.map(&:name).freeze
  # The passes a plain bin/test runs: all but those run only on request.
  ON_REQUEST = %w[aarch64].freeze
  DEFAULT = (NAMES - ON_REQUEST).freeze
  # "all" is the four passes of every setting; "hooks" the passes on other
  # jruby-openssl releases, for the files that exercise the hooks.
  GROUPS = { "all" => %w[10.1 9.4 10.1-fallback 9.4-fallback], "main" => %w[10.1 9.4],
             "fallback" => %w[10.1-fallback 9.4-fallback], "hooks" => %w[10.0 jruby-openssl] }.freeze

  # Why a pass cannot run here, or nil.
  def self.unavailable(pass)
    return unless pass.name == "jruby-openssl"

    dir = ENV["FAST_RANDOM_JRUBY_OPENSSL"].to_s
    return "FAST_RANDOM_JRUBY_OPENSSL is not set (the lib/ of a jruby-openssl built from its tag)" if dir.empty?

    return if File.file?(File.join(dir, "jopenssl.jar")) && File.file?(File.join(dir, "openssl.rb"))

    "FAST_RANDOM_JRUBY_OPENSSL=#{dir} has no openssl.rb and jopenssl.jar"
  end

  # bin/test --all-jrubies: the whole suite on every other supported release
  # (script/env.sh's FR_JRUBY_OLDER), each as the main pass of its family
  # (10.1's files on 10.0 releases, 9.4's on older 9.4s), named by its version.
  def self.older_releases
    JRubyVersions.older.map do |version|
      family = version.start_with?("10.") ? "10.1" : "9.4"
      Pass.new(name: version, jruby: version, env: UNSET.merge("FAST_RANDOM_NATIVE_LIBRARY" => TEST_LIBRARY),
               proves: "the #{family} pass's files on JRuby #{version}, with its own jruby-openssl")
    end
  end

  # The main pass whose files an older release's pass runs.
  def self.family(pass)
    pass.jruby.start_with?("10.") ? "10.1" : "9.4"
  end

  # The line, at most this far into the file.
  HEADER = /\A# Passes (?<passes>[^:]+): (?<why>\S.*)\z/
  HEADER_WITHIN = 40

  Declaration = Struct.new(:file, :passes, :why, :problem)

  module_function

  def find(name)
    (ALL + Passes.older_releases).find { |pass| pass.name == name } or hooks_on(name) or
      raise ArgumentError, "no pass #{name} (passes: #{NAMES.join(", ")})"
  end

  # bin/test --hooks-on RELEASE: the hook files (the 10.0 pass's) on any
  # JRuby release, named by its version; nil for a name that is no release.
  def hooks_on(version)
    return unless version.match?(/\A\d+(\.\d+){3}\z/)

    Pass.new(name: version, jruby: version, env: UNSET.merge("FAST_RANDOM_NATIVE_LIBRARY" => TEST_LIBRARY),
             proves: "the hook files on JRuby #{version}, with its own jruby-openssl")
  end

  # Every test file, relative to the checkout, sorted.
  def test_files
    Dir.glob("test/**/*_test.rb", base: ROOT).sort
  end

  # What +file+ (relative to the checkout, or absolute) says about its
  # passes: a Declaration whose +problem+ says what is wrong, if anything.
  def declaration(file)
    lines = File.foreach(File.expand_path(file, ROOT)).first(HEADER_WITHIN).map(&:chomp)
    found = lines.grep(/\A# Passes\b/)
    return Declaration.new(file, [], nil, "no '# Passes NAMES: why' line in its first #{HEADER_WITHIN} lines") if found.empty?
    return Declaration.new(file, [], nil, "#{found.size} '# Passes' lines; one says it all") if found.size > 1

    match = HEADER.match(found.first)
    return Declaration.new(file, [], nil, "'#{found.first}' is not '# Passes NAMES: why'") unless match

    words = match[:passes].split(/,\s*/).map(&:strip)
    unknown = words - NAMES - GROUPS.keys
    return Declaration.new(file, [], match[:why], "unknown pass #{unknown.join(", ")} (#{(NAMES + GROUPS.keys).join(", ")})") unless unknown.empty?

    passes = words.flat_map { |word| GROUPS.fetch(word, [word]) }.uniq
    Declaration.new(file, NAMES & passes, match[:why], nil)
  end

  # {pass name => [files]} for the files given (all by default).
  def plan(files = test_files)
    declarations = files.map { |file| declaration(file) }
    NAMES.to_h { |name| [name, declarations.select { |d| d.passes.include?(name) }.map(&:file)] }
  end
end
