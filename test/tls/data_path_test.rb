# frozen_string_literal: true

# Passes main, hooks: fast_random's data path rides on jruby-openssl's own SSLSocket fields and steps, which differ by release (0.15's handshake step, 0.16's buffers).

require_relative "../test_helper"
require "openssl"
require "socket"
require "timeout"
require "digest"
require "tmpdir"
require "open3"
require_relative "../support/jsse_peer"

# OpenSSL::SSL::SSLSocket's reads and writes on fast_random's data path
# (FastRandom::TLS), both ends JRuby in this process over loopback: what each
# call returns, raises and leaves behind, side by side with jruby-openssl's
# own methods (FastRandom::TLS.uninstall) where stock's answer is the one to
# keep; bytes of every size through, nothing lost, duplicated or reordered;
# the ends of a connection (close_notify, a socket closed without it, a
# truncated record, a reset, a forged record); a blocking read interrupted by
# Timeout, Thread#raise and Thread#kill; and a call interrupted inside the
# data path (the test build's fault sites). The real peers (C OpenSSL, MRI,
# Net::HTTP) are interop_test.rb's.
class TlsDataPathTest < Minitest::Test
  SSL = OpenSSL::SSL
  DIR = Dir.mktmpdir("fast_random-tls")
  Minitest.after_run { FileUtils.rm_rf(DIR) }
  out, status = Open3.capture2e("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                "-keyout", File.join(DIR, "key.pem"), "-out", File.join(DIR, "cert.pem"), "-days", "2",
                                "-subj", "/CN=localhost")
  raise "openssl req failed: #{out}" unless status.success?

  CERT = OpenSSL::X509::Certificate.new(File.read(File.join(DIR, "cert.pem")))
  KEY = OpenSSL::PKey.read(File.read(File.join(DIR, "key.pem")))
  FAULTS = begin
    Java::FastrandomTls::TlsFaults
  rescue NameError
    nil # no test build: the fault tests skip, saying so
  end

  def setup
    FastRandom::TLS.install unless FastRandom::TLS.installed?
  end

  def teardown
    FastRandom::TLS.install unless FastRandom::TLS.installed?
    FAULTS&.clear
  end

  # A connected pair over loopback: [client, server], both SSLSockets with
  # sync_close, the handshake done (TLS 1.3 unless version says "1.2").
  def pair(version: "1.3")
    tcp = TCPServer.new("127.0.0.1", 0)
    server_context = SSL::SSLContext.new
    server_context.cert = CERT
    server_context.key = KEY
    client_context = SSL::SSLContext.new
    client_context.verify_mode = SSL::VERIFY_NONE
    client_context.max_version = version == "1.2" ? SSL::TLS1_2_VERSION : SSL::TLS1_3_VERSION
    accepted = Thread.new do
      socket = SSL::SSLSocket.new(tcp.accept, server_context)
      socket.sync_close = true
      socket.accept
    end
    client = SSL::SSLSocket.new(TCPSocket.new("127.0.0.1", tcp.addr[1]), client_context)
    client.sync_close = true
    client.connect
    [client, Timeout.timeout(20) { accepted.value }]
  ensure
    tcp&.close
  end

  def with_pair(**options)
    client, server = pair(**options)
    yield client, server
  ensure
    [client, server].each { |socket| socket&.io&.close unless socket&.io&.closed? }
  end

  # The block's value on jruby-openssl's own methods, then on fast_random's.
  def stock_and_ours
    FastRandom::TLS.uninstall
    stock = yield
    FastRandom::TLS.install
    [stock, yield]
  end

  # What a call gives, as comparable data: [:value, class, value, encoding] or [:raised, class, message].
  def outcome
    value = yield
    [:value, value.class, value.dup, value.respond_to?(:encoding) ? value.encoding : nil] # as it was then
  rescue StandardError => e
    [:raised, e.class, e.message]
  end

  def served(&block)
    before = FastRandom::TLS.stats
    block.call
    after = FastRandom::TLS.stats
    after.to_h { |key, value| [key, value - before[key]] }
  end

  def test_installed_with_openssl_and_counts_what_it_serves
    assert FastRandom::TLS.installed?, FastRandom::TLS.problem
    assert_nil FastRandom::TLS.problem
    counts = served do
      with_pair do |client, server|
        client.write("ping")
        assert_equal "ping", server.sysread(4)
      end
    end
    assert_operator counts[:writes], :>=, 1
    assert_operator counts[:written_bytes], :>=, 4
    assert_operator counts[:reads], :>=, 1
    assert_operator counts[:read_bytes], :>=, 4
  end

  def test_bytes_of_every_size_both_ways_in_order
    with_pair do |client, server|
      [1, 100, 16_383, 16_384, 16_385, 100_000, 1 << 20, 8 << 20].each do |size|
        [[client, server], [server, client]].each do |from, to|
          data = Random.bytes(size)
          writer = Thread.new { from.write(data) }
          received = to.read(size)
          writer.join
          assert_equal size, received.bytesize
          assert Digest::SHA256.digest(data) == Digest::SHA256.digest(received), "#{size} bytes came out different"
          assert_equal Encoding::BINARY, received.encoding
        end
      end
    end
  end

  def test_tls12_as_well
    with_pair(version: "1.2") do |client, server|
      assert_equal "TLSv1.2", client.ssl_version
      data = Random.bytes(300_000)
      writer = Thread.new { server.write(data) }
      assert_equal data, client.read(data.bytesize)
      writer.join
    end
  end

  def test_sysread_returns_and_reuses_the_buffer_as_stock
    results = stock_and_ours do
      with_pair do |client, server|
        server.write("hello world")
        buffer = +"\u00e9t\u00e9 and more than that"
        same = nil
        first = outcome { client.sysread(5, buffer).tap { |read| same = read.equal?(buffer) } }
        second = outcome { client.sysread(100, buffer) }
        fresh = outcome { server.write("x"); client.sysread(10) }
        [first, same, second, fresh]
      end
    end
    assert_equal results[0], results[1]
    assert_equal [:value, String, "hello", Encoding::BINARY], results[1][0]
    assert results[1][1], "sysread did not return the buffer given"
  end

  def test_nonblocking_reads_with_nothing_to_read_as_stock
    results = stock_and_ours do
      with_pair do |client, _server|
        [outcome { client.sysread_nonblock(10) }, outcome { client.read_nonblock(10, exception: false) },
         outcome { client.read_nonblock(10, +"", exception: false) }, (client.read_nonblock(10) rescue $!).is_a?(IO::WaitReadable)]
      end
    end
    assert_equal results[0], results[1]
    assert_equal [:raised, SSL::SSLErrorWaitReadable, "read would block"], results[1][0]
    assert_equal :wait_readable, results[1][1][2]
    assert results[1][3]
  end

  def test_arguments_answered_as_stock
    results = stock_and_ours do
      with_pair do |client, server|
        server.write("abcdef")
        sleep 0.1
        [outcome { client.sysread(0) }, outcome { client.sysread(-1) }, outcome { client.sysread("2") },
         outcome { client.sysread(2, 12) }, outcome { client.sysread(2, nil) }, outcome { client.syswrite(123) },
         outcome { client.syswrite("") }, outcome { client.sysread_nonblock(2, nil, exception: true) }]
      end
    end
    assert_equal results[0], results[1]
  end

  def test_calls_on_a_closed_socket_raise_as_stock
    results = stock_and_ours do
      with_pair do |client, _server|
        client.io.close
        [outcome { client.sysread(1) }, outcome { client.syswrite("x") }, outcome { client.read_nonblock(1, exception: false) },
         outcome { client.write_nonblock("x", exception: false) }]
      end
    end
    assert_equal results[0], results[1]
  end

  def test_writes_after_stop_raise_as_stock
    results = stock_and_ours do
      with_pair do |client, server|
        client.stop # close_notify: the engine takes no more data
        [outcome { client.syswrite("x") }, outcome { client.write_nonblock("x", exception: false) },
         outcome { server.sysread(1) }]
      end
    end
    assert_equal results[0], results[1]
    assert_equal [:raised, IOError, "closed SSL engine"], results[1][0]
  end

  def test_a_frozen_buffer_is_refused_and_loses_nothing
    with_pair do |client, server|
      server.write("kept")
      sleep 0.1
      assert_raises(FrozenError) { client.sysread(4, "".freeze) }
      assert_equal "kept", client.sysread(4)
    end
  end

  def test_write_nonblock_waits_writable_and_loses_nothing
    with_pair do |client, server|
      chunk = Random.bytes(16_384)
      sent = +"".b
      3.times do # until the peer's socket buffer is full and stays full (the kernel grows it for a while)
        loop do
          written = client.write_nonblock(chunk, exception: false)
          break if written == :wait_writable

          sent << chunk.byteslice(0, written)
          flunk "the socket took 256 MiB without pushing back" if sent.bytesize > (256 << 20)
        end
        sleep 0.1
      end
      error = assert_raises(SSL::SSLErrorWaitWritable) { client.syswrite_nonblock(chunk) }
      assert_kind_of IO::WaitWritable, error
      assert_equal "write would block", error.message
      # encrypted data still waits for the socket: a read says so first, as stock's does
      assert_equal :wait_writable, client.read_nonblock(1, exception: false)
      # The refused chunk again first (OpenSSL's contract: a write retried after
      # :wait_writable is retried with the same data), then more.
      rest = chunk + Random.bytes(100_000)
      received = Thread.new { server.read(sent.bytesize + rest.bytesize) }
      offset = 0
      while offset < rest.bytesize
        written = client.write_nonblock(rest.byteslice(offset..), exception: false)
        if written == :wait_writable
          IO.select(nil, [client.to_io], nil, 10) or flunk "never writable"
        else
          offset += written
        end
      end
      assert sent + rest == Timeout.timeout(60) { received.value }, "the peer got other bytes than were written"
    end
  end

  def test_io_select_driven_reads
    with_pair do |client, server|
      data = Random.bytes(3 << 20)
      writer = Thread.new { data.bytes.each_slice(70_000) { |slice| server.write(slice.pack("C*")) } }
      got = +"".b
      while got.bytesize < data.bytesize
        case (chunk = client.read_nonblock(16_384, exception: false))
        when :wait_readable then IO.select([client.to_io], nil, nil, 10) or flunk "never readable"
        when String then got << chunk
        else flunk "read_nonblock gave #{chunk.inspect}"
        end
      end
      writer.join
      assert_equal data, got
    end
  end

  def test_close_notify_reads_as_the_end_after_the_data_as_stock
    results = stock_and_ours do
      with_pair do |client, server|
        server.write("abc")
        server.close
        [outcome { client.read(3) }, outcome { client.sysread(1) }, outcome { client.read_nonblock(1, exception: false) },
         outcome { client.sysread_nonblock(1) }]
      end
    end
    assert_equal results[0], results[1]
    assert_equal [:raised, EOFError, "End of file reached"], results[1][1]
  end

  def test_a_socket_closed_without_close_notify_reads_as_the_end_after_the_data
    results = stock_and_ours do
      with_pair do |client, server|
        server.write("abc")
        server.io.close
        [outcome { client.read(3) }, outcome { client.sysread(1) }, outcome { client.read_nonblock(1, exception: false) }]
      end
    end
    assert_equal results[0], results[1]
    assert_equal [:value, String, "abc", Encoding::BINARY], results[1][0]
  end

  def test_a_truncated_record_reads_as_the_end_as_stock
    results = stock_and_ours do
      with_pair do |client, server|
        server.write("before")
        server.io.write("\x17\x03\x03\x01\x00abc".b) # a record header promising 256 bytes, and 3 of them
        server.io.close
        [outcome { client.read(6) }, outcome { client.sysread(10) }]
      end
    end
    assert_equal results[0], results[1]
    assert_equal [:raised, EOFError, "End of file reached"], results[1][1]
  end

  # Whether the bytes before a reset are read before it is said is the
  # kernel's race (the peer's RST may overtake them): what is read must be
  # a prefix of them, and the call after them raise as stock's.
  def test_a_reset_in_the_middle_of_a_record_raises_as_stock
    results = stock_and_ours do
      with_pair do |client, server|
        server.write("before")
        server.io.write("\x17\x03\x03\x01\x00abc".b)
        server.io.setsockopt(Socket::SOL_SOCKET, Socket::SO_LINGER, [1, 0].pack("ii"))
        server.io.close
        sleep 0.1
        read = +"".b
        error = loop do
          read << client.sysread(10)
        rescue StandardError => e
          break e
        end
        assert "before".start_with?(read), "read #{read.inspect} before the reset"
        error.class
      end
    end
    assert_equal results[0], results[1]
  end

  def test_a_forged_record_raises_and_nothing_stale_comes_out
    results = stock_and_ours do
      with_pair do |client, server|
        server.write("before")
        server.io.write("\x17\x03\x03\x00\x20".b + Random.bytes(32)) # a record that does not authenticate
        [outcome { client.read(6) }, outcome { client.sysread(10) }.first(2)]
      end
    end
    assert_equal results[0], results[1]
    with_pair do |client, server|
      server.io.write("\x17\x03\x03\x00\x20".b + Random.bytes(32))
      assert_raises(IOError, SystemCallError) { client.sysread(10) }
      after = outcome { Timeout.timeout(10) { client.sysread(10) } }
      refute_equal :value, after.first, "a read after the forged record gave #{after.inspect}"
    end
  end

  # A TLS 1.2 renegotiation (the peer's HelloRequest) that fails on a
  # record that does not authenticate: jruby-openssl's handshake step,
  # which fast_random's read hands the HelloRequest to, stops with the
  # socket's buffers mid-operation; nothing it left there may come out.
  def test_a_failed_renegotiation_leaves_nothing_stale_to_read
    secret = "SECRET-PLAINTEXT-" * 60
    results = stock_and_ours do
      port = JssePeer.start(File.join(DIR, "key.pem"), File.join(DIR, "cert.pem")) do |peer|
        peer.send_raw(peer.wrap(secret))
        sleep 0.3 # the client reads the secret
        peer.engine.beginHandshake
        peer.send_raw(peer.wrap + [23, 3, 3, 0, 40].pack("CCCn") + ("\x5a".b * 40))
        sleep 5
      end
      context = SSL::SSLContext.new
      context.verify_mode = SSL::VERIFY_NONE
      context.max_version = SSL::TLS1_2_VERSION
      client = SSL::SSLSocket.new(TCPSocket.new("127.0.0.1", port), context)
      client.connect
      assert_equal secret, client.read(secret.bytesize)
      sleep 0.5
      after = 3.times.map { outcome { client.sysread(64) }.first(2) }
      client.io.close
      after
    end
    assert_equal results[0], results[1]
    assert_equal [:raised, EOFError], results[1].last
  end

  # One thread reading while another writes, on both ends: 0.15's read
  # never sends what a write left, fast_random's (as 0.16's) does, and must
  # not find the write buffer half filled by the other thread, nor wait for
  # the socket to take it while the peer waits to be read.
  def test_a_reader_and_a_writer_thread_on_one_socket
    with_pair do |client, server|
      size = 12 << 20
      up = Random.bytes(size)
      down = Random.bytes(size)
      threads = [Thread.new { client.write(up) }, Thread.new { server.write(down) },
                 Thread.new { server.read(size) }, Thread.new { client.read(size) }]
      assert threads.all? { |thread| thread.join(60) }, "the transfers did not end (each thread's reads waiting on the other's writes?)"
      assert up == threads[2].value, "what the client wrote came out different"
      assert down == threads[3].value, "what the server wrote came out different"
    end
  end

  # A blocking write interrupted while it waits for a full socket has taken
  # records its caller was never told of: they are sent, and the retry
  # Ruby's buffering makes with the same bytes is told so, not sent again.
  def test_an_interrupted_blocking_write_sends_each_byte_once
    with_pair do |client, server|
      data = Random.bytes(8 << 20)
      assert_raises(Timeout::Error) { Timeout.timeout(0.5) { client.write(data) } }
      reader = Thread.new { server.read(data.bytesize + 3) }
      client.write("end")
      assert data + "end" == reader.value, "the peer got other bytes than were written"
    end
  end

  def test_timeout_interrupts_a_blocking_read_and_the_connection_goes_on
    stock_and_ours do
      with_pair do |client, server|
        assert_raises(Timeout::Error) { Timeout.timeout(0.3) { client.sysread(10) } }
        server.write("late")
        assert_equal "late", client.sysread(10)
      end
    end
  end

  def test_thread_raise_and_kill_interrupt_a_blocking_read
    stock_and_ours do
      with_pair do |client, server|
        reader = Thread.new { client.sysread(10) }
        reader.report_on_exception = false
        sleep 0.2 until reader.status == "sleep"
        reader.raise(ArgumentError, "stop reading")
        assert_raises(ArgumentError) { reader.join(10) }
        reader = Thread.new { client.read(4) }
        sleep 0.2 until reader.status == "sleep"
        reader.kill
        assert reader.join(10), "the killed reader did not end"
        server.write("next")
        assert_equal "next", client.sysread(10)
      end
    end
  end

  def test_a_read_interrupted_once_the_record_is_opened_loses_nothing
    skip "needs the test build's fault sites (rake test_builds)" unless FAULTS
    with_pair do |client, server|
      server.write("first record")
      sleep 0.1
      FAULTS.failAt("unwrapped", 1)
      error = assert_raises(Java::JavaLang::IllegalStateException) { client.sysread(100) }
      assert_equal "injected at tls:unwrapped", error.message
      assert_equal "first record", client.sysread(100)
      server.write("second")
      assert_equal "second", client.sysread(100)
    end
  end

  def test_a_write_interrupted_before_the_engine_takes_anything_sends_it_once
    skip "needs the test build's fault sites (rake test_builds)" unless FAULTS
    with_pair do |client, server|
      data = Random.bytes(200_000)
      FAULTS.failAt("seal", 1)
      assert_raises(Java::JavaLang::IllegalStateException) { client.syswrite(data) }
      FAULTS.clear
      client.write(data)
      client.write("end")
      assert_equal data + "end", server.read(data.bytesize + 3)
    end
  end

  def test_uninstall_gives_stock_and_install_takes_over_again
    FastRandom::TLS.uninstall
    refute FastRandom::TLS.installed?
    assert_equal "FastRandom::TLS.uninstall was called", FastRandom::TLS.problem
    counts = served do
      with_pair do |client, server|
        client.write("stock")
        assert_equal "stock", server.sysread(5)
      end
    end
    assert_equal 0, counts[:reads] + counts[:writes]
    assert FastRandom::TLS.install
    assert FastRandom::TLS.installed?
    assert_nil FastRandom::TLS.problem
  end

  def test_calls_before_the_handshake_are_stock
    tcp = TCPServer.new("127.0.0.1", 0)
    plain = TCPSocket.new("127.0.0.1", tcp.addr[1])
    peer = tcp.accept
    socket = SSL::SSLSocket.new(plain)
    peer.write("raw")
    counts = served { assert_equal "raw", socket.sysread(3) } # no engine yet: the plain socket's bytes, as stock
    assert_equal 1, counts[:stock_calls]
    assert_equal 0, counts[:reads]
  ensure
    [tcp, plain, peer].each { |io| io&.close }
  end

  def test_fast_random_tls_0_leaves_it_stock
    script = 'require "fast_random"; require "openssl"; p [FastRandom::TLS.installed?, FastRandom::TLS.problem]'
    out, status = Open3.capture2e({ "FAST_RANDOM_TLS" => "0" }, *TestHelper.jruby_command, "-e", script)
    assert status.success?, out
    assert_equal "[false, \"FAST_RANDOM_TLS=0 leaves it jruby-openssl's\"]\n", out
  end
end
