# frozen_string_literal: true

# Passes main: Rails on each JRuby; which generator makes the ids is the generator tests' concern (test/random).

require_relative "../test_helper"
require_relative "../support/rails_stack"
require "json"
require "open3"
require "tmpdir"

# Rails' real ActionDispatch::RequestId middleware (Debian's actionpack 6.1,
# run on JRuby as test/support/rails_stack.rb explains) with fast_random
# loaded, as an application's initializer would: every X-Request-Id it makes
# is a version 4 UUID that fast_random's generator made, which
# FastRandom.stats[:calls] proves (it counts in Java, per backend, each uuid
# made), not the name of the method the middleware calls. Each case runs in a
# fresh JRuby, so Rails' core extensions stay out of this test process.
class RequestIdTest < Minitest::Test
  SUPPORT = File.expand_path("../support", __dir__)
  UUID_V4 = TestHelper::UUID_V4

  THROUGH_THE_MIDDLEWARE = <<~'RUBY'
    require "request_id_app"
    require "json"
    app = RequestIdApp.build
    request = ->(env = {}) { app.call(Rack::MockRequest.env_for("/", env)) }
    id_of = ->(response) { response[1].fetch(RequestIdApp::HEADER) }
    made = ->(backend = FastRandom.backend) { FastRandom.stats.dig(:calls, backend, :uuid) }

    before = made.()
    ids = Array.new(200) { id_of.(request.()) }
    ids += Array.new(4) { Thread.new { Array.new(200) { id_of.(request.()) } } }.flat_map(&:value)
    generated = made.() - before

    # An id from upstream (a load balancer's) is kept, sanitized, and none is made.
    before = made.()
    upstream = id_of.(request.("HTTP_X_REQUEST_ID" => "lb-42; drop"))
    upstream_made = made.() - before

    rdrand = FastRandom.rdrand_available?
    if rdrand
      FastRandom.backend = :rdrand
      before = made.(:rdrand)
      rdrand_ids = Array.new(50) { id_of.(request.()) }
      rdrand_made = made.(:rdrand) - before
      FastRandom.backend = :drbg
    end

    puts JSON.generate(
      "middleware" => ActionDispatch::RequestId.instance_method(:call).source_location.first,
      "actionpack" => ActionPack.version.to_s, "concurrent_java" => Concurrent.java_extensions_loaded?,
      "ids" => ids, "generated" => generated, "upstream" => upstream, "upstream_made" => upstream_made,
      "rdrand" => rdrand, "rdrand_problem" => FastRandom.rdrand_problem,
      "rdrand_ids" => rdrand_ids, "rdrand_made" => rdrand_made
    )
  RUBY

  # wrk's settings: two runs of a few seconds (the first also warms the
  # server's JIT up) of 64 connections on 2 threads, with a timeout that a
  # loaded CI machine stays under.
  LOAD = %w[--threads 2 --connections 64 --timeout 30s].freeze
  RUNS = %w[2s 3s].freeze
  WARM_UP = 20

  def setup
    problem = RailsStack.problem
    skip problem if problem
  end

  def jruby_args
    ["-I", SUPPORT, *RailsStack.load_path_args]
  end

  def test_request_ids_are_v4_uuids_made_by_fast_random
    out, err, status = TestHelper.jruby(THROUGH_THE_MIDDLEWARE, *jruby_args)
    assert status.success?, "the middleware run failed:\n#{out}\n#{err}"
    result = JSON.parse(out.lines.last)

    assert_equal File.join(RailsStack.library_dir("actionpack"), "action_dispatch/middleware/request_id.rb"), result["middleware"]
    assert_match(/\A6\.1\./, result["actionpack"])
    assert result["concurrent_java"], "concurrent-ruby runs without its Java extension"

    ids = result["ids"]
    assert_equal 1000, ids.size
    assert_empty ids.grep_v(UUID_V4), "request ids that are no version 4 UUID"
    assert_equal ids.size, ids.uniq.size, "duplicate request ids"
    assert_equal ids.size, result["generated"], "uuids fast_random made for 1000 requests"

    assert_equal ["lb-42drop", 0], result.values_at("upstream", "upstream_made")

    if TestHelper.cpu_random_expected?
      assert result["rdrand"], result["rdrand_problem"]
      assert_equal 50, result["rdrand_made"]
      assert_empty result["rdrand_ids"].grep_v(UUID_V4)
    else
      refute result["rdrand"], "RDRAND in a run where it is hidden or its library missing"
    end
  end

  # Real HTTP: WEBrick (Rack's own handler; Debian's puma carries only its C
  # extension for MRI, not the Java one JRuby needs) serves the middleware on
  # 127.0.0.1, and wrk puts a few seconds of load on it over 64 connections.
  # Every response must be a 200 whose X-Request-Id is a v4 UUID equal to the
  # id the application saw, all of them distinct, with no socket errors; the
  # server counts one fast_random uuid per request it served.
  def test_under_http_load_every_response_has_a_distinct_request_id
    skip "the HTTP load runs in this JRuby's main bin/test pass only (it takes the longest, and the fallback passes change only how seeds are made)" unless TestHelper.main_pass?
    wrk = TestHelper.executable("wrk")
    skip "wrk is not installed (bin/setup installs Debian's wrk)" unless wrk

    Dir.mktmpdir("fast_random-wrk-") do |dir|
      server, stats, server_err, runs = serve do |port|
        warm_up(port)
        RUNS.map.with_index do |duration, run|
          ids_file = File.join(dir, "ids-#{run}")
          out, status = Open3.capture2e({ "REQUEST_IDS_FILE" => ids_file }, wrk, *LOAD, "--duration", duration,
                                        "--script", File.join(SUPPORT, "request_ids.lua"), "http://127.0.0.1:#{port}/")
          assert status.success?, "wrk failed:\n#{out}"
          refute_match(/Socket errors|Non-2xx/, out)
          *ids, failures = File.read(ids_file).split("\n")
          assert_equal "failures 0", failures, "responses without a 200, an X-Request-Id or a body equal to it"
          assert_equal Integer(out[/^\s*(\d+) requests in /, 1]), ids.size, out
          puts "\n  RequestId over HTTP: #{out[/^\s*\d+ requests in .*$/].strip}, #{out[/^Requests\/sec:.*$/]}" if ENV["VERBOSE"]
          ids
        end
      end
      assert server.success?, "the server failed:\n#{server_err}"

      ids = runs.flatten
      assert_operator ids.size, :>=, 64, "fewer responses than connections"
      assert_empty ids.grep_v(UUID_V4), "request ids that are no version 4 UUID"
      assert_equal ids.size, ids.uniq.size, "duplicate request ids"
      # wrk drops the responses still in flight when its time is up, so the
      # server served a few more than wrk counted (and the warm-up's).
      assert_operator stats["served"], :>=, ids.size + WARM_UP
      assert_equal stats["served"], stats["uuids"], "uuids fast_random made for the requests served"
    end
  end

  private

  # A few requests one after another first, so the load does not start on a
  # server that has yet to load and compile its request path.
  def warm_up(port)
    require "net/http"
    Net::HTTP.start("127.0.0.1", port, read_timeout: 60) do |http|
      WARM_UP.times { assert_equal "200", http.get("/").code }
    end
  end

  # Starts test/support/request_id_server.rb, yields its port, then stops it;
  # returns [its exit status, its JSON report, its stderr, the block's value].
  def serve
    command = [*TestHelper.jruby_command, *jruby_args, File.join(SUPPORT, "request_id_server.rb")]
    Open3.popen3(*command) do |stdin, stdout, stderr, thread|
      err_reader = Thread.new { stderr.read }
      line = stdout.gets
      unless line&.start_with?("port ")
        stdin.close
        flunk "the server did not start: #{line}\n#{err_reader.value}"
      end
      value = yield Integer(line.split.last)
      stdin.close
      stats = JSON.parse(stdout.read.lines.last.to_s)
      [thread.value, stats, err_reader.value, value]
    end
  end
end
