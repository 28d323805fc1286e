# frozen_string_literal: true

# Passes 10.1: jruby-rack reads a packed war the same way under every JRuby; packaged_app_test.rb covers each JRuby's uri:classloader: paths.

require_relative "../test_helper"
require_relative "../support/servlet_deploy"
require_relative "../support/packaging"

# A web application packed as Warbler packs one (its gems in
# WEB-INF/lib/gems.jar) and deployed as a .war file that Tomcat does not
# unpack (unpackWARs="false"), then redeployed: fast_random's lib/ is then an
# entry of a jar inside the war, and each runtime of each deploy copies its
# JNI library out and loads it. The same harness as servlet_deploy_test.rb
# (test/support/servlet_deploy.rb), which deploys an exploded directory.
class ServletWarTest < Minitest::Test
  DEPLOYS = 2 # a deploy and a redeploy
  GC_SECONDS = 30

  def self.result
    @result ||= ServletDeploy.run(JRUBY_VERSION, war: true, deploys: DEPLOYS, requests: 4, gc_seconds: GC_SECONDS)
  end

  def setup
    skip "the war deployment runs in this JRuby's main bin/test pass only" unless TestHelper.main_pass?
    problem = ServletDeploy.problem(JRUBY_VERSION)
    skip problem if problem
    @result = self.class.result
  end

  def test_the_packed_war_deploys_redeploys_and_signs_natively
    assert @result.status.success?, "the harness failed (#{@result.status}):\n#{@result.log_tail}"
    assert_equal [true] * DEPLOYS, @result.deploys.map { |deploy| deploy["available"] }, @result.log_tail
    assert_equal (1..DEPLOYS).to_a, @result.events("undeploy").map { |deploy| deploy["deploy"] }
    bodies = @result.requests.map { |request| request["body"] }
    assert_equal [], @result.requests.reject { |request| request["status"] == 200 && request["body"] }
                            .map { |request| request.values_at("deploy", "status", "error") }
    assert_equal (1..DEPLOYS).to_a, bodies.map { |body| body["deploy"] }.uniq.sort

    gem_lib = %r{\Auri:classloader:/+gems/fast_random-#{Regexp.escape(FastRandom::VERSION)}-java/lib/fast_random\z}
    runtimes = bodies.uniq { |body| [body["deploy"], body["runtime"]] }
    assert_equal DEPLOYS * ServletDeploy::RUNTIMES, runtimes.size, "runtimes seen"
    runtimes.each do |body|
      assert_match gem_lib, body["library_dir"], "fast_random from the war's gems.jar"
      assert_equal [true, nil], body.values_at("native_library_archived", "native_library_failure")
      assert_equal %w[openssl openssl], body.values_at("rsa_engine", "ec_engine"), body.inspect
      assert body["rdrand_available"], body["rdrand_problem"]
    end
    assert bodies.all? { |body| body.values_at("rsa_verified", "ec_verified", "aes_round_trip") == [true, true, true] }

    key = File.join(ServletDeploy::WORK, "rsa_key.pem")
    mri_signature, err, status = Open3.capture3(*Packaging.mri_command, "-ropenssl", "-e",
                                                'print [OpenSSL::PKey::RSA.new(File.read(ARGV[0])).sign("SHA256", ARGV[1])].pack("m0")',
                                                key, "fast_random in a servlet container")
    assert status.success?, err
    assert_equal [mri_signature], bodies.map { |body| body["rsa_signature"] }.uniq, "every runtime signs as MRI does"
    assert_empty Dir.children(ServletDeploy.copies_dir(JRUBY_VERSION)), "every copy deleted once loaded"
  end

  def test_no_class_loader_is_left_after_the_redeploy
    summary = @result.summary
    refute_nil summary, "the harness printed no summary:\n#{@result.log_tail}"
    left = @result.loaders_left.map { |loader| "deploy #{loader["deploy"]}: #{loader["kind"]} #{loader["loader"]}" }
    assert_empty left, "class loaders still reachable #{summary["gc_ms"]} ms after the last undeploy"
  end
end
