# frozen_string_literal: true

require "open3"
require_relative "debian_gems"

module Bench
  # The two request paths bench/request_id.rb times: Rails' own
  # ActionDispatch::RequestId middleware (actionpack, from Debian's
  # ruby-actionpack), where it loads, and a Rack middleware that takes the
  # same steps with Rack alone, which loads everywhere. Both wrap an app that
  # answers 200 "ok", so the time is the middleware's: the request object, the
  # header lookup, SecureRandom.uuid, the response header.
  module RequestStack
    HEADER = "X-Request-Id"
    ENDPOINT = ->(_env) { [200, { "Content-Type" => "text/plain" }, ["ok"]] }

    # ActionDispatch::RequestId#call (actionpack 6.1) with a Rack::Request:
    # the client's X-Request-Id, sanitized, else SecureRandom.uuid, stored in
    # the env where Rails keeps it and sent back in the response.
    class RackRequestId
      def initialize(app, header: HEADER)
        @app = app
        @header = header
        @env_key = "HTTP_#{header.upcase.tr("-", "_")}"
      end

      def call(env)
        request = Rack::Request.new(env)
        id = make_request_id(request.get_header(@env_key))
        request.set_header("action_dispatch.request_id", id)
        @app.call(env).tap { |_status, headers, _body| headers[@header] = id }
      end

      private

      def make_request_id(id)
        id && !id.empty? ? id.gsub(/[^\w\-@]/, "")[0, 255] : SecureRandom.uuid
      end
    end

    module_function

    ROOT = File.expand_path("../..", __dir__)

    # On JRuby, Debian's gems go on the load path by hand (see DebianGems),
    # after concurrent-ruby with its JRuby extension where there is one.
    def prepare_load_path
      return if @prepared || RUBY_ENGINE != "jruby"

      @prepared = true
      dir = concurrent_ruby_with_extension
      $LOAD_PATH.unshift(dir) if dir
      DebianGems.add_to_load_path("actionpack")
    end

    # Debian's ruby-concurrent lacks concurrent_ruby.jar, the Java extension
    # concurrent-ruby insists on under JRuby ("Java extensions are required
    # for JRuby"), so ActionDispatch cannot load with it. Where the project's
    # setup provides a concurrent-ruby with the extension (script/env.sh's
    # fr_concurrent_ruby_dir says where), its lib directory; else nil.
    def concurrent_ruby_with_extension
      script = '. script/env.sh && declare -F fr_concurrent_ruby_dir >/dev/null && fr_concurrent_ruby_dir'
      out, status = Open3.capture2("bash", "-c", script, chdir: ROOT)
      dir = File.join(out.strip, "lib/concurrent-ruby")
      dir if status.success? && File.file?(File.join(dir, "concurrent/concurrent_ruby.jar"))
    end

    # Rails' middleware around the endpoint, or the reason it did not load.
    def action_dispatch
      prepare_load_path
      require "action_dispatch"
      require "action_dispatch/middleware/request_id"
      [ActionDispatch::RequestId.new(ENDPOINT, header: HEADER), nil]
    rescue LoadError, StandardError => e
      [nil, "#{e.class}: #{e.message.split("\n").join(" ")}"]
    end

    def rack
      prepare_load_path
      require "rack"
      require "rack/mock"
      RackRequestId.new(ENDPOINT)
    end

    # A GET / as a server hands it to the app (copied for every request,
    # since the middleware writes to it).
    def env_template
      Rack::MockRequest.env_for("/", "HTTP_HOST" => "example.com").freeze
    end
  end
end
