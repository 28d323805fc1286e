package org.jruby.ext.fastrandom;

import java.util.Base64;

import org.jruby.Ruby;
import org.jruby.RubyHash;
import org.jruby.RubyInteger;
import org.jruby.RubyModule;
import org.jruby.RubyString;
import org.jruby.RubySymbol;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;
import org.jruby.util.ByteList;

import fastrandom.tls.TlsStats;

/**
 * The TLS data path's check at its first use, on a jruby-openssl release
 * the suite has not run on ({@link TlsModule#checkFirstUse}): a connection
 * to itself over loopback, both ends jruby-openssl's {@code SSLSocket} in
 * this runtime (the server on {@link OpenSSLChecks}'s P-256 certificate and
 * key), driven from this thread without blocking, through the socket's
 * Java methods alone (none of its Ruby files' methods). 64 KiB each way,
 * sent with {@code syswrite_nonblock} and read with
 * {@code sysread_nonblock} (into a buffer on the client), must come out as
 * it went in; a read with nothing to read must say {@code :wait_readable};
 * the client's {@code stop} (its close_notify) must read as the end, nil,
 * on the server; and fast_random's data path must have served the calls.
 */
final class TlsCheck {
    private static final int SIZE = 64 * 1024;
    private static final long DEADLINE_NANOS = 10_000_000_000L;
    private static final long END_NANOS = 2_000_000_000L;

    private TlsCheck() {}

    /** Null when the data path answers right, else what failed. */
    static String run(ThreadContext context) {
        Ruby runtime = context.runtime;
        runtime.getLoadService().require("socket");
        IRubyObject listener = call(context, runtime.getClassFromPath("TCPServer"), "new", runtime.newString("127.0.0.1"), runtime.newFixnum(0));
        IRubyObject clientIO = null;
        IRubyObject serverIO = null;
        long servedBefore = TlsStats.reads() + TlsStats.writes();
        try {
            IRubyObject port = listener.callMethod(context, "addr").callMethod(context, "[]", runtime.newFixnum(1));
            clientIO = call(context, runtime.getClassFromPath("TCPSocket"), "new", runtime.newString("127.0.0.1"), port);
            serverIO = listener.callMethod(context, "accept");
            RubyModule contextClass = runtime.getClassFromPath("OpenSSL::SSL::SSLContext");
            IRubyObject serverContext = contextClass.callMethod(context, "new");
            IRubyObject certificate = runtime.getClassFromPath("OpenSSL::X509::Certificate").callMethod(context, "new",
                    RubyString.newStringNoCopy(runtime, Base64.getDecoder().decode(OpenSSLChecks.P256_CERTIFICATE)));
            serverContext.callMethod(context, "cert=", certificate);
            serverContext.callMethod(context, "key=", OpenSSLChecks.p256Key(context));
            IRubyObject clientContext = contextClass.callMethod(context, "new");
            clientContext.callMethod(context, "verify_mode=", runtime.newFixnum(0)); // VERIFY_NONE: the certificate is a CA's
            RubyModule socketClass = runtime.getClassFromPath(SSLSocketMethods.CLASS);
            IRubyObject client = call(context, socketClass, "new", clientIO, clientContext);
            IRubyObject server = call(context, socketClass, "new", serverIO, serverContext);
            RubyHash noException = RubyHash.newHash(runtime);
            noException.fastASet(runtime.newSymbol("exception"), context.fals);

            long deadline = System.nanoTime() + DEADLINE_NANOS;
            boolean connected = false;
            boolean accepted = false;
            while (!(connected && accepted)) {
                if (System.nanoTime() > deadline) return "the handshake with itself did not finish in 10 s";
                if (!connected) connected = !(client.callMethod(context, "connect_nonblock", noException) instanceof RubySymbol);
                if (!accepted) accepted = !(server.callMethod(context, "accept_nonblock", noException) instanceof RubySymbol);
            }

            byte[] toServer = pattern(7);
            byte[] toClient = pattern(11);
            ByteList fromClient = new ByteList();
            ByteList fromServer = new ByteList();
            RubyString buffer = RubyString.newString(runtime, new ByteList());
            int sentToServer = 0;
            int sentToClient = 0;
            while (fromClient.getRealSize() < SIZE || fromServer.getRealSize() < SIZE) {
                if (System.nanoTime() > deadline) return "64 KiB each way did not arrive in 10 s";
                sentToServer += send(context, client, toServer, sentToServer, noException);
                sentToClient += send(context, server, toClient, sentToClient, noException);
                IRubyObject read = call(context, server, "sysread_nonblock", runtime.newFixnum(16384), noException);
                if (read instanceof RubyString) fromClient.append(((RubyString) read).getByteList());
                else if (read.isNil()) return "sysread_nonblock on the server said the end before it came";
                read = call(context, client, "sysread_nonblock", runtime.newFixnum(16384), buffer, noException);
                if (read instanceof RubyString) {
                    if (read != buffer) return "sysread_nonblock with a buffer returned another String";
                    fromServer.append(buffer.getByteList());
                } else if (read.isNil()) {
                    return "sysread_nonblock on the client said the end before it came";
                }
            }
            if (!new ByteList(toServer, false).equals(fromClient)) return "what the client sent is not what the server read";
            if (!new ByteList(toClient, false).equals(fromServer)) return "what the server sent is not what the client read";
            IRubyObject nothing = call(context, server, "sysread_nonblock", runtime.newFixnum(1), noException);
            if (!(nothing instanceof RubySymbol) || !"wait_readable".equals(nothing.toString())) {
                return "sysread_nonblock with nothing to read gave " + nothing.inspect() + ", not :wait_readable";
            }
            client.callMethod(context, "stop");
            long endDeadline = System.nanoTime() + END_NANOS; // loopback: the close_notify is there within milliseconds
            IRubyObject end;
            while (true) {
                end = call(context, server, "sysread_nonblock", runtime.newFixnum(1), noException);
                if (!(end instanceof RubySymbol) || System.nanoTime() > endDeadline) break;
                Thread.yield();
            }
            if (!end.isNil()) return "sysread_nonblock after the client's close_notify gave " + end.inspect() + ", not nil";
            if (TlsStats.reads() + TlsStats.writes() == servedBefore) return "SSLSocket's reads and writes did not reach fast_random's data path";
            return null;
        } finally {
            for (IRubyObject io : new IRubyObject[] {clientIO, serverIO, listener}) {
                if (io != null) io.callMethod(context, "close");
            }
        }
    }

    /** Sends what the socket takes now of {@code data} past {@code from}: the bytes taken. */
    private static int send(ThreadContext context, IRubyObject socket, byte[] data, int from, RubyHash noException) {
        if (from == data.length) return 0;
        RubyString rest = RubyString.newStringNoCopy(context.runtime, data, from, data.length - from);
        IRubyObject written = call(context, socket, "syswrite_nonblock", rest, noException);
        return written instanceof RubyInteger ? ((RubyInteger) written).getIntValue() : 0;
    }

    private static IRubyObject call(ThreadContext context, IRubyObject receiver, String name, IRubyObject... args) {
        return receiver.callMethod(context, name, args);
    }

    private static byte[] pattern(int step) {
        byte[] bytes = new byte[SIZE];
        for (int i = 0; i < SIZE; i++) bytes[i] = (byte) (i * step + (i >>> 8));
        return bytes;
    }
}
