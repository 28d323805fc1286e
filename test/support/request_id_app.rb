# frozen_string_literal: true

# A Rack application behind Rails' real ActionDispatch::RequestId middleware,
# loaded by the RequestId tests into a JRuby with fast_random and the stack of
# test/support/rails_stack.rb on its load path. The application answers with
# the request id that the middleware put into the env, so a client can check
# that the X-Request-Id header it gets is the id the application saw.
require "fast_random"
require "action_dispatch"
require "action_dispatch/middleware/request_id"

module RequestIdApp
  HEADER = "X-Request-Id"

  # The middleware around the application; +on_request+ (optional) is called
  # with each request's id.
  def self.build(&on_request)
    app = lambda do |env|
      id = env.fetch("action_dispatch.request_id")
      on_request&.call(id)
      [200, { "Content-Type" => "text/plain", "Content-Length" => id.bytesize.to_s }, [id]]
    end
    ActionDispatch::RequestId.new(app, header: HEADER)
  end

  # UUIDs fast_random's current backend has made so far.
  def self.uuids_made
    FastRandom.stats.dig(:calls, FastRandom.backend, :uuid)
  end
end
