# frozen_string_literal: true

# Passes 10.1: the copy's failures are fast_random's Java and the JDK's, the same under every JRuby (packaged_app_test.rb runs the jar on each).

require_relative "../test_helper"
require_relative "../support/packaged_app"
require_relative "../support/mri_keys"
require "tmpdir"

# What a packaged application (test/support/packaged_app.rb) gets where
# the native libraries cannot be copied out of its archive, or the archive's
# copy is not the one fast_random's jar was built with: one warning that
# says why and what to set, Java engines, and the same answers.
class PackagedAppFaultsTest < Minitest::Test
  include Packaging::EndToEnd

  MESSAGE = "fast_random in a locked-down container"

  # Where the default copy directory (under -Duser.home) is read-only or
  # noexec: a tmpfs mounted so in a mount namespace of the process's own
  # (as root, as a container's locked-down filesystem is), else, for the
  # read-only case, a directory this user may not write to.
  def locked_home(options)
    home = File.join(@dir, "home")
    FileUtils.mkdir_p(home)
    if Process.uid.zero?
      ["unshare", "--mount", "--propagation", "private", "sh", "-c", "mount -t tmpfs -o #{options},mode=0700 tmpfs \"$0\" && exec \"$@\"", home]
    else
      skip "noexec needs a mount, which needs root" if options.include?("noexec")
      File.chmod(0o500, home)
      []
    end.then { |wrap| [home, wrap] }
  end

  def run_app(jar, home: File.join(@dir, "home"), wrap: [], env: {}, jvm: [])
    report, out, err, status = PackagedApp.run(jar, TestHelper.child_jruby, @dir, MESSAGE, "basic",
                                               env: { "FAST_RANDOM_GMP_LIBRARY" => "bundled" }.merge(env),
                                               jvm: ["-Duser.home=#{home}", *jvm], wrap: wrap)
    assert status.success?, "java -jar app.jar failed (#{status}):\n#{out}#{err}"
    [report, err.lines.grep(/\Afast_random: /)]
  end

  def assert_right_answers(report, mri_signature)
    assert_equal mri_signature, report["rsa_signature"], "the same signature, from whatever engine serves it"
    assert report["ec_verifies"]
    assert_match(/\A\h{8}-\h{4}-4\h{3}-[89ab]\h{3}-\h{12}\z/, report["uuid"])
    assert_equal 0, report["rsa_stats"]["fallbacks"]
  end

  def setup
    super
    @mri_signature = MriKeys.write(@dir, MESSAGE)
  end

  def test_a_read_only_home_gives_one_warning_and_java_engines
    jar = PackagedApp.jar(TestHelper.child_jruby)
    home, wrap = locked_home("ro")
    report, warnings = run_app(jar, home: home, wrap: wrap)
    directory = File.join(home, ".cache", "fast_random", "native")
    assert_equal 1, warnings.size, "one warning:\n#{warnings.join}"
    warning = warnings.first
    assert_includes warning, "could be loaded from #{directory} ("
    assert_match(/Read-only file system|Permission denied/, warning, "why")
    assert_includes warning, "-Dfast_random.native.dir=DIR or FAST_RANDOM_NATIVE_DIR=DIR", "the setting that fixes it"
    assert_equal %w[java java], report.values_at("rsa_engine", "ec_engine")
    assert_equal [false, true], report.values_at("native_loaded", "archived")
    assert_includes report["rsa_problem"], "is inside an archive, and a private copy of it could not be loaded from #{directory} ("
    assert_includes report["native_failure"], "FAST_RANDOM_NATIVE_DIR=DIR"
    refute_includes report["native_failure"], "missing"
    assert_equal({ "private" => 1, "public" => 0 }, report["rsa_stats"]["java"])
    assert_equal "NativePRNGNonBlocking", report["entropy"]
    assert_right_answers(report, @mri_signature)
  end

  # JNA's own part unpacked where it may run (-Djna.tmpdir), so that its
  # dlopen of the libgmp copy fails in the noexec directory and JNA goes on
  # to the system's libgmp: fast_random sees that it is not the copy it
  # checked, and does not use it.
  def test_a_noexec_home_gives_one_warning_naming_it
    jar = PackagedApp.jar(TestHelper.child_jruby)
    home, wrap = locked_home("noexec")
    jna = File.join(@dir, "jna")
    report, warnings = run_app(jar, home: home, wrap: wrap, jvm: ["-Djna.tmpdir=#{jna}"])
    assert_equal 1, warnings.size, "one warning:\n#{warnings.join}"
    assert_includes warnings.first, "does not let a library run from it, as with noexec"
    assert_equal %w[java java], report.values_at("rsa_engine", "ec_engine")
    assert_match(/could not be loaded from .*the copy did not load, JNA loaded .*libgmp.* in its place/, report["gmp_problem"]) if File.exist?("/usr/lib/x86_64-linux-gnu/libgmp.so.10")
    assert_right_answers(report, @mri_signature)
  end

  def test_a_copy_directory_setting_fixes_it
    jar = PackagedApp.jar(TestHelper.child_jruby)
    home, wrap = locked_home("ro")
    copies = File.join(@dir, "copies")
    report, warnings = run_app(jar, home: home, wrap: wrap, env: { "FAST_RANDOM_NATIVE_DIR" => copies })
    assert_empty warnings
    assert_equal %w[openssl openssl], report.values_at("rsa_engine", "ec_engine")
    assert_right_answers(report, @mri_signature)
    assert_empty Dir.children(copies)
  end

  # A copy directory named through a symbolic link that others could
  # re-point (here, in a directory anyone may write to): refused for both
  # libraries, the JNI library and the bundled libgmp, naming the link;
  # nothing is made through it (test/integration/library_copy_test.rb has
  # another user attack such a link).
  def test_a_copy_directory_through_a_link_others_may_replace_is_refused
    jar = PackagedApp.jar(TestHelper.child_jruby)
    open = File.join(@dir, "open")
    Dir.mkdir(open)
    File.chmod(0o777, open)
    mine = File.join(@dir, "mine")
    Dir.mkdir(mine, 0o700)
    link = File.join(open, "link")
    File.symlink(mine, link)
    report, warnings = run_app(jar, env: { "FAST_RANDOM_NATIVE_DIR" => File.join(link, "native") })
    why = "the symbolic link #{link} on the way to it is in #{open}, which is writable by others"
    assert_equal 1, warnings.size, "one warning:\n#{warnings.join}"
    assert_includes warnings.first, why
    assert_includes report["gmp_problem"], why, "the bundled libgmp's copy too"
    assert_equal %w[java java], report.values_at("rsa_engine", "ec_engine")
    assert_right_answers(report, @mri_signature)
    assert_equal [], Dir.children(mine), "nothing made through the link"
  end

  # A library in the archive that is not the one fast_random's jar was
  # built with (cut short, or altered) is never loaded.
  def test_an_altered_library_is_not_loaded
    jar = PackagedApp.build(File.join(@dir, "app.jar"), TestHelper.child_jruby, alter: lambda { |stage|
      library = File.join(stage, PackagedApp::LIBRARY_ENTRY)
      File.write(library, File.binread(library)[0...-4096])
    })
    report, warnings = run_app(jar)
    assert_equal 1, warnings.size, "one warning:\n#{warnings.join}"
    assert_includes warnings.first, "does not match the SHA-256 fast_random.jar records for it"
    assert_equal false, report["native_loaded"]
    assert_equal "java", report["ec_engine"]
    assert_equal "gmp", report["rsa_engine"], "the bundled libgmp, which matches, still serves RSA"
    assert_right_answers(report, @mri_signature)
  end

  # "Missing" only where the gem really has no library for the platform:
  # then, as in a gem directory without one, nothing is said.
  def test_a_missing_library_is_said_to_be_missing_and_not_warned
    jar = PackagedApp.build(File.join(@dir, "app.jar"), TestHelper.child_jruby, alter: lambda { |stage|
      File.delete(File.join(stage, PackagedApp::LIBRARY_ENTRY))
    })
    report, warnings = run_app(jar)
    assert_empty warnings.grep(/native/), "nothing said of a library the gem does not ship"
    assert_equal "native library uri:classloader:/#{PackagedApp::LIBRARY_ENTRY} is missing", report["native_failure"]
    assert_right_answers(report, @mri_signature)
  end
end
