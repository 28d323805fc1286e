# frozen_string_literal: true

# A child JRuby of test/tls/interop_test.rb: TLS 1.3 with JSSE's key limit
# lowered to 1 MiB (jdk.tls.keyLimits, which JSSE reads once, when its
# SSLCipher class is first loaded: so set here before openssl is required,
# in a process no TLS has run in), 16 MiB each way with an MRI peer and with
# `openssl s_server -msg`, whose log shows every KeyUpdate and record: the
# JRuby end on fast_random's data path. Prints one line of JSON.
#
#   bin/jruby test/support/tls_key_update.rb DIR   (DIR: TlsInterop.certificates')
require "java"
java.security.Security.setProperty("jdk.tls.keyLimits", "AES/GCM/NoPadding KeyUpdate 2^20, ChaCha20-Poly1305 KeyUpdate 2^20")
require "fast_random"
require "openssl"
require "json"
require_relative "tls_interop"

T = TlsInterop
dir = ARGV.fetch(0)
cert = File.join(dir, "ec.pem")
key = File.join(dir, "ec.key")
bytes = 16 << 20
results = { "installed" => FastRandom::TLS.installed?, "problem" => FastRandom::TLS.problem }

# MRI: 16 MiB from MRI (64 KiB writes) read by readpartial, then 16 MiB
# written in 1 MiB writes.
peer = T::Mri.server(cert: cert, key: key, version: "1.3")
begin
  stats, mri = T.counting do
    socket = T.client(peer.port, T.context(version: "1.3", ca: cert))
    ready = peer.answer
    peer.puts "send #{64 << 10} #{bytes >> 16}"
    got = T.receive_data(socket, bytes, 64 << 10, :readpartial)
    sent_by_mri = peer.answer
    data = T.payload(bytes)
    peer.puts "recv #{bytes}"
    T.send_data(socket, data, 1 << 20, :write)
    got_by_mri = peer.answer
    peer.puts "finish"
    left = socket.read
    socket.close
    { "ready" => ready, "mri_sent" => sent_by_mri[1..], "jruby_got" => got.map(&:to_s),
      "jruby_sent" => [data.bytesize.to_s, T.sha(data)], "mri_got" => got_by_mri[1..], "left" => left.bytesize,
      "eof" => peer.answer }
  end
  status, errors, = peer.finish
  results["mri"] = mri.merge("stats" => stats, "status" => status.exitstatus, "errors" => errors)
ensure
  peer.kill
end

# s_server: 16 MiB each way, the log of its records kept.
log = File.join(dir, "key-update.msg")
tool, port = T.s_server(cert: cert, key: key, version: "1.3", suite: "TLS_AES_128_GCM_SHA256", extra: ["-msg", "-msgfile", log])
begin
  down = T.payload(bytes)
  up = T.payload(bytes)
  stats, s_server = T.counting do
    socket = T.client(port, T.context(version: "1.3", ca: cert))
    feeding = tool.feed(down)
    got = T.receive_data(socket, bytes, 64 << 10, :readpartial)
    feeding.join
    draining = tool.drain(bytes)
    T.send_data(socket, up, 1 << 20, :write)
    sent = Timeout.timeout(T::DEADLINE) { draining.value }
    cipher = T.cipher_name(socket)
    socket.close
    { "cipher" => cipher, "down" => got == [bytes, T.sha(down)], "up" => sent == [bytes, T.sha(up)] }
  end
  status, errors, rest = tool.finish
  records = T.msg_records(log)
  # From JRuby's first application data on, what it sent: KeyUpdates, and the records between them.
  upload = records.drop_while { |record| record != ["<<<", :data] }.select { |direction, _| direction == "<<<" }
  runs = upload.chunk_while { |a, b| a == b }.select { |run| run.first == ["<<<", :data] }.map(&:size)
  results["s_server"] = s_server.merge(
    "stats" => stats, "status" => status.exitstatus, "errors" => errors, "rest" => rest.bytesize,
    "key_updates_from_jruby" => records.count(["<<<", :key_update]),
    "key_updates_from_openssl" => records.count([">>>", :key_update]),
    "key_updates_from_jruby_sending" => upload.count(["<<<", :key_update]),
    "data_records_from_jruby" => upload.count(["<<<", :data]), "most_records_between_key_updates" => runs[0..-2].max
  )
ensure
  tool.kill
end
puts JSON.generate(results)
