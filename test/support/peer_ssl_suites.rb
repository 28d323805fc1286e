# frozen_string_literal: true

# The peer suites of the TLS data path (SSLSocket#sysread, #sysread_nonblock,
# #syswrite, #syswrite_nonblock): jruby-openssl's own SSL tests and
# ruby/openssl's test_ssl.rb and test_pair.rb, each run twice on JRuby
# 10.1.1.0 (or --jruby's release, with its jruby-openssl), stock and with
# fast_random required before the tests load openssl. A test that passes on
# stock and does not with fast_random (fails, errors, skips, hangs or never
# runs, and again when run apart from the rest) is a pass→fail.
#
#   ruby test/support/peer_ssl_suites.rb [--quick] [--suite NAME]... [--jruby RELEASE] [--out DIR]
#
# Writes DIR/SUITE-stock.jsonl and DIR/SUITE-fast_random.jsonl (each test's
# outcome, from test/support/peer_ssl_driver.rb) and DIR/SUITE.tsv (test,
# stock, fast_random); prints each suite's counts and the pass→fail list;
# exits 1 if there is any, or if no test of a suite passed on stock. DIR is
# tmp/peer-ssl/RELEASE. --quick leaves out the tests of SLOW (what bin/test runs;
# bin/test --slow runs all); --suite runs one suite (ruby-openssl or
# jruby-openssl).
#
# Where the suites come from: copied once into ~/.cache/fast_random/peer-ssl/
# (a second run fetches nothing), never into the checkout.
# - ruby/openssl v3.3.0 (the openssl gem of MRI 3.4): its test/openssl is
#   carried unchanged as test/mri/openssl by JRuby 10.0.6.0's source release
#   on Maven Central (org.jruby:jruby-dist:10.0.6.0:zip:src, fetched with
#   mvn), with MRI's core_assertions.rb and envutil.rb in test/tool/lib.
# - jruby-openssl v0.16.1's src/test/ruby (0.16.2, which JRuby 10.1.1.0
#   bundles, has no tag; v0.16.1's tests are its master's): no Maven
#   repository or Debian package has them, so they are taken from a git
#   repository of jruby-openssl (a clone, or a bare one) that
#   FAST_RANDOM_JRUBY_OPENSSL_SOURCE names; without it, and without a copy in
#   the cache, the suite is left out, saying why. Its test_helper.rb loads
#   the jruby-openssl of its checkout's lib/ (jopenssl.jar and BouncyCastle's
#   jars): the copy's lib/ holds those of the JRuby they run on, taken out of
#   its jruby-complete, so the tests run the jruby-openssl that JRuby bundles.
require "fileutils"
require "json"
require "open3"
require "tmpdir"

module PeerSslSuites
  ROOT = File.expand_path("../..", __dir__)
  JRUBY = "10.1.1.0" # the JRuby they run on, unless told another (--jruby)
  DRIVER = File.join(__dir__, "peer_ssl_driver.rb")
  CACHE = File.join(ENV.fetch("XDG_CACHE_HOME", File.join(Dir.home, ".cache")), "fast_random", "peer-ssl")
  M2 = ENV.fetch("FR_M2_REPO", File.join(Dir.home, ".m2", "repository"))
  OUT = File.join(ROOT, "tmp", "peer-ssl")
  SOURCE_VARIABLE = "FAST_RANDOM_JRUBY_OPENSSL_SOURCE"

  RUBY_OPENSSL_CARRIER = "org.jruby:jruby-dist:10.0.6.0:zip:src"
  RUBY_OPENSSL_TAG = "v3.3.0"
  JRUBY_OPENSSL_TAG = "v0.16.1"

  # A run (its resumes included) is killed at its deadline (seconds); a
  # test still running is then counted as hung, and the tests after it as
  # not run. A run goes on after at most RESUMES tests that hang.
  DEADLINE = { quick: 600, full: 1500 }.freeze
  RESUMES = 3
  # Pass→fails are run once more, apart from the rest of their suite, to
  # tell intermittent ones, when there are at most this many.
  CONFIRM = 10

  # Left out of --quick, the part bin/test runs: two ruby/openssl tests
  # that fail on stock only after a 30 s wait each (jruby-openssl has no
  # SSLSocket#timeout= nor #finished_message, and the tests wait out their
  # server threads). A test that fails on stock cannot turn pass→fail, so
  # --quick loses none; bin/test --slow runs them, to see that they still fail.
  SLOW = {
    "ruby-openssl" => %w[OpenSSL::TestSSL#test_read_with_timeout OpenSSL::TestSSL#test_finished_messages],
    "jruby-openssl" => []
  }.freeze

  Suite = Struct.new(:name, :jruby, :dir, :files, :load_path, :missing, keyword_init: true)

  module_function

  NAMES = %w[ruby-openssl jruby-openssl].freeze

  # The suite +name+ on JRuby +jruby+, fetched and copied into the cache
  # first if it is not there yet; a suite that cannot be had says why in its
  # +missing+.
  def suite(name, jruby: JRUBY)
    case name
    when "ruby-openssl" then ruby_openssl(jruby)
    when "jruby-openssl" then jruby_openssl(jruby)
    else raise ArgumentError, "no suite #{name} (#{NAMES.join(', ')})"
    end
  end

  def ruby_openssl(jruby)
    copy = File.join(CACHE, "ruby-openssl-#{RUBY_OPENSSL_TAG}")
    cache(copy) do |work|
      zip = maven(RUBY_OPENSSL_CARRIER)
      top = "jruby-#{RUBY_OPENSSL_CARRIER.split(':')[2]}/test"
      tool_lib = %w[core_assertions.rb envutil.rb find_executable.rb memory_status.rb]
      run!("unzip", "-q", zip, "#{top}/mri/openssl/*", *tool_lib.map { |f| "#{top}/tool/lib/#{f}" }, "-d", work)
      FileUtils.mv(File.join(work, top, "mri", "openssl"), File.join(work, "openssl"))
      # Only these files of MRI's tool/lib: its test/unit.rb is MRI's own
      # runner, which would shadow the test-unit gem.
      FileUtils.mv(File.join(work, top, "tool", "lib"), File.join(work, "lib"))
      FileUtils.rm_rf(File.join(work, top.split("/").first))
    end
    Suite.new(name: "ruby-openssl", jruby: jruby, dir: File.join(copy, "openssl"),
              files: %w[test_ssl.rb test_pair.rb], load_path: [File.join(copy, "openssl"), File.join(copy, "lib")])
  end

  def jruby_openssl(jruby)
    tests = File.join(CACHE, "jruby-openssl-#{JRUBY_OPENSSL_TAG}")
    source = ENV[SOURCE_VARIABLE].to_s
    if source.empty? && !File.file?(File.join(tests, ".complete"))
      return Suite.new(name: "jruby-openssl", jruby: jruby,
                       missing: "jruby-openssl's tests are on no Maven repository or Debian package: " \
                                "set #{SOURCE_VARIABLE} to a git repository of jruby-openssl (a clone) once")
    end

    cache(tests) do |work|
      tar = File.join(work, "tests.tar")
      run!("git", "-C", source, "archive", "--output", tar, JRUBY_OPENSSL_TAG, "src/test/ruby")
      run!("tar", "-x", "-f", tar, "-C", work)
      File.delete(tar)
    end
    # The tests beside a lib/ of this JRuby's jruby-openssl, one copy per JRuby.
    copy = File.join(CACHE, "jruby-openssl-#{JRUBY_OPENSSL_TAG}-jruby-#{jruby}")
    cache(copy) do |work|
      FileUtils.cp_r(File.join(tests, "src"), work)
      stdlib = "META-INF/jruby.home/lib/ruby/stdlib"
      run!("unzip", "-q", maven("org.jruby:jruby-complete:#{jruby}"), "#{stdlib}/jopenssl.jar",
           "#{stdlib}/org/bouncycastle/*", "-d", work)
      FileUtils.mv(File.join(work, stdlib), File.join(work, "lib"))
      FileUtils.rm_rf(File.join(work, "META-INF"))
    end
    dir = File.join(copy, "src", "test", "ruby", "ssl")
    files = Dir.children(dir).grep(/\Atest_.*\.rb\z/) - ["test_helper.rb"]
    Suite.new(name: "jruby-openssl", jruby: jruby, dir: dir, files: files.sort, load_path: [])
  end

  # Makes +copy+ once: the block fills a fresh directory, which becomes
  # +copy+ whole, so an interrupted copy is made again next time.
  def cache(copy)
    return if File.file?(File.join(copy, ".complete"))

    FileUtils.mkdir_p(CACHE)
    work = Dir.mktmpdir("partial-", CACHE)
    yield work
    File.write(File.join(work, ".complete"), "")
    FileUtils.rm_rf(copy) # one left unfinished by hand; this code makes none
    begin
      File.rename(work, copy)
    rescue Errno::ENOTEMPTY, Errno::EEXIST
      nil # another run made it meanwhile
    end
  ensure
    FileUtils.rm_rf(work) if work && File.directory?(work)
  end

  # The path of group:artifact:version[:type[:classifier]] in the local Maven
  # repository, downloaded from Maven Central first if it is not there.
  def maven(coordinate)
    group, artifact, version, type, classifier = coordinate.split(":")
    name = [artifact, version, classifier].compact.join("-") + ".#{type || 'jar'}"
    path = File.join(M2, group.tr(".", "/"), artifact, version, name)
    artifact_spec = [group, artifact, version, type || "jar", classifier].compact.join(":")
    unless File.file?(path)
      run!("mvn", "-q", "-B", "dependency:get", "-Dartifact=#{artifact_spec}", "-Dtransitive=false",
           "-Dmaven.repo.local=#{M2}")
    end
    path
  end

  def run!(*command)
    output, status = Open3.capture2e(*command)
    raise "failed: #{command.join(' ')}\n#{output}" unless status.success?
  end

  # Runs +suite+ in a JRuby; returns {test => outcome}. When a test hangs
  # (the driver writes it down and exits, or the run's deadline kills it),
  # the tests not yet run go on in a new JRuby, up to RESUMES times; those
  # left then count as not run.
  def run_suite(suite, fast_random:, quick:, out:, env: {}, only: nil, label: fast_random ? "fast_random" : "stock")
    results = File.join(out, "#{suite.name}-#{label}.jsonl")
    log = File.join(out, "#{suite.name}-#{label}.log")
    FileUtils.rm_f([results, log])
    finish = now + DEADLINE.fetch(quick ? :quick : :full)
    wanted = only
    (RESUMES + 1).times do
      pid = Process.spawn(env.merge("BC_VERSION" => nil, "OPENSSL_TEST_SUITE" => nil), # read by jruby-openssl's test_helper
                          *command(suite, fast_random, quick, results, wanted),
                          chdir: suite.dir, in: File::NULL, out: [log, "a"], err: %i[child out], pgroup: true)
      wait(pid, finish)
      break unless run_info(results).empty? # it ended

      planned = records(results).find { |record| record["planned"] }&.fetch("planned") or break
      wanted = planned - outcomes(results).keys
      break if wanted.empty? || now > finish
    end
    outcomes(results)
  end

  def command(suite, fast_random, quick, results, only)
    left_out = quick ? SLOW.fetch(suite.name).map { |test| "--ignore-name=#{test}" } : []
    [File.join(ROOT, "bin/jruby"), "--jruby", suite.jruby, "--start-archive", *(fast_random ? ["-rfast_random"] : []),
     *suite.load_path.flat_map { |dir| ["-I", dir] },
     DRIVER, results, *(only ? ["--only=#{only.join(',')}"] : []), *suite.files, "--", *left_out]
  end

  # Waits for +pid+; kills its process group at +finish+.
  def wait(pid, finish)
    until Process.wait(pid, Process::WNOHANG)
      if now > finish
        Process.kill("KILL", -pid)
        Process.wait(pid)
        break
      end
      sleep 0.5
    end
  end

  def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

  def outcomes(results)
    records(results).each_with_object({}) do |record, outcomes|
      if record["started"]
        outcomes[record["started"]] = "hung"
      elsif record["test"]
        outcomes[record["test"]] = record["outcome"]
      end
    end
  end

  # What ran a suite (the driver's last line), or {} if it did not end.
  def run_info(results)
    records(results).map { |record| record["run"] }.compact.last || {}
  end

  def records(results)
    File.file?(results) ? File.readlines(results).map { |line| JSON.parse(line) } : []
  end

  # Stock and fast_random side by side (two JRubies at once); a test that
  # passed on stock and not with fast_random is run again with fast_random,
  # apart from the rest (CONFIRM of them at most), and is a pass→fail if it
  # does not pass then either (one that does is reported as intermittent).
  # Returns {stock:, fast_random:, pass_to_fail:, intermittent:, run:}, run
  # being what the fast_random side reported it ran (run_info). +env+ is
  # added to the JRubies' environment.
  def compare(suite, quick:, out:, env: {})
    FileUtils.rm_f(Dir[File.join(out, "#{suite.name}-fast_random-again.*")]) # an earlier run's
    stock, fast_random = [false, true].map do |fast|
      Thread.new { run_suite(suite, fast_random: fast, quick: quick, out: out, env: env) }
    end.map(&:value)
    suspects = stock.select { |test, outcome| outcome == "pass" && fast_random[test] != "pass" }.keys
    again = if suspects.empty? || suspects.size > CONFIRM then {}
            else run_suite(suite, fast_random: true, quick: quick, out: out, env: env, only: suspects, label: "fast_random-again")
            end
    table = (stock.keys | fast_random.keys).sort.map { |t| [t, stock[t] || "not run", fast_random[t] || "not run"] }
    File.write(File.join(out, "#{suite.name}.tsv"), table.map { |row| row.join("\t") + "\n" }.join)
    { stock: stock, fast_random: fast_random,
      pass_to_fail: suspects.reject { |t| again[t] == "pass" }.to_h { |t| [t, fast_random[t] || "not run"] },
      intermittent: suspects.select { |t| again[t] == "pass" },
      run: run_info(File.join(out, "#{suite.name}-fast_random.jsonl")) }
  end

  def counts(outcomes)
    outcomes.values.tally.sort.map { |outcome, n| "#{n} #{outcome}" }.join(", ")
  end

  def main(argv)
    quick = argv.delete("--quick")
    jruby = (i = argv.index("--jruby")) ? argv.slice!(i, 2).last : JRUBY
    out = (i = argv.index("--out")) ? argv.slice!(i, 2).last : File.join(OUT, jruby)
    names = []
    while (i = argv.index("--suite"))
      names << argv.slice!(i, 2).last
    end
    abort "usage: #{$PROGRAM_NAME} [--quick] [--suite NAME]... [--jruby RELEASE] [--out DIR]" unless argv.empty?
    FileUtils.mkdir_p(out)

    regressions = 0
    broken = false
    (names.empty? ? NAMES : names).map { |name| suite(name, jruby: jruby) }.each do |suite|
      if suite.missing
        puts "#{suite.name}: left out: #{suite.missing}"
        next
      end
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      result = compare(suite, quick: quick, out: out)
      seconds = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
      run = result[:run]
      puts format("%s on JRuby %s (%s, %.0f s): stock %s; fast_random %s (%s, TLS hook: %s)", suite.name, suite.jruby,
                  quick ? "quick" : "full", seconds, counts(result[:stock]), counts(result[:fast_random]),
                  run["fast_random"] || "did not end", run.fetch("tls_installed", "unknown"))
      unless result[:stock].value?("pass")
        puts "  no test passed on stock: the suite did not run (#{File.join(out, "#{suite.name}-stock.log")})"
        broken = true
      end
      result[:intermittent].each { |t| puts "  intermittent (passed when run again): #{t}" }
      result[:pass_to_fail].each { |t, outcome| puts "  pass→fail: #{t} (#{outcome})" }
      regressions += result[:pass_to_fail].size
    end
    puts "#{regressions} pass→fail"
    regressions.zero? && !broken
  end
end

exit(PeerSslSuites.main(ARGV.dup)) if $PROGRAM_NAME == __FILE__
