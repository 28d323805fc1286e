package fastrandom.tls;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;

/**
 * One TLS connection as {@link Records} sees it: its engine, its socket
 * (non-blocking), and the three buffers it keeps between calls, which the
 * connection's own code (the handshake, the shutdown, {@code pending}) uses
 * too, so that both keep one state:
 * <ul>
 * <li>{@link #appRead()}: decrypted data not yet returned, in read mode
 * (position to limit);
 * <li>{@link #netRead()}: bytes read from the socket and not yet decrypted,
 * in fill mode (zero to position), always starting at a record;
 * <li>{@link #netWrite()}: encrypted bytes not yet sent, in read mode.
 * </ul>
 * The operations are the connection's own: a record may need the
 * handshake's machinery (a TLS 1.3 KeyUpdate to answer, a session ticket's
 * tasks), and the end of a connection its shutdown.
 */
public interface Connection {
    /** The engine. */
    SSLEngine engine();

    /** The socket, in non-blocking mode. */
    SocketChannel channel();

    /** Decrypted data not yet returned (read mode). */
    ByteBuffer appRead();

    /** Replaces the decrypted-data buffer with a larger one holding nothing (read mode, empty). */
    void appRead(ByteBuffer larger);

    /** Bytes from the socket not yet decrypted (fill mode). */
    ByteBuffer netRead();

    /** Replaces the socket-bytes buffer with a larger one, holding what the old one held (fill mode). */
    void netRead(ByteBuffer larger);

    /** Encrypted bytes not yet sent (read mode). */
    ByteBuffer netWrite();

    /** Replaces the encrypted-bytes buffer with a larger one (read mode, what the old one held kept). */
    void netWrite(ByteBuffer larger);

    /** Records the engine's answer to an unwrap, as the connection's own code would. */
    void unwrapped(SSLEngineResult result);

    /** What the connection's writes share between calls and threads. */
    Writes writes();

    /** The connection's own handshake step, for the work a record left (delegated tasks, a message to send). */
    void handshake() throws IOException;

    /** The connection's own shutdown, after the peer's close_notify: its own close_notify, where it can go. */
    void shutdown() throws IOException;

    /** The engine told that the socket is at its end (without close_notify, an error the connection ignores). */
    void closeInbound();
}
