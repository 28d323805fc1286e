# frozen_string_literal: true

# Passes main: each JRuby loads and leaks its own way (the control shows it); the deploys need the library to prove its teardown.

require_relative "../test_helper"
require_relative "../support/servlet_deploy"

# Many JRuby runtimes in one JVM, as a servlet container has them.
#
# How the container starts: test/support/servlet_deploy.rb compiles
# test/support/servlet/servletdeploy/*.java with javac of the JDK this
# JRuby runs on (script/env.sh's fr_java_home) into tmp/servlet_deploy/, and
# runs it in a JVM of its own: that JDK, with Tomcat 9's tomcat-embed-core
# and this JRuby's jruby-complete on its class path (bin/setup fetches them)
# and this process's environment, FAST_RANDOM_* included. The harness
# starts an embedded Tomcat on 127.0.0.1 with an ephemeral port, then
# DEPLOYS times: deploys the exploded web app built under tmp/servlet_deploy/
# (WEB-INF/web.xml with jruby-rack's RackFilter and
# RackServletContextListener and a pool of two runtimes; WEB-INF/config.ru,
# test/support/servlet/config.ru, which requires fast_random from this
# checkout's lib/; jruby-rack in WEB-INF/lib), sends it requests over HTTP
# (two held at once so that both runtimes answer, then 12 from 4 threads),
# and undeploys it. Every deploy has new runtimes, each loading fast_random's
# jar into a class loader of its own; why JRuby itself is on the container's
# class path rather than in WEB-INF/lib is in servlet_deploy.rb. After the
# last undeploy the harness collects garbage until every web-app class
# loader, and every class loader of fast_random's classes, is gone, or
# GC_SECONDS are up. It prints one JSON line per deploy, request, undeploy
# and class loader left behind, then a summary, which this test reads; the
# same harness without fast_random in the app is the control.
class ServletDeployTest < Minitest::Test
  # Ten deploys of a pool of two runtimes, each runtime loading fast_random's
  # jar and a copy of the native library of its own. A leak that pins every
  # deploy, or the last one, shows after two; ten give one that only some
  # deploys leave (a request racing the undeploy, a runtime booting while
  # another tears down) ten chances. Twenty, as this test had before, took
  # twice the time and only added chances for leaks rarer than that.
  DEPLOYS = 10
  # The control only has to show that the harness's steps around stock
  # JRuby's own leaks hold; those leaks pin every deploy, so two show them.
  CONTROL_DEPLOYS = 2
  # How long the harness collects garbage waiting for class loaders to go
  # (they go within a second or two when nothing holds them; it stops as
  # soon as they have). 60: once, with bin/test's other job loading a slow
  # 2-core host, the stock control's first deploy was still held after 30 s
  # and gone when the file ran alone; a real leak is never collected.
  GC_SECONDS = 60
  UUID_V4 = TestHelper::UUID_V4

  # One harness run per process (it takes minutes); the tests below read it.
  def self.result
    @result ||= ServletDeploy.run(JRUBY_VERSION, deploys: DEPLOYS, gc_seconds: GC_SECONDS)
  end

  def setup
    skip "the servlet deployment runs in this JRuby's main bin/test pass only (it takes minutes, and " \
         "the fallback passes change only what its native engines would be)" unless TestHelper.main_pass?
    problem = ServletDeploy.problem(JRUBY_VERSION)
    skip problem if problem
    @result = self.class.result
    puts "\n  servlet deploys: #{@result.seconds.round} s, #{@result.summary&.values_at("deploys", "gc_ms")}" if ENV["VERBOSE"]
  end

  def test_the_container_deploys_and_undeploys_every_time
    assert @result.status.success?, "the harness failed (#{@result.status}):\n#{@result.log_tail}"
    summary = @result.summary
    refute_nil summary, "the harness printed no summary:\n#{@result.log_tail}"
    unavailable = @result.deploys.reject { |deploy| deploy["available"] }
    assert_empty unavailable, "deploys that did not start:\n#{@result.log_tail}"
    assert_equal (1..DEPLOYS).to_a, @result.deploys.map { |deploy| deploy["deploy"] }
    assert_equal (1..DEPLOYS).to_a, @result.events("undeploy").map { |deploy| deploy["deploy"] }
  end

  def test_every_response_is_correct
    requests = @result.requests
    refute_empty requests, "no request was made:\n#{@result.log_tail}"
    failed = requests.reject { |request| request["status"] == 200 && request["body"] }
    assert_empty failed.map { |request| request.values_at("deploy", "status", "error") }.first(3),
                 "#{failed.size} of #{requests.size} requests failed"
    bodies = requests.map { |request| request["body"] }
    assert_empty bodies.map { |body| body["uuid"] }.grep_v(UUID_V4), "uuids that are no version 4 UUID"
    assert_equal bodies.size, bodies.map { |body| body["uuid"] }.uniq.size, "duplicate uuids"
    refute bodies.any? { |body| body["rsa_verified"] != true }, "an RSA signature did not verify"
    refute bodies.any? { |body| body["ec_verified"] != true }, "an ECDSA signature did not verify"
    refute bodies.any? { |body| body["aes_round_trip"] != true }, "an AES-GCM message did not decrypt"
    assert bodies.all? { |body| body["fast_random"] && body["jruby"] == JRUBY_VERSION }, "not fast_random on JRuby #{JRUBY_VERSION}"
  end

  def test_both_runtimes_of_the_pool_answer_in_every_deploy
    by_deploy = @result.requests.select { |request| request["body"] }.group_by { |request| request["deploy"] }
    (1..DEPLOYS).each do |deploy|
      runtimes = by_deploy.fetch(deploy, []).map { |request| request.dig("body", "runtime") }.uniq
      assert_equal ServletDeploy::RUNTIMES, runtimes.size, "runtimes that answered in deploy #{deploy}"
    end
  end

  # Every runtime of every deploy, not only the first class loader to load
  # fast_random in this JVM, runs on the native engines.
  def test_every_runtime_is_on_the_native_engines
    runtimes = @result.requests.filter_map { |request| request["body"] }.uniq { |body| [body["deploy"], body["runtime"]] }
    assert_equal DEPLOYS * ServletDeploy::RUNTIMES, runtimes.size, "runtimes seen"
    wrong = runtimes.filter_map do |body|
      problems = []
      if TestHelper.libcrypto_expected?
        problems << "EC engine #{body["ec_engine"]}: #{body["ec_engine_problem"]}" unless body["ec_engine"] == "openssl"
        problems << "RSA engine #{body["rsa_engine"]}: #{body["rsa_engine_problem"]}" unless body["rsa_engine"] == "openssl"
      end
      if TestHelper.cpu_random_expected? && !body["rdrand_available"]
        problems << "no RDRAND: #{body["rdrand_problem"]}"
      end
      [body["deploy"], problems.join("; ")] unless problems.empty?
    end
    # One line per distinct problem, with the deploys that had it.
    summary = wrong.group_by(&:last).map do |problem, cases|
      "#{cases.size} runtime(s) of deploys #{cases.map(&:first).uniq.join(",")}: #{problem}"
    end
    assert_empty summary, "#{wrong.size} of #{runtimes.size} runtimes are not on the native engines"
  end

  # The control: the same deploys of the same app without fast_random must
  # leave nothing behind, or the harness's steps around stock JRuby's leaks
  # (Harness.java) no longer suffice and the test below proves nothing.
  def test_without_fast_random_no_class_loader_is_left
    stock = ServletDeploy.run(JRUBY_VERSION, fast_random: false, deploys: CONTROL_DEPLOYS, gc_seconds: GC_SECONDS)
    assert stock.status.success?, "the harness failed (#{stock.status}):\n#{stock.log_tail}"
    summary = stock.summary
    refute_nil summary, "the harness printed no summary:\n#{stock.log_tail}"
    assert_equal 0, summary["request_failures"], stock.log_tail
    assert_equal [CONTROL_DEPLOYS, CONTROL_DEPLOYS * ServletDeploy::RUNTIMES], summary.values_at("webapp_loaders", "app_loaders")
    left = stock.loaders_left.map { |loader| "deploy #{loader["deploy"]}: #{loader["kind"]} #{loader["loader"]}" }
    assert_empty left, "stock JRuby and jruby-rack left class loaders behind"
  end

  def test_no_class_loader_is_left_after_the_undeploys
    summary = @result.summary
    refute_nil summary, "the harness printed no summary:\n#{@result.log_tail}"
    assert_equal DEPLOYS, summary["webapp_loaders"], "web-app class loaders noted"
    assert_equal DEPLOYS * ServletDeploy::RUNTIMES, summary["app_loaders"], "class loaders of fast_random's classes noted"
    left = @result.loaders_left.map { |loader| "deploy #{loader["deploy"]}: #{loader["kind"]} #{loader["loader"]}" }
    left = left.first(6) + ["... #{left.size - 6} more"] if left.size > 7
    assert_empty left, "class loaders still reachable #{summary["gc_ms"]} ms after the last undeploy " \
                       "(#{summary["webapp_loaders_left"]} of #{summary["webapp_loaders"]} web-app loaders, " \
                       "#{summary["app_loaders_left"]} of #{summary["app_loaders"]} of fast_random's)"
  end
end
