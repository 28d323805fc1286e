# frozen_string_literal: true

# Passes 10.1: real peers (C OpenSSL, MRI, Net::HTTP) against the data path on 10.1's jruby-openssl 0.16.2; the other releases' fields and steps are data_path_test.rb's, in every main and hooks pass.

require_relative "../test_helper"
require_relative "../support/tls_interop"
require "openssl"
require "net/http"
require "json"
require "stringio"
require "tmpdir"

# OpenSSL::SSL::SSLSocket's data path on fast_random (FastRandom::TLS:
# sysread, sysread_nonblock, syswrite, syswrite_nonblock) against real peers,
# every byte checked by length and SHA-256 at both ends: C OpenSSL's
# s_server and s_client with each TLS 1.3 and TLS 1.2 (ECDHE, AEAD) suite,
# both ways; MRI (Debian's, OpenSSL 3) as server and as client, with write
# sizes around a record's 16 KiB and up to 64 MiB, read by readpartial,
# sysread, read(n) and gets and written by write, syswrite and <<;
# non-blocking IO.select loops, with and without exceptions; Net::HTTP
# against s_server -WWW and an MRI HTTPS server; and TLS 1.3 KeyUpdates
# mid-stream, asked for by OpenSSL and made by JSSE at a lowered key limit.
# Each case runs with the JRuby end on fast_random's path, its counters
# (FastRandom::TLS.stats) moved by exactly the bytes moved, and where cheap
# again on jruby-openssl's own (FastRandom::TLS.uninstall), with the same
# bytes and the counters unmoved. The C OpenSSL suites are checked as
# negotiated (SSLSocket#cipher); ECDHE-ECDSA-CHACHA20-POLY1305, which
# jruby-openssl's SSLContext#ciphers= cannot name, is enabled on the JSSE
# engine itself.
class TlsInteropTest < Minitest::Test
  T = TlsInterop
  KIB = 1024
  MIB = 1024 * KIB
  PATHS = %i[fast_random stock].freeze

  def self.dir = @dir ||= T.certificates(Dir.mktmpdir("fast_random-tls-interop"))
  Minitest.after_run { FileUtils.rm_rf(@dir) if @dir }

  def path(name) = File.join(self.class.dir, name)

  def setup
    self.class.dir
    assert FastRandom::TLS.installed?, "FastRandom::TLS is not installed: #{FastRandom::TLS.problem}"
  end

  # The counters moved by exactly the bytes the JRuby end read and wrote on
  # fast_random's path, and not at all on stock's.
  def assert_moved(stats, on, read:, written:, what:)
    if on == :stock
      assert_equal({ reads: 0, read_bytes: 0, writes: 0, written_bytes: 0, waits: 0, stock_calls: 0, openssl_connections: 0,
                     jsse_connections: 0 }, stats,
                   "#{what}: jruby-openssl's own path ran fast_random's code")
      return
    end
    assert_equal read, stats[:read_bytes], "#{what}: bytes read on fast_random's path"
    assert_equal written, stats[:written_bytes], "#{what}: bytes written on fast_random's path"
    assert_operator stats[:reads], :>=, read.zero? ? 0 : 1, what
    assert_operator stats[:writes], :>=, written.zero? ? 0 : 1, what
  end

  # --- C OpenSSL: s_server and s_client, each suite -------------------------

  # TLS version, OpenSSL's name (s_server, s_client), JSSE's (SSLSocket#cipher
  # on JRuby), certificate.
  SUITES = [
    ["1.3", "TLS_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256", "ec"],
    ["1.3", "TLS_AES_256_GCM_SHA384", "TLS_AES_256_GCM_SHA384", "ec"],
    ["1.3", "TLS_CHACHA20_POLY1305_SHA256", "TLS_CHACHA20_POLY1305_SHA256", "ec"],
    ["1.2", "ECDHE-ECDSA-AES128-GCM-SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ec"],
    ["1.2", "ECDHE-ECDSA-AES256-GCM-SHA384", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "ec"],
    ["1.2", "ECDHE-ECDSA-CHACHA20-POLY1305", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "ec"],
    ["1.2", "ECDHE-RSA-AES128-GCM-SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "rsa"]
  ].freeze
  # The one suite jruby-openssl cannot name (SSLContext#ciphers= finds no
  # match for it): enabled on the engine directly (TlsInterop.only_suite).
  UNNAMED = %w[ECDHE-ECDSA-CHACHA20-POLY1305].freeze
  C_BYTES = 256 * KIB
  # How the JRuby end reads and writes, and in what pieces: another way for each suite.
  C_WAYS = [%i[readpartial write], %i[sysread syswrite], %i[read <<], %i[gets write]].freeze

  SUITES.each_with_index do |(version, suite, jsse, cert), index|
    name = "tls#{version.delete('.')}_#{suite.downcase.tr('-', '_').delete_prefix('tls_')}"
    define_method("test_s_server_#{name}") { s_server_case(version, suite, jsse, cert, C_WAYS[index % C_WAYS.size]) }
    define_method("test_s_client_#{name}") { s_client_case(version, suite, jsse, cert, C_WAYS[(index + 1) % C_WAYS.size]) }
  end

  # A JRuby client and `openssl s_server -quiet` allowing one suite: what
  # s_server's stdin takes arrives at JRuby, what JRuby writes is s_server's
  # stdout; then JRuby closes, and s_server prints nothing more.
  def s_server_case(version, suite, jsse, cert, ways)
    PATHS.each do |on|
      tool, port = T.s_server(cert: path("#{cert}.pem"), key: path("#{cert}.key"), version: version, suite: suite)
      exchange_with_tool("JRuby client (#{on}) and s_server, TLS #{version} #{suite}, #{ways.join("/")}", on, tool, jsse, ways,
                         to_jruby: T.payload(C_BYTES), from_jruby: T.payload(C_BYTES + 1)) do
        T.client(port, T.context(version: version, ca: path("#{cert}.pem")), only: (jsse if UNNAMED.include?(suite)))
      end
    ensure
      tool&.kill
    end
  end

  # `openssl s_client -quiet` offering one suite to an SSLServer on JRuby:
  # s_client's stdin arrives at JRuby, JRuby's reply is all s_client prints.
  def s_client_case(version, suite, jsse, cert, ways)
    PATHS.each do |on|
      tcp = TCPServer.new("127.0.0.1", 0)
      server = OpenSSL::SSL::SSLServer.new(tcp, T.context(version: version, cert: path("#{cert}.pem"), key: path("#{cert}.key")))
      server.start_immediately = false
      tool = T.s_client(tcp.addr[1], ca: path("#{cert}.pem"), version: version, suite: suite)
      exchange_with_tool("s_client and JRuby server (#{on}), TLS #{version} #{suite}, #{ways.join("/")}", on, tool, jsse, ways,
                         to_jruby: T.payload(C_BYTES + 3), from_jruby: T.payload(C_BYTES)) do
        T.accept(server, only: (jsse if UNNAMED.include?(suite)))
      end
    ensure
      tool&.kill
      tcp&.close
    end
  end

  # One exchange with an OpenSSL tool on the path +on+: the tool's stdin
  # (+to_jruby+) read by JRuby's socket (the block's), then +from_jruby+
  # written back for the tool to print; the suite as negotiated, both
  # directions' bytes, nothing more, and the stats moved by exactly them.
  def exchange_with_tool(what, on, tool, jsse, (reading, writing), to_jruby:, from_jruby:)
    stats, (cipher, got, sent) = T.on_path(on) do
      T.counting do
        Timeout.timeout(T::DEADLINE) do
          socket = yield
          feeding = tool.feed(to_jruby)
          got = T.receive_data(socket, to_jruby.bytesize, 16 * KIB, reading)
          feeding.join
          draining = tool.drain(from_jruby.bytesize)
          T.send_data(socket, from_jruby, 64 * KIB, writing)
          [T.cipher_name(socket), got, draining.value]
        ensure
          socket&.close
        end
      end
    end
    status, errors, rest = tool.finish
    assert status.success?, "#{what}: the tool failed\n#{errors}"
    assert_equal jsse, cipher, what
    assert_equal [to_jruby.bytesize, T.sha(to_jruby)], got, "#{what}: the tool to JRuby"
    assert_equal [from_jruby.bytesize, T.sha(from_jruby)], sent, "#{what}: JRuby to the tool"
    assert_empty rest, "#{what}: the tool got more than JRuby sent"
    assert_moved(stats, on, read: to_jruby.bytesize, written: from_jruby.bytesize, what: what)
  end

  # --- MRI: every write size, every way to read and write -------------------

  # Write size => how many writes of it, each way.
  WRITE_SIZES = { 1 => 200, 100 => 40, 16_383 => 4, 16_384 => 4, 16_385 => 4, 100 * KIB => 2, MIB => 1 }.freeze
  # How the JRuby end reads, and at most how much a call (nil: the writer's size, as a framed protocol reads).
  READS = { readpartial: 64 * KIB, sysread: 16 * KIB, read: nil, gets: 64 * KIB }.freeze
  WRITES = %i[write syswrite <<].freeze

  # An MRI peer and the JRuby end's socket, connected: the JRuby end the
  # client (role :client) or an SSLServer's (role :server).
  def mri_connection(role, version: "1.3", sndbuf: nil, rcvbuf: nil)
    ENV["TLS_INTEROP_RCVBUF"] = rcvbuf&.to_s
    if role == :client
      peer = T::Mri.server(cert: path("ec.pem"), key: path("ec.key"), version: version)
      socket = T.client(peer.port, T.context(version: version, ca: path("ec.pem")), sndbuf: sndbuf)
    else
      tcp = TCPServer.new("127.0.0.1", 0)
      server = OpenSSL::SSL::SSLServer.new(tcp, T.context(version: version, cert: path("ec.pem"), key: path("ec.key")))
      server.start_immediately = false
      peer = T::Mri.client(tcp.addr[1], ca: path("ec.pem"), version: version)
      socket = T.accept(server)
    end
    ready = peer.answer
    assert_equal ["ready", "TLSv#{version}"], ready.first(2), "the MRI peer's handshake"
    [peer, socket, ready[2]]
  ensure
    ENV.delete("TLS_INTEROP_RCVBUF")
    tcp&.close
  end

  # MRI ends the connection (close_notify) and reads to its end; the JRuby
  # end reads to its end, finds nothing more, and closes: MRI got nothing more either.
  def finish(peer, socket, what)
    peer.puts "finish"
    assert_equal "", Timeout.timeout(T::DEADLINE) { socket.read }, "#{what}: JRuby got more than MRI sent"
    socket.close
    assert_equal %w[eof 0], peer.answer, "#{what}: MRI got more than JRuby sent"
    status, errors, = peer.finish
    assert status.success?, "#{what}: the MRI peer failed\n#{errors}"
  end

  # Each write size MRI to JRuby, read each way, and JRuby to MRI, written
  # each way, on one connection: [bytes read, bytes written] by the JRuby end.
  def write_sizes(peer, socket, what)
    read = written = 0
    Timeout.timeout(T::DEADLINE) do
      WRITE_SIZES.each do |size, count|
        total = size * count
        READS.each do |how, piece|
          peer.puts "send #{size} #{count}"
          got = T.receive_data(socket, total, piece || size, how)
          sent = peer.answer
          assert_equal [sent[1].to_i, sent[2]], got, "#{what}: MRI wrote #{count} x #{size} B, JRuby read by #{how}"
          read += total
        end
        WRITES.each do |how|
          data = T.payload(total)
          peer.puts "recv #{total}"
          T.send_data(socket, data, size, how)
          assert_equal ["got", total.to_s, T.sha(data)], peer.answer, "#{what}: JRuby wrote #{count} x #{size} B by #{how}"
          written += total
        end
      end
    end
    [read, written]
  end

  def test_mri_server_and_jruby_client_every_write_size_each_way
    PATHS.each do |on|
      what = "JRuby client (#{on}) and MRI server"
      peer, socket, = mri_connection(:client)
      stats, (read, written) = T.on_path(on) { T.counting { write_sizes(peer, socket, what) } }
      finish(peer, socket, what)
      assert_moved(stats, on, read: read, written: written, what: what)
    ensure
      peer&.kill
    end
  end

  def test_mri_client_and_jruby_server_every_write_size_each_way
    PATHS.each do |on|
      what = "MRI client and JRuby server (#{on})"
      peer, socket, = mri_connection(:server)
      stats, (read, written) = T.on_path(on) { T.counting { write_sizes(peer, socket, what) } }
      finish(peer, socket, what)
      assert_moved(stats, on, read: read, written: written, what: what)
    ensure
      peer&.kill
    end
  end

  # The OpenSSL TLS engine (FastRandom::TLS.engine = :openssl: BoringSSL,
  # test/tls/handshake_engine_test.rb) with MRI at the other end, each way:
  # the same write sizes and ways to read and write, byte for byte.
  def test_mri_peers_and_the_openssl_engine_every_write_size_each_way
    %i[client server].each do |role|
      what = "JRuby #{role} on the OpenSSL engine and MRI"
      FastRandom::TLS.engine = :openssl
      peer, socket, = mri_connection(role)
      assert_equal :openssl, FastRandom::TLS.engine_of(socket), what
      stats, (read, written) = T.counting { write_sizes(peer, socket, what) }
      finish(peer, socket, what)
      assert_moved(stats, :fast_random, read: read, written: written, what: what)
    ensure
      FastRandom::TLS.engine = :jsse
      peer&.kill
    end
  end

  # One write of 64 MiB to MRI (Buffering#write hands syswrite what is
  # left each time), and 64 MiB from MRI read by readpartial into one buffer.
  def test_64_mib_each_way_with_mri
    what = "JRuby client and MRI server, 64 MiB"
    peer, socket, = mri_connection(:client)
    data = T.payload(64 * MIB)
    stats, = T.counting do
      Timeout.timeout(T::DEADLINE) do
        peer.puts "recv #{data.bytesize}"
        assert_equal data.bytesize, socket.write(data)
        assert_equal ["got", data.bytesize.to_s, T.sha(data)], peer.answer, "#{what}: JRuby to MRI in one write"
        peer.puts "send #{MIB} 64"
        got = T.receive_data(socket, 64 * MIB, 64 * KIB, :readpartial)
        sent = peer.answer
        assert_equal [sent[1].to_i, sent[2]], got, "#{what}: MRI to JRuby"
      end
    end
    finish(peer, socket, what)
    assert_moved(stats, :fast_random, read: 64 * MIB, written: data.bytesize, what: what)
  ensure
    peer&.kill
  end

  # --- Non-blocking loops driven by IO.select -------------------------------

  # Sends +data+ and reads +expect+ bytes at once on +socket+ in one IO.select
  # loop of read_nonblock and write_nonblock (exception: false, or rescuing
  # IO::WaitReadable and IO::WaitWritable): [what it read, the waits by kind].
  def duplex(socket, data, expect, exceptions:)
    waits = Hash.new(0)
    nonblocking = lambda do |call|
      if exceptions
        begin
          call.call({})
        rescue IO::WaitReadable
          :wait_readable
        rescue IO::WaitWritable
          :wait_writable
        end
      else
        call.call({ exception: false })
      end
    end
    received = String.new(capacity: expect)
    buffer = String.new
    sent = 0
    while sent < data.bytesize || received.bytesize < expect
      readers = []
      writers = []
      progress = false
      if received.bytesize < expect
        case (result = nonblocking.call(->(options) { socket.read_nonblock(64 * KIB, buffer, **options) }))
        when :wait_readable then readers << socket
        when :wait_writable then writers << socket
        when nil then raise EOFError, "the end after #{received.bytesize} of #{expect} bytes"
        else
          received << result
          progress = true
        end
        waits[[:read, result]] += 1 if result.is_a?(Symbol)
      end
      if sent < data.bytesize
        piece = data.byteslice(sent, 64 * KIB)
        case (result = nonblocking.call(->(options) { socket.write_nonblock(piece, **options) }))
        when :wait_writable, 0 then writers << socket # 0: stock 0.16's answer while sealed records wait for the socket
        when :wait_readable then readers << socket
        else
          sent += result
          progress = true
        end
        waits[[:write, result]] += 1 if result.is_a?(Symbol) || result.zero?
      end
      next if progress

      IO.select(readers.uniq, writers.uniq, nil, T::DEADLINE) or raise "IO.select: no progress in #{T::DEADLINE} s"
    end
    [received, waits]
  end

  # 8 MiB each way at once with an MRI peer that reads nothing for its first
  # half second (small socket buffers at both ends, so the JRuby end's
  # write_nonblock surely finds the socket full); MRI ends with "done" once
  # it has read everything, which the loop reads last.
  def test_nonblocking_duplex_io_select_loop_with_mri
    bytes = 8 * MIB
    [[:fast_random, false], [:fast_random, true], [:stock, false]].each do |on, exceptions|
      what = "JRuby client (#{on}, #{exceptions ? 'IO::Wait* exceptions' : 'exception: false'}) and MRI server, duplex"
      peer, socket, = mri_connection(:client, sndbuf: 64 * KIB, rcvbuf: 64 * KIB)
      data = T.payload(bytes)
      stats, (received, waits) = T.on_path(on) do
        T.counting do
          peer.puts "duplex #{bytes} #{bytes} 0.5"
          peer.puts "reply done"
          Timeout.timeout(T::DEADLINE) { duplex(socket, data, bytes + 5, exceptions: exceptions) }
        rescue StandardError => e
          flunk "#{what}: #{e.class}: #{e.message}"
        end
      end
      answer = peer.answer
      assert_equal ["duplex", bytes.to_s, T.sha(received.byteslice(0, bytes)), bytes.to_s, T.sha(data)], answer, what
      assert_equal "done\n", received.byteslice(bytes..), what
      assert_equal ["replied"], peer.answer, what
      assert_operator waits[%i[write wait_writable]] + waits[[:write, 0]], :>, 0, "#{what}: write_nonblock never found the socket full (#{waits})"
      assert_equal 0, waits[[:write, 0]], "#{what}: write_nonblock answered 0 (#{waits})" if on == :fast_random
      finish(peer, socket, what)
      assert_moved(stats, on, read: bytes + 5, written: bytes, what: what)
    ensure
      peer&.kill
    end
  end

  # read_nonblock with exceptions, as its documentation shows it, against a
  # peer writing 64 KiB pieces with pauses; then 1 MiB by write_nonblock with
  # exception: false to a peer that waits before reading.
  def test_nonblocking_reads_and_writes_each_alone
    PATHS.each do |on|
      what = "JRuby server (#{on}) and MRI client, non-blocking"
      peer, socket, = mri_connection(:server)
      stats, = T.on_path(on) do
        T.counting do
          Timeout.timeout(T::DEADLINE) do
            peer.puts "send #{64 * KIB} 16 0.01"
            digest = Digest::SHA256.new
            got = 0
            waited = 0
            while got < MIB
              begin
                piece = socket.read_nonblock(16 * KIB)
                digest << piece
                got += piece.bytesize
              rescue IO::WaitReadable
                waited += 1
                IO.select([socket])
              rescue IO::WaitWritable
                IO.select(nil, [socket])
              end
            end
            sent = peer.answer
            assert_equal [sent[1].to_i, sent[2]], [got, digest.hexdigest], "#{what}: read_nonblock"
            assert_operator waited, :>, 0, "#{what}: read_nonblock never waited"
            data = T.payload(MIB)
            peer.puts "recv #{MIB} 0.2"
            peer.puts "reply done"
            written = 0
            while written < data.bytesize
              result = socket.write_nonblock(data.byteslice(written, 64 * KIB), exception: false)
              if [:wait_writable, 0].include?(result) then IO.select(nil, [socket])
              elsif result == :wait_readable then IO.select([socket])
              else written += result
              end
            end
            # The reply comes once MRI has all of it: read_nonblock sends what the socket has not yet taken.
            reply = String.new
            until reply.end_with?("\n")
              case (result = socket.read_nonblock(100, exception: false))
              when :wait_readable then IO.select([socket])
              when :wait_writable then IO.select(nil, [socket])
              else reply << result
              end
            end
            assert_equal "done\n", reply, what
            assert_equal ["got", MIB.to_s, T.sha(data)], peer.answer, "#{what}: write_nonblock"
            assert_equal ["replied"], peer.answer, what
          end
        end
      end
      finish(peer, socket, what)
      assert_moved(stats, on, read: MIB + 5, written: MIB, what: what) # 1 MiB and "done\n" read
    ensure
      peer&.kill
    end
  end

  # --- A blocking write's bytes all go out ----------------------------------
  #
  # SSLSocket#write (syswrite) returns once the socket has taken every record
  # it sealed, on stock jruby-openssl as in MRI (SSL_write): the bytes are the
  # kernel's then, so waiting for the peer's answer with IO.select, or
  # closing, is safe. Small socket buffers at both ends and a peer that reads
  # nothing for half a second make the socket full as the write ends. Each
  # path runs, then the outcomes are compared: stock's is the one expected.

  # An MRI peer and a JRuby client on small socket buffers, a round trip
  # done (the session tickets MRI sends after its handshake are read, so an
  # IO.select waits for MRI's answer alone), the JRuby end on path +on+:
  # the block's value.
  def with_small_buffers(on, what)
    peer, socket, = mri_connection(:client, sndbuf: 4 * KIB, rcvbuf: 4 * KIB)
    peer.puts "reply hello"
    assert_equal "hello\n", Timeout.timeout(T::DEADLINE) { socket.gets }, what
    assert_equal ["replied"], peer.answer, what
    T.on_path(on) { yield peer, socket }
  ensure
    peer&.kill
  end

  def test_a_blocking_write_leaves_nothing_unsent_for_io_select
    data = T.payload(60_000)
    outcomes = PATHS.to_h do |on|
      what = "JRuby client (#{on}): write(60,000 B), then IO.select for the line MRI sends once it has them all"
      outcome = with_small_buffers(on, what) do |peer, socket|
        peer.puts "recv #{data.bytesize} 0.5"
        peer.puts "reply done"
        written = socket.write(data)
        ready = IO.select([socket], nil, nil, 3)
        # A read sends what the write left unsent, if anything: MRI then has it all, and answers.
        reply = Timeout.timeout(T::DEADLINE) { socket.gets }
        got = peer.answer
        assert_equal ["replied"], peer.answer, what
        finish(peer, socket, what)
        { written: written, "IO.select" => ready ? "ready" : "nothing in 3 s", reply: reply, mri: got }
      end
      [on, outcome]
    end
    expected = { written: data.bytesize, "IO.select" => "ready", reply: "done\n", mri: ["got", data.bytesize.to_s, T.sha(data)] }
    assert_equal({ fast_random: expected, stock: expected }, outcomes,
                 "a blocking write returned with sealed records the socket had not taken: nothing sends them " \
                 "until the next call on the SSLSocket, so MRI, short of bytes, never answers IO.select")
  end

  def test_a_blocking_write_then_close_delivers_every_byte
    data = T.payload(60_000)
    outcomes = PATHS.to_h do |on|
      what = "JRuby client (#{on}): write(60,000 B), then close"
      outcome = with_small_buffers(on, what) do |peer, socket|
        peer.puts "recv #{data.bytesize} 0.5"
        written = socket.write(data)
        socket.close
        { written: written, mri: peer.answer }
      end
      [on, outcome]
    end
    expected = { written: data.bytesize, mri: ["got", data.bytesize.to_s, T.sha(data)] }
    assert_equal({ fast_random: expected, stock: expected }, outcomes,
                 "a blocking write returned with sealed records the socket had not taken, and close dropped them: " \
                 "MRI got a record cut short, then the connection's end")
  end

  # --- Net::HTTP --------------------------------------------------------------

  def http(port)
    http = Net::HTTP.new("127.0.0.1", port)
    http.use_ssl = true
    http.ca_file = path("ec.pem")
    http.verify_mode = OpenSSL::SSL::VERIFY_PEER
    http.min_version = :TLS1_3
    http.open_timeout = http.read_timeout = http.write_timeout = T::DEADLINE
    http
  end

  # GET of a 32 MiB file from `openssl s_server -WWW` (an HTTP/1.0 answer
  # with no length: the body ends with the connection), read by read_body in chunks.
  def test_net_http_gets_32_mib_from_s_server_www
    Dir.mktmpdir("fast_random-www") do |www|
      body = T.payload(32 * MIB)
      File.binwrite(File.join(www, "big.bin"), body)
      PATHS.each do |on|
        port = TlsPeers.free_port
        tool = T::Tool.new(["openssl", "s_server", "-accept", port.to_s, "-cert", path("ec.pem"), "-key", path("ec.key"),
                            "-tls1_3", "-WWW", "-naccept", "1"], chdir: www)
        loop { break if (tool.gets or flunk("s_server -WWW ended before accepting\n#{tool.describe}")).start_with?("ACCEPT") }
        stats, (version, code, got) = T.on_path(on) do
          T.counting do
            Timeout.timeout(T::DEADLINE) do
              http(port).start do |http|
                digest = Digest::SHA256.new
                length = 0
                code = nil
                http.request_get("/big.bin") do |response|
                  code = response.code
                  response.read_body do |chunk|
                    digest << chunk
                    length += chunk.bytesize
                  end
                end
                [http.instance_variable_get(:@socket).io.ssl_version, code, [length, digest.hexdigest]]
              end
            end
          end
        end
        status, errors, = tool.finish
        what = "Net::HTTP (#{on}) GET from s_server -WWW"
        assert status.success?, "#{what}: s_server failed\n#{errors}"
        assert_equal ["TLSv1.3", "200", [body.bytesize, T.sha(body)]], [version, code, got], what
        next assert_moved(stats, on, read: 0, written: 0, what: what) if on == :stock

        assert_includes body.bytesize..(body.bytesize + 200), stats[:read_bytes], "#{what}: the body and s_server's headers"
        assert_operator stats[:written_bytes], :>, 0, what
      ensure
        tool&.kill
      end
    end
  end

  # POSTs of 16 MiB (Content-Length) and 2 MiB (chunked, from a stream) and
  # a GET of 4 MiB, on one keep-alive connection to an MRI HTTPS server that
  # answers each POST with its body's length and SHA-256.
  def test_net_http_posts_16_mib_to_an_mri_https_server
    peer = T::Mri.http(cert: path("ec.pem"), key: path("ec.key"))
    port = peer.port
    body = T.payload(16 * MIB)
    streamed = T.payload(2 * MIB)
    PATHS.each do |on|
      what = "Net::HTTP (#{on}) to an MRI HTTPS server"
      stats, (version, posted, chunked, fetched) = T.on_path(on) do
        T.counting do
          Timeout.timeout(T::DEADLINE) do
            http(port).start do |http|
              posted = http.post("/", body, "Content-Type" => "application/octet-stream")
              request = Net::HTTP::Post.new("/")
              request.body_stream = StringIO.new(streamed)
              request["Transfer-Encoding"] = "chunked"
              chunked = http.request(request)
              fetched = http.get("/#{4 * MIB}")
              [http.instance_variable_get(:@socket).io.ssl_version, posted, chunked, fetched]
            end
          end
        end
      end
      assert_equal "TLSv1.3", version, what
      assert_equal "#{body.bytesize} #{T.sha(body)}\n", posted.body, "#{what}: POST with Content-Length"
      assert_equal "#{streamed.bytesize} #{T.sha(streamed)}\n", chunked.body, "#{what}: chunked POST"
      assert_equal [4 * MIB, fetched["X-Sha256"]], [fetched.body.bytesize, T.sha(fetched.body)], "#{what}: GET"
      next assert_moved(stats, on, read: 0, written: 0, what: what) if on == :stock

      assert_operator stats[:written_bytes], :>, body.bytesize + streamed.bytesize, "#{what}: the bodies and headers"
      assert_operator stats[:read_bytes], :>, 4 * MIB, "#{what}: the answers"
    end
    status, errors, = peer.finish
    assert status.success?, "the MRI HTTPS server failed\n#{errors}"
  ensure
    peer&.kill
  end

  # --- TLS 1.3 KeyUpdate mid-stream -----------------------------------------

  # s_server (not quiet, so its stdin takes commands) sends KeyUpdate between
  # blocks of data: "K" asks JRuby to update its keys too, so the JRuby end's
  # read answers with a KeyUpdate of its own; "k" does not. Then JRuby's
  # writes, on its new keys, reach s_server's stdout as whole lines.
  def test_key_updates_openssl_sends_mid_stream
    PATHS.each do |on|
      what = "JRuby client (#{on}) and s_server sending KeyUpdate"
      log = path("k-#{on}.msg")
      port = TlsPeers.free_port
      # stdbuf: s_server's "SSL_do_handshake -> 1" after each command comes by printf, line by line.
      tool = T::Tool.new(["stdbuf", "-oL", "openssl", "s_server", "-accept", port.to_s, "-cert", path("ec.pem"), "-key", path("ec.key"),
                          "-tls1_3", "-naccept", "1", "-msg", "-msgfile", log])
      tool.read_lines
      tool.wait_for(/\AACCEPT/)
      commands = %w[K k K k K k K k]
      blocks = Array.new(commands.size + 1) { T.digit_lines(2048) } # 128 KiB each
      up = T.digit_lines(16_384) # 1 MiB, written 250 lines (16,000 B, one record) a write
      stats, (got, count) = T.on_path(on) do
        T.counting do
          Timeout.timeout(T::DEADLINE) do
            socket = T.client(port, T.context(version: "1.3", ca: path("ec.pem")))
            digest = Digest::SHA256.new
            got = 0
            blocks.each_with_index do |block, i|
              feeding = tool.feed(block)
              piece = T.receive_data(socket, block.bytesize, 64 * KIB, i.even? ? :gets : :readpartial)
              feeding.join
              assert_equal [block.bytesize, T.sha(block)], piece, "#{what}: block #{i}"
              digest << block
              got += block.bytesize
              next unless commands[i]

              # All of the block is JRuby's, so s_server has read all of it: the command is a read of its own.
              tool.puts(commands[i])
              tool.wait_for(/\ASSL_do_handshake -> 1/)
            end
            T.send_data(socket, up, 16_000, :write)
            [[got, digest.hexdigest], up.bytesize]
          ensure
            socket&.close
          end
        end
      end
      # Not quiet, s_server quits at its stdin's end, dropping what it has not read yet: it is to end at JRuby's close_notify.
      status, errors, out = tool.finish(close_stdin: false)
      assert status.success?, "#{what}: s_server failed\n#{errors}"
      assert_equal [blocks.sum(&:bytesize), T.sha(blocks.join)], got, what
      lines = out.lines.grep(/\A\d{63}\n\z/)
      assert_equal [up.bytesize, T.sha(up)], [lines.sum(&:bytesize), T.sha(lines.join)], "#{what}: JRuby to s_server"
      records = T.msg_records(log)
      assert_equal commands.size, records.count([">>>", :key_update]), "#{what}: KeyUpdates s_server sent"
      assert_equal commands.count("K"), records.count(["<<<", :key_update]), "#{what}: KeyUpdates JRuby sent back"
      assert_moved(stats, on, read: got[0], written: count, what: what)
    ensure
      tool&.kill
    end
  end

  # JSSE's key limit lowered to 1 MiB in a child JRuby
  # (test/support/tls_key_update.rb): 16 MiB each way with MRI and with
  # s_server, JRuby sending a KeyUpdate each MiB it writes (s_server's log
  # of records shows them), and asking for one as it reads.
  def test_key_updates_jsse_sends_at_a_1_mib_key_limit
    tool = T::Tool.new([*TestHelper.jruby_command, File.join(TestHelper::ROOT, "test/support/tls_key_update.rb"),
                        self.class.dir])
    status, errors, out = tool.finish
    assert status.success?, "the child JRuby failed\n#{errors}\n#{out}"
    results = JSON.parse(out.lines.last)
    assert_equal [true, nil], results.values_at("installed", "problem"), "the child's data path"
    mri = results.fetch("mri")
    assert_equal mri["mri_sent"], mri["jruby_got"], "MRI to JRuby, 16 MiB"
    assert_equal mri["jruby_sent"], mri["mri_got"], "JRuby to MRI, 16 MiB"
    assert_equal [0, %w[eof 0], 0], mri.values_at("left", "eof", "status"), "MRI: nothing more either way\n#{mri['errors']}"
    assert_equal [16 * MIB, 16 * MIB], mri["stats"].values_at("read_bytes", "written_bytes"), "MRI: the counters"
    s_server = results.fetch("s_server")
    assert_equal ["TLS_AES_128_GCM_SHA256", true, true, 0, 0], s_server.values_at("cipher", "down", "up", "status", "rest"),
                 "s_server: 16 MiB each way\n#{s_server['errors']}"
    assert_equal [16 * MIB, 16 * MIB], s_server["stats"].values_at("read_bytes", "written_bytes"), "s_server: the counters"
    # 16 MiB in records of 16 KiB: 1,024 records, and a KeyUpdate after each 64 (each MiB); at JSSE's own limit (2^37 B) none.
    assert_operator s_server["data_records_from_jruby"], :>=, 1024, s_server.inspect
    assert_includes 14..17, s_server["key_updates_from_jruby_sending"], "KeyUpdates from JRuby as it wrote 16 MiB: #{s_server}"
    assert_operator s_server["most_records_between_key_updates"], :<=, 66, s_server.inspect
    # Reading, JRuby asks for new keys too (JSSE counts what it decrypts against the limit): s_server answers each.
    assert_operator s_server["key_updates_from_jruby"], :>, s_server["key_updates_from_jruby_sending"], s_server.inspect
    assert_operator s_server["key_updates_from_openssl"], :>, 0, s_server.inspect
  end
end
