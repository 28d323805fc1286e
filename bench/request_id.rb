# frozen_string_literal: true

# A request through Rails' ActionDispatch::RequestId middleware, which calls
# SecureRandom.uuid for every request without an X-Request-Id header, and the
# same through a Rack middleware that takes RequestId's steps with Rack alone
# (see support/request_stack.rb). The ActionDispatch entry runs only where
# `require "action_dispatch"` works in this Ruby; elsewhere the notes say why
# it did not load, and the report shows that instead of a number.
#   ruby bench/request_id.rb
#   BENCH_VARIANT=fast_random bin/jruby bench/request_id.rb
require_relative "support/harness"
require_relative "support/request_stack"

Bench.load_subject

module Bench
  # The timed loop (see support/calls.rb for why it is a method called in chunks).
  module RequestCalls
    ACTION_DISPATCH = "request, ActionDispatch::RequestId"
    RACK = "request, Rack app with RequestId's steps"
    CHUNK = 1_000

    module_function

    def requests(app, env, n)
      i = 0
      while i < n
        app.call(env.dup)
        i += 1
      end
    end

    def run(app, env, n)
      Bench.in_chunks(n, CHUNK) { |chunk| requests(app, env, chunk) }
    end
  end
end

rails, not_loaded = Bench::RequestStack.action_dispatch
rack = Bench::RequestStack.rack
env = Bench::RequestStack.env_template
calls = Bench::RequestCalls
[rails, rack].compact.each do |app|
  _status, headers, = app.call(env.dup)
  raise "no request id from #{app.class}" unless headers[Bench::RequestStack::HEADER]&.match?(/\A\h{8}-\h{4}-4\h{3}-\h{4}-\h{12}\z/)
end

notes = { "stacks" => { calls::RACK => "Rack #{Rack.release}" } }
if rails
  notes["stacks"][calls::ACTION_DISPATCH] = "actionpack #{ActionPack.version}, Rack #{Rack.release}, " \
                                            "concurrent-ruby #{Concurrent::VERSION}"
else
  notes["missing"] = { calls::ACTION_DISPATCH => "ActionDispatch did not load: #{not_loaded}" }
end

Bench.ips(notes) do |x|
  x.report(calls::ACTION_DISPATCH) { |times| calls.run(rails, env, times) } if rails
  x.report(calls::RACK) { |times| calls.run(rack, env, times) }
end
