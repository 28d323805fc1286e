# frozen_string_literal: true

require "fileutils"
require "json"
require "open3"
require "shellwords"

# Builds and runs the servlet deployment of test/integration/servlet_deploy_test.rb:
# test/support/servlet/servletdeploy/Harness.java, compiled here with the
# JDK of the JRuby under test, runs an embedded Tomcat 9 in a JVM of its own
# and deploys an exploded web app built here (test/support/servlet/config.ru
# behind jruby-rack's RackFilter) into it again and again.
module ServletDeploy
  ROOT = File.expand_path("../..", __dir__)
  SOURCES = File.join(__dir__, "servlet")
  WORK = File.join(ROOT, "tmp", "servlet_deploy")

  # The pool jruby-rack keeps per deploy: two runtimes, both booted when
  # the web app starts, each by a thread of its own.
  RUNTIMES = 2

  Result = Struct.new(:lines, :summary, :stderr, :status, :seconds, :command) do
    def events(kind) = lines.select { |line| line["event"] == kind }
    def requests = events("request")
    def deploys = events("deploy")
    def loaders_left = events("loader")

    # The harness's stderr (Tomcat's and jruby-rack's log), its end.
    def log_tail(lines = 60) = stderr.lines.last(lines).join
  end

  module_function

  # script/env.sh's answers, from bash: [jruby-complete jar, JAVA_HOME,
  # the servlet test's jars (jruby-rack first)].
  def environment(jruby)
    script = <<~BASH
      . #{File.join(ROOT, "script/env.sh").shellescape}
      fr_jruby_jar #{jruby}
      fr_java_home #{jruby}
      for c in $FR_SERVLET_TEST_JARS; do fr_maven_jar "$c"; done
    BASH
    out, err, status = Open3.capture3("bash", "-c", script)
    raise "script/env.sh failed: #{err}" unless status.success?

    jruby_jar, java_home, *jars = out.split("\n")
    [jruby_jar, java_home, jars]
  end

  # Why the deployment cannot run here, or nil.
  def problem(jruby)
    jruby_jar, java_home, jars = environment(jruby)
    missing = [jruby_jar, *jars].reject { |jar| File.file?(jar) }
    return "missing #{missing.join(", ")} (bin/setup fetches them from Maven Central)" unless missing.empty?
    return "no javac in #{java_home}" unless File.executable?(File.join(java_home, "bin/javac"))

    nil
  rescue RuntimeError => e
    e.message
  end

  # Runs the harness for the JRuby version given ("10.1.0.0" or "9.4.15.0"),
  # fast_random required in the app or not; returns a Result.
  # +war+: the web app as a .war file Tomcat does not unpack, fast_random
  # in it as a packaged gem (build_war).
  def run(jruby, fast_random: true, deploys: 20, requests: 12, concurrency: 4, gc_seconds: 60, heap_dump: nil,
          stock_workarounds: true, jruby_in: :container, war: false)
    jruby_jar, java_home, (rack_jar, *tomcat_jars) = environment(jruby)
    dir = File.join(WORK, jruby)
    classes = compile(java_home, tomcat_jars, File.join(dir, "classes"))
    webapp = if war
               build_war(File.join(dir, "war"), java_home, jruby_jar, rack_jar, jruby_in)
             else
               build_webapp(File.join(dir, fast_random ? "webapp" : "webapp-stock"), jruby_jar, rack_jar, fast_random, jruby_in)
             end
    base = File.join(dir, "tomcat")
    java_tmp = File.join(dir, "java-tmp")
    FileUtils.rm_rf([base, java_tmp])
    FileUtils.mkdir_p([base, java_tmp])

    # C1 only: every deploy loads JRuby anew, and C2's work on code that an
    # undeploy throws away costs more than it gains (a third of the time).
    jvm = %w[-Xmx1g -XX:+UseG1GC -XX:TieredStopAtLevel=1]
    # Soft references are cleared at every collection, so that the leak
    # check sees only what is strongly held (JRuby caches some things softly).
    jvm << "-XX:SoftRefLRUPolicyMSPerMB=0"
    # As bin/jruby runs JRuby 10 on JDK 24+: native access and Unsafe allowed.
    jvm += %w[--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow] if jruby.start_with?("10.")
    # A java.io.tmpdir of its own (JRuby extracts jars into it; see
    # Harness.java on its jruby-PID directory).
    jvm << "-Djava.io.tmpdir=#{java_tmp}"
    jvm << "-Dservletdeploy.heapdump=#{heap_dump}" if heap_dump
    jvm << "-Dservletdeploy.stock_workarounds=false" unless stock_workarounds
    # Stock JRuby's own way of keeping every runtime on some releases (see
    # TestHelper.class_values_pin_runtimes?): one class-value map per runtime.
    jvm << "-Djruby.ji.class.values=HARD_MAP" if stock_workarounds && TestHelper.class_values_pin_runtimes?(jruby)
    command = [File.join(java_home, "bin/java"), *jvm, *ENV.fetch("FAST_RANDOM_JAVA_OPTS", "").split,
               "-cp", [classes, *tomcat_jars, *(jruby_jar if jruby_in == :container)].join(File::PATH_SEPARATOR),
               "servletdeploy.Harness",
               webapp, base, deploys.to_s, requests.to_s, concurrency.to_s, gc_seconds.to_s]
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    # The container inherits this process's environment, FAST_RANDOM_* (the
    # test build of the JNI library, hidden CPU features) included; JRuby's
    # ENV in each runtime is that environment (jruby.runtime.env is unset).
    # A war's fast_random is its own gem, with the library in it (not the
    # test build), copied out into a directory of this run's (copies_dir).
    environment = war ? { "FAST_RANDOM_NATIVE_LIBRARY" => nil, "FAST_RANDOM_NATIVE_DIR" => copies_dir(jruby) } : {}
    FileUtils.rm_rf(copies_dir(jruby)) if war
    out, err, status = Open3.capture3(environment, *command)
    seconds = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
    lines = out.lines.filter_map { |line| JSON.parse(line) if line.start_with?("{") }
    Result.new(lines, lines.find { |line| line["event"] == "summary" }, err, status, seconds, command)
  end

  # Where a packed war's runtimes copy the native library out to (FAST_RANDOM_NATIVE_DIR).
  def copies_dir(jruby) = File.join(WORK, jruby, "native-copies")

  def compile(java_home, tomcat_jars, classes)
    sources = Dir[File.join(SOURCES, "servletdeploy", "*.java")]
    stamp = File.join(classes, ".compiled")
    return classes if File.file?(stamp) && sources.all? { |source| File.mtime(source) <= File.mtime(stamp) }

    FileUtils.rm_rf(classes)
    FileUtils.mkdir_p(classes)
    out, status = Open3.capture2e(File.join(java_home, "bin/javac"), "-nowarn", "-cp", tomcat_jars.join(File::PATH_SEPARATOR),
                                  "-d", classes, *sources)
    raise "javac failed:\n#{out}" unless status.success?

    FileUtils.touch(stamp)
    classes
  end

  # The exploded web app. jruby-rack is in its WEB-INF/lib; JRuby
  # (jruby-complete) is on the container's class path (jruby_in: :container,
  # as with jruby.jar in a Tomcat's lib/), or in WEB-INF/lib too, as Warbler
  # packs it (jruby_in: :webapp). Either way jruby-rack makes a new pool of
  # runtimes at every deploy, each of which loads fast_random's jar into a
  # class loader of its own (its JRubyClassLoader), which is what the test
  # is about; the container's class path is the default because stock JRuby
  # in WEB-INF/lib can never be collected: jffi 1.3.15 (JRuby 9.4.15 and
  # 10.1 alike), when JRuby's socket library opens libc, registers the
  # library with a java.lang.ref.Cleaner whose action, an inner class,
  # holds the library itself, so the library never becomes phantom
  # reachable and jffi's Cleaner thread keeps the action, its class and so
  # the web app's class loader, and all of JRuby in it, for the JVM's life.
  # With JRuby on the container's class path that one libc library is
  # JVM-wide and pins no deploy.
  def build_webapp(webapp, jruby_jar, rack_jar, fast_random, jruby_in)
    web_inf = File.join(webapp, "WEB-INF")
    lib = File.join(web_inf, "lib")
    FileUtils.rm_rf(lib)
    FileUtils.mkdir_p(lib)
    jars = { rack_jar => "jruby-rack.jar" }
    jars[jruby_jar] = "jruby-complete.jar" if jruby_in == :webapp
    jars.each do |jar, name|
      target = File.join(lib, name)
      begin
        FileUtils.ln(jar, target) # Tomcat does not follow symbolic links by default
      rescue SystemCallError
        FileUtils.cp(jar, target)
      end
    end
    FileUtils.cp(File.join(SOURCES, "config.ru"), web_inf)
    key = File.join(WORK, "rsa_key.pem")
    unless File.file?(key)
      require "openssl"
      FileUtils.mkdir_p(WORK)
      # Written whole, then renamed: the other JRuby's test process may be here too.
      File.write("#{key}.#{Process.pid}", OpenSSL::PKey::RSA.new(2048).to_pem)
      File.rename("#{key}.#{Process.pid}", key)
    end
    FileUtils.cp(key, web_inf)
    File.write(File.join(web_inf, "web.xml"), web_xml(fast_random ? File.join(ROOT, "lib") : ""))
    webapp
  end

  # The web app packed as Warbler packs one with its gemjar feature, as a
  # .war file: the gems (fast_random's java gem, installed by `gem install`)
  # in WEB-INF/lib/gems.jar, so on the web app's class path, and
  # jruby-rack's ClassPathLayout, whose gem path is uri:classloader://. So
  # fast_random's lib/ is an archive entry of an archive entry, and
  # `require "fast_random"` finds it through RubyGems as any gem there.
  # JRuby cannot list a directory of a jar that is itself inside a war
  # that is not unpacked (Tomcat's jar:war:file:...*/ URLs), so RubyGems
  # would find no specification there; each directory of gems.jar carries
  # the .jrubydir file listing it that JRuby reads in its place, as JRuby's
  # own packaging (jruby-complete, jruby-maven-plugins) writes them.
  def build_war(dir, java_home, jruby_jar, rack_jar, jruby_in)
    require_relative "packaged_app"
    webapp = build_webapp(File.join(dir, "exploded"), jruby_jar, rack_jar, true, jruby_in)
    File.write(File.join(webapp, "WEB-INF", "web.xml"), web_xml("gem", layout: "JRuby::Rack::ClassPathLayout"))
    gems = File.join(dir, "gems")
    FileUtils.rm_rf(gems)
    FileUtils.mkdir_p(gems)
    %w[gems specifications].each { |part| FileUtils.cp_r(File.join(PackagedApp.gem_home, part), gems) }
    [gems, *Dir.glob("**/", base: gems).map { |dir| File.join(gems, dir) }].each do |dir|
      File.write(File.join(dir, ".jrubydir"), [".", "..", *Dir.children(dir).sort].join("\n") + "\n")
    end
    jar = File.join(java_home, "bin/jar")
    war = File.join(dir, "app.war")
    FileUtils.rm_f([war, File.join(webapp, "WEB-INF", "lib", "gems.jar")])
    [[File.join(webapp, "WEB-INF", "lib", "gems.jar"), gems], [war, webapp]].each do |archive, contents|
      out, status = Open3.capture2e(jar, "--create", "--file", archive, "-C", contents, ".")
      raise "jar failed:\n#{out}" unless status.success?
    end
    war
  end

  def web_xml(fast_random_lib, layout: nil)
    <<~XML
      <?xml version="1.0" encoding="UTF-8"?>
      <web-app xmlns="http://java.sun.com/xml/ns/javaee"
               xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
               xsi:schemaLocation="http://java.sun.com/xml/ns/javaee http://java.sun.com/xml/ns/javaee/web-app_3_0.xsd"
               version="3.0" metadata-complete="true">
        <display-name>fast_random servlet deployment test</display-name>
        <!-- A pool of #{RUNTIMES} runtimes, both booted at deploy, in parallel. -->
        <context-param><param-name>jruby.min.runtimes</param-name><param-value>#{RUNTIMES}</param-value></context-param>
        <context-param><param-name>jruby.max.runtimes</param-name><param-value>#{RUNTIMES}</param-value></context-param>
        <context-param><param-name>jruby.runtime.init.threads</param-name><param-value>#{RUNTIMES}</param-value></context-param>
        <context-param><param-name>jruby.runtime.acquire.timeout</param-name><param-value>60</param-value></context-param>
        <context-param><param-name>jruby.rack.logging</param-name><param-value>stderr</param-value></context-param>#{layout && "\n  <context-param><param-name>jruby.rack.layout_class</param-name><param-value>#{layout}</param-value></context-param>"}
        <!-- The application's setting: where fast_random is ("gem": a gem of the war; empty: not used). -->
        <context-param><param-name>fast_random.lib</param-name><param-value>#{fast_random_lib}</param-value></context-param>
        <filter>
          <filter-name>RackFilter</filter-name>
          <filter-class>org.jruby.rack.RackFilter</filter-class>
        </filter>
        <filter-mapping>
          <filter-name>RackFilter</filter-name>
          <url-pattern>/*</url-pattern>
        </filter-mapping>
        <listener>
          <listener-class>org.jruby.rack.RackServletContextListener</listener-class>
        </listener>
      </web-app>
    XML
  end
end
