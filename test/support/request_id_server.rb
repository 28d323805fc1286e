# frozen_string_literal: true

# Serves RequestIdApp over real HTTP with WEBrick (Rack's own handler) on an
# ephemeral port of 127.0.0.1. Prints "port N", serves until its stdin is
# closed, then prints one JSON line: requests served and UUIDs made by
# fast_random meanwhile.
require_relative "request_id_app"
require "json"
require "rack/handler/webrick"

served = java.util.concurrent.atomic.LongAdder.new
app = RequestIdApp.build { served.increment }
server = WEBrick::HTTPServer.new(BindAddress: "127.0.0.1", Port: 0, MaxClients: 256,
                                 Logger: WEBrick::Log.new($stderr, WEBrick::BasicLog::WARN), AccessLog: [])
server.mount("/", Rack::Handler::WEBrick, app)
uuids_before = RequestIdApp.uuids_made

Thread.new do
  $stdin.read
  server.shutdown
end
puts "port #{server.listeners.first.addr[1]}"
$stdout.flush
server.start
puts JSON.generate("served" => served.sum, "uuids" => RequestIdApp.uuids_made - uuids_before)
