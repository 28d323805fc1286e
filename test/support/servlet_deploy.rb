# frozen_string_literal: true

require "fileutils"
require "json"
require "open3"
require "shellwords"

# Builds and runs the servlet deployment of test/servlet_deploy_test.rb:
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
  def run(jruby, fast_random: true, deploys: 20, requests: 12, concurrency: 4, gc_seconds: 60, heap_dump: nil)
    jruby_jar, java_home, (rack_jar, *tomcat_jars) = environment(jruby)
    dir = File.join(WORK, jruby)
    classes = compile(java_home, tomcat_jars, File.join(dir, "classes"))
    webapp = build_webapp(File.join(dir, fast_random ? "webapp" : "webapp-stock"), jruby_jar, rack_jar, fast_random)
    base = File.join(dir, "tomcat")
    FileUtils.rm_rf(base)
    FileUtils.mkdir_p(base)

    jvm = %w[-Xmx1g -XX:+UseG1GC]
    # Soft references are cleared at every collection, so that the leak
    # check sees only what is strongly held (JRuby caches some things softly).
    jvm << "-XX:SoftRefLRUPolicyMSPerMB=0"
    # As bin/jruby runs JRuby 10 on JDK 24+: native access and Unsafe allowed.
    jvm += %w[--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow] if jruby.start_with?("10.")
    jvm << "-Dservletdeploy.heapdump=#{heap_dump}" if heap_dump
    command = [File.join(java_home, "bin/java"), *jvm, *ENV.fetch("FAST_RANDOM_JAVA_OPTS", "").split,
               "-cp", [classes, *tomcat_jars].join(File::PATH_SEPARATOR), "servletdeploy.Harness",
               webapp, base, deploys.to_s, requests.to_s, concurrency.to_s, gc_seconds.to_s]
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    # The container inherits this process's environment, FAST_RANDOM_* (the
    # test build of the JNI library, hidden CPU features) included; JRuby's
    # ENV in each runtime is that environment (jruby.runtime.env is unset).
    out, err, status = Open3.capture3(*command)
    seconds = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
    lines = out.lines.filter_map { |line| JSON.parse(line) if line.start_with?("{") }
    Result.new(lines, lines.find { |line| line["event"] == "summary" }, err, status, seconds, command)
  end

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

  # The exploded web app as Warbler packs one: JRuby (jruby-complete) and
  # jruby-rack in WEB-INF/lib, not on the container's class path. So each
  # deploy's web-app class loader loads JRuby afresh and its runtimes are
  # as new as in a fresh JVM (only what the JDK itself keeps is shared),
  # and once undeployed, everything of it can be collected, the test of
  # which needs it so: a JRuby on the container's class path would outlive
  # every deploy. fast_random's own classes load where `require` puts its
  # jar: into each runtime's JRuby class loader.
  def build_webapp(webapp, jruby_jar, rack_jar, fast_random)
    web_inf = File.join(webapp, "WEB-INF")
    lib = File.join(web_inf, "lib")
    FileUtils.mkdir_p(lib)
    { jruby_jar => "jruby-complete.jar", rack_jar => "jruby-rack.jar" }.each do |jar, name|
      target = File.join(lib, name)
      next if File.file?(target) && File.size(target) == File.size(jar) && File.mtime(target) >= File.mtime(jar)

      FileUtils.rm_f(target)
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
      File.write(key, OpenSSL::PKey::RSA.new(2048).to_pem)
    end
    FileUtils.cp(key, web_inf)
    File.write(File.join(web_inf, "web.xml"), web_xml(fast_random ? File.join(ROOT, "lib") : ""))
    webapp
  end

  def web_xml(fast_random_lib)
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
        <context-param><param-name>jruby.rack.logging</param-name><param-value>stderr</param-value></context-param>
        <!-- The application's setting: where fast_random is (empty: not used). -->
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
