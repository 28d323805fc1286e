package fastrandom.tls;

import java.util.concurrent.atomic.LongAdder;

/**
 * What fast_random's data path served, over the class loader its jar is
 * in: calls, and the bytes of application data they returned or took;
 * waits (a blocking call that found the socket unable to go on); and calls
 * handed to jruby-openssl's own method (a call the data path leaves to
 * it: not yet connected, in the initial handshake, a closed IO or one that
 * is not a non-blocking socket channel, arguments that are not an Integer
 * and a String, empty reads and writes, a failed check at first use).
 * And which engine each connection's handshake started on: the OpenSSL
 * engine, or JSSE (jruby-openssl's own).
 */
public final class TlsStats {
    private static final LongAdder READS = new LongAdder();
    private static final LongAdder READ_BYTES = new LongAdder();
    private static final LongAdder WRITES = new LongAdder();
    private static final LongAdder WRITTEN_BYTES = new LongAdder();
    private static final LongAdder WAITS = new LongAdder();
    private static final LongAdder STOCK_CALLS = new LongAdder();
    private static final LongAdder OPENSSL_CONNECTIONS = new LongAdder();
    private static final LongAdder JSSE_CONNECTIONS = new LongAdder();

    private TlsStats() {}

    /** A read that returned {@code bytes} of application data (0: at the end, or would block). */
    public static void read(int bytes) {
        READS.increment();
        if (bytes > 0) READ_BYTES.add(bytes);
    }

    /** A write that took {@code bytes} of application data. */
    public static void wrote(int bytes) {
        WRITES.increment();
        if (bytes > 0) WRITTEN_BYTES.add(bytes);
    }

    /** A blocking call that waited for its socket. */
    public static void waited() {
        WAITS.increment();
    }

    /** A call handed to jruby-openssl's own method. */
    public static void stock() {
        STOCK_CALLS.increment();
    }

    /** A connection whose handshake starts on the OpenSSL engine. */
    public static void openssl() {
        OPENSSL_CONNECTIONS.increment();
    }

    /** A connection whose handshake starts on JSSE. */
    public static void jsse() {
        JSSE_CONNECTIONS.increment();
    }

    public static long opensslConnections() { return OPENSSL_CONNECTIONS.sum(); }

    public static long jsseConnections() { return JSSE_CONNECTIONS.sum(); }

    public static long reads() { return READS.sum(); }

    public static long readBytes() { return READ_BYTES.sum(); }

    public static long writes() { return WRITES.sum(); }

    public static long writtenBytes() { return WRITTEN_BYTES.sum(); }

    public static long waits() { return WAITS.sum(); }

    public static long stockCalls() { return STOCK_CALLS.sum(); }
}
