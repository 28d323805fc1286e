# frozen_string_literal: true

require "digest"
require "fileutils"
require "json"
require "open3"
require "shellwords"
require_relative "packaging"
require_relative "../../script/jruby_versions"

# The packaged application of test/integration/packaged_app_test.rb: an
# executable jar laid out as Warbler's `warble jar` lays one out (read in
# github:jruby/warbler: lib/warbler/traits/jar.rb, ext/JarMain.java), built
# here by hand as Warbler cannot be installed:
#
#   PackagedJarMain.class              the Main-Class (test/support/packaged/)
#   META-INF/MANIFEST.MF
#   META-INF/lib/jruby-complete-V.jar  JRuby, the one jar copied out at boot
#   META-INF/init.rb                   GEM_HOME at the archive's root, as Warbler's
#   META-INF/main.rb                   loads app/bin/app
#   app/bin/app                        the application (test/support/packaged/app.rb)
#   app/bin/tls_loopback.rb            its TLS connection (test/support/packaged/tls_loopback.rb)
#   gems/fast_random-V-java/...        the java gem, as `gem install` laid it out
#   specifications/fast_random-V-java.gemspec
#
# So fast_random's lib/ is uri:classloader:/gems/fast_random-V-java/lib and
# its JNI library, vendor jars and libgmp are entries of the archive.
module PackagedApp
  ROOT = File.expand_path("../..", __dir__)
  SOURCES = File.join(__dir__, "packaged")
  WORK = File.join(ROOT, "tmp", "packaged_app")
  GEM_DIR = "fast_random-#{FastRandom::VERSION}-java"
  # This machine's library in the archive (the gem ships linux-x86_64 and linux-aarch64).
  LIBRARY_ENTRY = "gems/#{GEM_DIR}/lib/fast_random/#{Java::FastrandomJni::NativeLibrary.platform_file}"

  INIT_RB = <<~RUBY
    # As Warbler's init.rb for a jar: gems only from inside the archive.
    ENV['GEM_HOME'] = File.expand_path(File.join('..', '..', '/'), __FILE__)
    ENV['GEM_PATH'] = nil
    require 'rubygems' unless defined?(Gem)
    $LOAD_PATH.unshift File.expand_path(File.join('..', '..', 'app/lib'), __FILE__)
  RUBY

  MAIN_RB = "load 'app/bin/app'\n"

  module_function

  # [jruby-complete jar, JAVA_HOME] of release +jruby+.
  def environment(jruby)
    script = ". #{File.join(ROOT, "script/env.sh").shellescape} && fr_jruby_jar #{jruby} && fr_java_home #{jruby}"
    out, err, status = Open3.capture3("bash", "-c", script)
    raise "script/env.sh failed: #{err}" unless status.success?

    out.split("\n")
  end

  # The java gem installed (once per test process) into a GEM_HOME of its
  # own, by JRuby's `gem install --local`, as an application's build would.
  def gem_home
    @gem_home ||= begin
      home = File.join(WORK, "gem_home-#{Process.pid}")
      FileUtils.rm_rf(home)
      Packaging.install(Packaging.jruby_command, Packaging.gems.first, home)
      remove_after_run(home)
      home
    end
  end

  # The executable jar for release +jruby+, as built (once per test process).
  def jar(jruby)
    @jars ||= {}
    @jars[jruby] ||= build(File.join(WORK, "app-#{Process.pid}-#{jruby}.jar"), jruby).tap { |jar| remove_after_run(jar) }
  end

  def remove_after_run(path)
    Minitest.after_run { FileUtils.rm_rf(path) }
  end

  # Builds the executable jar at +jar+ for release +jruby+; +alter+, a
  # proc, may change the staging directory before it is packed.
  def build(jar, jruby, alter: nil)
    jruby_jar, java_home = environment(jruby)
    FileUtils.mkdir_p(File.dirname(jar))
    stage = "#{jar}.d"
    FileUtils.rm_rf(stage)
    FileUtils.mkdir_p(File.join(stage, "META-INF", "lib"))
    FileUtils.mkdir_p(File.join(stage, "app", "bin"))
    %w[gems specifications].each { |dir| FileUtils.cp_r(File.join(gem_home, dir), stage) }
    FileUtils.ln(jruby_jar, File.join(stage, "META-INF", "lib", File.basename(jruby_jar)))
    File.write(File.join(stage, "META-INF", "init.rb"), INIT_RB)
    File.write(File.join(stage, "META-INF", "main.rb"), MAIN_RB)
    FileUtils.cp(File.join(SOURCES, "app.rb"), File.join(stage, "app", "bin", "app"))
    FileUtils.cp(File.join(SOURCES, "tls_loopback.rb"), File.join(stage, "app", "bin"))
    FileUtils.cp(Dir[File.join(main_class(java_home), "*.class")], stage)
    alter&.call(stage)
    manifest = File.join(WORK, "MANIFEST-#{Process.pid}.MF")
    File.write(manifest, "Main-Class: PackagedJarMain\nCreated-By: fast_random's test suite\n")
    FileUtils.rm_f(jar)
    # Stored, not deflated: jruby-complete alone would take seconds to deflate.
    out, status = Open3.capture2e(File.join(java_home, "bin/jar"), "--create", "--no-compress", "--file", jar,
                                  "--manifest", manifest, "-C", stage, ".")
    raise "jar failed:\n#{out}" unless status.success?

    FileUtils.rm_rf(stage)
    jar
  end

  # PackagedJarMain compiled (once) with javac of +java_home+, for Java 8.
  def main_class(java_home)
    classes = File.join(WORK, "classes")
    source = File.join(SOURCES, "PackagedJarMain.java")
    stamp = File.join(classes, "PackagedJarMain.class")
    return classes if File.file?(stamp) && File.mtime(stamp) >= File.mtime(source)

    FileUtils.mkdir_p(classes)
    out, status = Open3.capture2e(File.join(java_home, "bin/javac"), "--release", "8", "-nowarn", "-d", classes, source)
    raise "javac failed:\n#{out}" unless status.success?

    classes
  end

  # `java -jar JAR ARGS` with +jruby+'s JDK, a user's environment plus
  # +env+ and the JVM options +jvm+; +wrap+ is a command the java command
  # is appended to (e.g. a mount namespace). Returns [report or nil, stdout, stderr, status].
  def run(jar, jruby, *args, env: {}, jvm: [], wrap: [])
    _, java_home = environment(jruby)
    options = ["-XX:TieredStopAtLevel=1", *jvm]
    options += %w[--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow] if jruby.start_with?("10.")
    command = [*wrap, File.join(java_home, "bin/java"), *options, "-jar", jar, *args]
    out, err, status = Open3.capture3(Packaging::CLEARED.merge(Packaging::OFFLINE).merge(env), *command, chdir: WORK)
    last = out.lines.last.to_s
    [(JSON.parse(last) if status.success? && last.start_with?("{")), out, err, status]
  end

  # The SHA-256 the gem's jar records for +path+ (relative to lib/fast_random).
  def recorded_digest(path)
    jar = File.join(gem_home, "gems", GEM_DIR, "lib", "fast_random", "fast_random.jar")
    listing, status = Open3.capture2("unzip", "-p", jar, "fastrandom/jni/libraries.sha256")
    raise "no digests in #{jar}" unless status.success?

    listing[/^(\h{64})  #{Regexp.escape(path)}$/, 1]
  end
end
