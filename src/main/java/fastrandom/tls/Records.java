package fastrandom.tls;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;

import fastrandom.Faults;

/**
 * Application data through a {@link Connection}, never blocking: the
 * bindings try these first and wait for the socket only when one says it
 * can make no progress.
 *
 * <p>Reading decrypts one record at a time into the connection's own
 * buffer and reads the socket only when no whole record is there; writing
 * seals several records into the connection's buffer and sends them with
 * one write. The buffers are the JVM heap's: the JDK's GCM seals into and
 * opens from heap buffers faster than direct ones (its intrinsics work on
 * arrays), more than the copy through the JDK's cached direct buffer that
 * a heap buffer's socket write costs (docs/tls.md).
 *
 * <p>What a record's bytes went through is never lost: plaintext the
 * engine produced stays in the connection's read buffer until a read
 * returns it, and records sealed stay in its write buffer, in order, until
 * the socket takes them, whatever interrupts a call.
 */
public final class Records {
    /** {@link #fill}: the socket has nothing more now. */
    public static final int WOULD_BLOCK = 0;
    /** {@link #fill}: the connection's end (close_notify, or the socket's end). */
    public static final int END = -1;
    /** The records sealed for one socket write. */
    static final int RECORDS_PER_WRITE = 4;

    private Records() {}

    /**
     * Makes decrypted data ready in the connection's read buffer: returns
     * how many bytes are there (at least 1), {@link #END}, or
     * {@link #WOULD_BLOCK} when the socket holds no more of a record now.
     * A record of the handshake's (a session ticket, a KeyUpdate) is handed
     * to the connection's handshake step, as its own code does, and the
     * next record read.
     */
    public static int fill(Connection connection) throws IOException {
        ByteBuffer app = connection.appRead();
        if (app.hasRemaining()) return app.remaining();
        SSLEngine engine = connection.engine();
        while (true) {
            if (engine.isInboundDone()) return END;
            ByteBuffer net = connection.netRead();
            if (net.position() > 0) {
                SSLEngineResult result = unwrap(connection, engine, net, app);
                app = connection.appRead();
                switch (result.getStatus()) {
                    case CLOSED: // the peer's close_notify
                        connection.shutdown();
                        return END;
                    case BUFFER_OVERFLOW:
                        int needed = Math.max(engine.getSession().getApplicationBufferSize(), 2 * app.capacity());
                        connection.appRead((ByteBuffer) ByteBuffer.allocate(needed).limit(0));
                        app = connection.appRead();
                        continue;
                    case BUFFER_UNDERFLOW: // part of a record: the rest is on its way
                        int packet = engine.getSession().getPacketBufferSize();
                        if (net.capacity() < packet) {
                            ByteBuffer larger = ByteBuffer.allocate(packet);
                            net.flip();
                            larger.put(net);
                            connection.netRead(larger);
                            net = larger;
                        }
                        break;
                    default: // OK
                        HandshakeStatus status = result.getHandshakeStatus();
                        if (status == HandshakeStatus.NEED_TASK || status == HandshakeStatus.NEED_WRAP
                                || status == HandshakeStatus.FINISHED) {
                            if (!handshake(connection, engine)) return END;
                            app = connection.appRead();
                        }
                        if (app.hasRemaining()) return app.remaining();
                        continue; // a handshake message, or an empty record: the next one
                }
            }
            int read = connection.channel().read(net);
            if (read > 0) continue;
            if (read == 0) return WOULD_BLOCK;
            connection.closeInbound(); // the socket's end, with no whole record left
            return END;
        }
    }

    /**
     * The connection's own handshake step, for what a record left to do (a
     * KeyUpdate to answer, a TLS 1.2 renegotiation, which reads records of
     * its own): false when the connection is at its end after it. That step
     * leaves the buffers as it likes where it stops early (an alert, a
     * record that does not authenticate, the peer's close_notify): nothing
     * it may have left in the read buffer is returned then, and bytes not
     * yet decrypted are dropped, as the engine takes no more.
     */
    private static boolean handshake(Connection connection, SSLEngine engine) throws IOException {
        try {
            connection.handshake(); // a Ruby exception from its wait (non-blocking) leaves the buffers as they were
        } catch (IOException e) {
            discardReads(connection);
            throw e;
        }
        if (!engine.isInboundDone()) return true;
        discardReads(connection);
        return false;
    }

    /** Nothing left to read: the engine takes no more records. */
    private static void discardReads(Connection connection) {
        connection.appRead().clear().limit(0);
        connection.netRead().clear();
    }

    /**
     * One record from the connection's socket bytes into its read buffer
     * (emptied first). Both buffers are left in their modes whatever
     * happens: an engine that refuses the record (a bad MAC, an alert)
     * leaves nothing readable, and the connection's own code finds them as
     * it keeps them.
     */
    private static SSLEngineResult unwrap(Connection connection, SSLEngine engine, ByteBuffer net, ByteBuffer app) throws IOException {
        net.flip();
        app.clear();
        boolean unwrapped = false;
        SSLEngineResult result;
        try {
            result = engine.unwrap(net, app);
            unwrapped = true;
            connection.unwrapped(result);
        } finally {
            net.compact();
            if (unwrapped) app.flip();
            else app.limit(0);
        }
        Faults.at("tls:unwrapped"); // tests: a call interrupted once the engine has opened a record
        return result;
    }

    /**
     * Sends what the connection holds back for the socket; true once none
     * is left. A socket error leaves none (those bytes cannot go anywhere
     * else: the connection's own code drops them too).
     */
    public static boolean flush(Connection connection) throws IOException {
        ByteBuffer out = connection.netWrite();
        if (!out.hasRemaining()) return true;
        SocketChannel channel = connection.channel();
        try {
            while (out.hasRemaining()) {
                if (channel.write(out) == 0) return false;
            }
            return true;
        } catch (IOException e) {
            out.position(out.limit());
            throw e;
        }
    }

    /**
     * Seals up to {@link #RECORDS_PER_WRITE} records of {@code data} (from
     * its position, at most {@code max} bytes) and sends them with one socket
     * write; what the socket does not take stays in the connection's write
     * buffer, for {@link #flush}. The connection's write buffer must be
     * empty ({@link #flush} returned true). Returns the bytes of
     * {@code data} sealed (0 when the engine takes none now); throws
     * {@link EngineClosedException} when the engine is closed before it
     * took any.
     */
    public static int seal(Connection connection, ByteBuffer data, int max) throws IOException {
        Faults.at("tls:seal"); // tests: a call interrupted before the engine takes anything
        SSLEngine engine = connection.engine();
        int packet = engine.getSession().getPacketBufferSize();
        ByteBuffer out = connection.netWrite();
        int wanted = Math.min(RECORDS_PER_WRITE, 1 + (Math.min(max, data.remaining()) - 1) / 16384) * packet;
        if (out.capacity() < wanted) {
            out = (ByteBuffer) ByteBuffer.allocate(wanted).limit(0);
            connection.netWrite(out);
        }
        out.clear();
        int limit = data.limit();
        data.limit(data.position() + Math.min(max, data.remaining()));
        int sealed = 0;
        try {
            while (data.hasRemaining() && out.remaining() >= packet) {
                SSLEngineResult result = engine.wrap(data, out);
                if (result.getStatus() == SSLEngineResult.Status.CLOSED) {
                    if (sealed == 0 && result.bytesProduced() == 0) throw new EngineClosedException();
                    break;
                }
                sealed += result.bytesConsumed();
                if (result.getHandshakeStatus() == HandshakeStatus.NEED_TASK) runTasks(engine);
                if (result.getStatus() != SSLEngineResult.Status.OK) break;
                if (result.bytesConsumed() == 0 && result.bytesProduced() == 0) break; // the engine waits for the peer
            }
        } finally {
            data.limit(limit);
            out.flip();
        }
        flush(connection);
        return sealed;
    }

    private static void runTasks(SSLEngine engine) {
        for (Runnable task; (task = engine.getDelegatedTask()) != null; ) task.run();
    }

    /** The engine takes no more application data: it is closed. */
    public static final class EngineClosedException extends IOException {
        private static final long serialVersionUID = 1L;

        EngineClosedException() {
            super("closed SSL engine");
        }
    }
}
