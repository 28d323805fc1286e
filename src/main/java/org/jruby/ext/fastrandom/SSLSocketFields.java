package org.jruby.ext.fastrandom;

import static org.jruby.ext.fastrandom.Reflection.get;
import static org.jruby.ext.fastrandom.Reflection.method;
import static org.jruby.ext.fastrandom.Reflection.set;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.channels.Channel;
import java.nio.channels.SocketChannel;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;

import org.jruby.Ruby;
import org.jruby.RubyBasicObject;
import org.jruby.RubyIO;
import org.jruby.exceptions.RaiseException;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;

import fastrandom.tls.Connection;
import fastrandom.tls.Writes;

/**
 * What {@link SSLSocketMethods} reads and calls of jruby-openssl's
 * {@code OpenSSL::SSL::SSLSocket} (its Java class,
 * {@code org.jruby.ext.openssl.SSLSocket}): the engine, the IO, the three
 * buffers and the handshake's state, and the socket's own steps for what
 * the data path leaves to it (the handshake's work after a record, the
 * shutdown after close_notify, the wait for the socket, the
 * {@code SSLErrorWait*} errors). The same names in every release from
 * 0.15.0 to 0.16.2; a release without them leaves SSLSocket stock
 * ({@link JRubyOpenSsl#require} says so). Where a read hands a record's
 * work to the handshake step, stock 0.15 passed {@code exception: true}
 * whatever the call's; fast_random passes the call's own, as 0.16 does.
 */
final class SSLSocketFields {
    private static final String SOCKET_CLASS = "org.jruby.ext.openssl.SSLSocket";
    private static final String SSL_CLASS = "org.jruby.ext.openssl.SSL";
    /** Where a socket's {@link Writes} are kept, on it. */
    private static final String WRITES = "fast_random_tls_writes";

    private final Class<?> type;
    private final Field engine;
    private final Field io;
    private final Field appReadData;
    private final Field netReadData;
    private final Field netWriteData;
    private final Field initialHandshake;
    private final Field status;
    private final Field handshakeStatus;
    private final Method waitSelect;
    /** {@code doHandshake(boolean blocking, boolean exception)}. */
    private final Method doHandshake;
    private final Method doShutdown;
    private final Method closeInbound;
    private final Method finishInitialHandshake;
    private final Method waitReadable;
    private final Method waitWritable;

    private SSLSocketFields(ClassLoader loader) throws ReflectiveOperationException {
        type = Class.forName(SOCKET_CLASS, false, loader);
        engine = field("engine", SSLEngine.class);
        io = field("io", RubyIO.class);
        appReadData = field("appReadData", ByteBuffer.class);
        netReadData = field("netReadData", ByteBuffer.class);
        netWriteData = field("netWriteData", ByteBuffer.class);
        initialHandshake = field("initialHandshake", boolean.class);
        status = field("status", SSLEngineResult.Status.class);
        handshakeStatus = field("handshakeStatus", SSLEngineResult.HandshakeStatus.class);
        waitSelect = method(type, "waitSelect", int.class, boolean.class, boolean.class);
        doHandshake = method(type, "doHandshake", boolean.class, boolean.class);
        doShutdown = method(type, "doShutdown");
        closeInbound = method(type, "closeInbound");
        finishInitialHandshake = method(type, "finishInitialHandshake");
        Class<?> ssl = Class.forName(SSL_CLASS, false, loader);
        waitReadable = method(ssl, "newSSLErrorWaitReadable", Ruby.class, String.class);
        waitWritable = method(ssl, "newSSLErrorWaitWritable", Ruby.class, String.class);
        if (!Modifier.isStatic(waitReadable.getModifiers()) || !Modifier.isStatic(waitWritable.getModifiers())) {
            throw new NoSuchMethodException(SSL_CLASS + "'s SSLErrorWait* factories are not static");
        }
    }

    /** jruby-openssl's, from {@code loader}; throws {@link JRubyOpenSsl.Unusable} saying what it lacks. */
    static SSLSocketFields of(ClassLoader loader) {
        try {
            return new SSLSocketFields(loader);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new JRubyOpenSsl.Unusable("jruby-openssl has no " + missing(e) + ", which fast_random's TLS needs");
        }
    }

    /** What {@link #of} would say is missing (named as a thing jruby-openssl has no), or null. */
    static String missing(ClassLoader loader) {
        try {
            new SSLSocketFields(loader);
            return null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return missing(e);
        }
    }

    private static String missing(Exception e) {
        if (e instanceof ClassNotFoundException) return e.getMessage();
        return SOCKET_CLASS + "'s engine, io, buffers, handshake state and steps (" + e.getMessage() + ")";
    }

    private Field field(String name, Class<?> expected) throws NoSuchFieldException {
        return Reflection.field(type, name, expected);
    }


    /**
     * The connection behind {@code self} for one call, or null where the
     * data path leaves the call to jruby-openssl's own method: no engine
     * yet (not connected, or a plain socket's calls), the initial
     * handshake, a closed IO, or one that is not a non-blocking socket
     * channel.
     */
    SocketConnection connection(ThreadContext context, IRubyObject self, boolean blocking, boolean exception) {
        if (!type.isInstance(self)) return null;
        SSLEngine sslEngine = (SSLEngine) get(engine, self);
        if (sslEngine == null || (Boolean) get(initialHandshake, self)) return null;
        RubyIO rubyIO = (RubyIO) get(io, self);
        if (rubyIO == null || rubyIO.isClosed()) return null; // stock's errors for a closed IO (EBADF for a read)
        Channel channel = rubyIO.getChannel();
        if (!(channel instanceof SocketChannel) || ((SocketChannel) channel).isBlocking()) return null;
        return new SocketConnection(context, self, sslEngine, rubyIO, (SocketChannel) channel, blocking, exception);
    }

    /** Whether {@code self} has its engine already (connect or accept has begun). */
    boolean hasEngine(IRubyObject self) {
        return type.isInstance(self) && get(engine, self) != null;
    }

    /** The engine of {@code self}, or null. */
    SSLEngine engine(IRubyObject self) {
        return type.isInstance(self) ? (SSLEngine) get(engine, self) : null;
    }

    /**
     * Gives {@code self}, which has no engine yet, {@code sslEngine} and the
     * three buffers sized for it, as jruby-openssl's own setup does for the
     * engine it makes (which then finds this one and keeps it). Direct
     * buffers: BoringSSL reads and writes them in place, where it copies a
     * heap buffer's bytes through a direct one of its own each call (JSSE's
     * engine is the other way round: its AES-GCM runs on arrays).
     */
    void giveEngine(IRubyObject self, SSLEngine sslEngine) {
        javax.net.ssl.SSLSession session = sslEngine.getSession();
        set(netReadData, self, emptyDirect(session.getPacketBufferSize()));
        set(appReadData, self, emptyDirect(session.getApplicationBufferSize()));
        set(netWriteData, self, emptyDirect(session.getPacketBufferSize()));
        set(engine, self, sslEngine);
    }

    private static ByteBuffer emptyDirect(int capacity) {
        ByteBuffer buffer = ByteBuffer.allocateDirect(capacity);
        buffer.limit(0);
        return buffer;
    }

    /** The port of the peer of {@code self}'s socket, or 0 where it has none. */
    int remotePort(IRubyObject self) {
        RubyIO rubyIO = (RubyIO) get(io, self);
        Channel channel = rubyIO == null ? null : rubyIO.getChannel();
        if (!(channel instanceof SocketChannel)) return 0;
        try {
            java.net.SocketAddress address = ((SocketChannel) channel).getRemoteAddress();
            return address instanceof java.net.InetSocketAddress ? ((java.net.InetSocketAddress) address).getPort() : 0;
        } catch (IOException e) {
            return 0;
        }
    }


    /** Calls one of jruby-openssl's own steps, its exceptions (Ruby's, IOExceptions) passed on as they are. */
    private static Object invoke(Method method, Object self, Object... args) throws IOException {
        try {
            return method.invoke(self, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException) throw (IOException) cause;
            if (cause instanceof RuntimeException) throw (RuntimeException) cause;
            if (cause instanceof Error) throw (Error) cause;
            throw new IllegalStateException(cause);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e); // made accessible
        }
    }

    /** One jruby-openssl socket, for one call of fast_random's data path. */
    final class SocketConnection implements Connection {
        final ThreadContext context;
        final IRubyObject self;
        final SSLEngine engine;
        final RubyIO io;
        final SocketChannel channel;
        final boolean blocking;
        final boolean exception;

        SocketConnection(ThreadContext context, IRubyObject self, SSLEngine engine, RubyIO io, SocketChannel channel,
                         boolean blocking, boolean exception) {
            this.context = context;
            this.self = self;
            this.engine = engine;
            this.io = io;
            this.channel = channel;
            this.blocking = blocking;
            this.exception = exception;
        }

        @Override public SSLEngine engine() { return engine; }

        @Override public SocketChannel channel() { return channel; }

        @Override public ByteBuffer appRead() { return (ByteBuffer) get(appReadData, self); }

        @Override public void appRead(ByteBuffer larger) { set(appReadData, self, larger); }

        @Override public ByteBuffer netRead() { return (ByteBuffer) get(netReadData, self); }

        @Override public void netRead(ByteBuffer larger) { set(netReadData, self, larger); }

        @Override public ByteBuffer netWrite() { return (ByteBuffer) get(netWriteData, self); }

        @Override public void netWrite(ByteBuffer larger) { set(netWriteData, self, larger); }

        @Override
        public void unwrapped(SSLEngineResult result) {
            set(status, self, result.getStatus());
            set(handshakeStatus, self, result.getHandshakeStatus());
            if (result.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.FINISHED) {
                try {
                    invoke(finishInitialHandshake, self);
                } catch (IOException e) {
                    throw new IllegalStateException(e); // it throws none
                }
            }
        }

        @Override
        public Writes writes() {
            RubyBasicObject socket = (RubyBasicObject) self;
            Object writes = socket.getInternalVariable(WRITES);
            if (writes != null) return (Writes) writes;
            synchronized (socket) { // once a socket
                writes = socket.getInternalVariable(WRITES);
                if (writes == null) socket.setInternalVariable(WRITES, writes = new Writes());
                return (Writes) writes;
            }
        }

        @Override
        public void handshake() throws IOException {
            if ((Boolean) get(initialHandshake, self)) return;
            invoke(doHandshake, self, blocking, exception);
        }

        @Override
        public void shutdown() throws IOException {
            invoke(doShutdown, self);
        }

        @Override
        public void closeInbound() {
            try {
                invoke(closeInbound, self);
            } catch (IOException e) {
                throw new IllegalStateException(e); // it throws none
            }
        }

        /**
         * Waits, as jruby-openssl's socket waits, until the socket can do
         * one of {@code operations} ({@code SelectionKey.OP_READ},
         * {@code OP_WRITE}): interrupted by {@code Thread#raise},
         * {@code #kill} and {@code Timeout}, as stock's blocking calls are.
         */
        void waitFor(int operations) throws IOException {
            invoke(waitSelect, self, operations, true, exception);
        }

        /** jruby-openssl's {@code SSLErrorWaitReadable} ("read would block") or {@code SSLErrorWaitWritable} ("write would block"). */
        RaiseException wouldBlock(boolean write) {
            try {
                return (RaiseException) invoke(write ? waitWritable : waitReadable, null, context.runtime,
                        write ? "write would block" : "read would block");
            } catch (IOException e) {
                throw new IllegalStateException(e); // it throws none
            }
        }
    }
}
