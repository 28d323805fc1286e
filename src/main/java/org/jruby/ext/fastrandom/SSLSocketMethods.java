package org.jruby.ext.fastrandom;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.util.Collections;

import org.jcodings.specific.ASCIIEncoding;
import org.jruby.Ruby;
import org.jruby.RubyClass;
import org.jruby.RubyFixnum;
import org.jruby.RubyHash;
import org.jruby.RubyModule;
import org.jruby.RubyString;
import org.jruby.anno.JRubyMethod;
import org.jruby.exceptions.RaiseException;
import org.jruby.runtime.Block;
import org.jruby.runtime.ThreadContext;
import org.jruby.runtime.builtin.IRubyObject;
import org.jruby.util.ByteList;

import fastrandom.tls.Records;
import fastrandom.tls.TlsStats;
import fastrandom.tls.Writes;

/**
 * {@code OpenSSL::SSL::SSLSocket}'s data path in place of jruby-openssl's:
 * {@code sysread}, {@code sysread_nonblock}, {@code syswrite} and
 * {@code syswrite_nonblock}, which its Ruby buffering layer
 * ({@code read}, {@code readpartial}, {@code read_nonblock}, {@code gets},
 * {@code write}, {@code write_nonblock}...) and so Net::HTTP call for each
 * chunk. On the same {@code SSLEngine}, socket and buffers as
 * jruby-openssl's own code ({@link SSLSocketFields}), through
 * {@link Records}:
 * <ul>
 * <li>a read decrypts into the socket's own buffer and copies into the
 * caller's buffer String when one is given (else into a String of the
 * bytes read): no buffer of the requested size a call;
 * <li>each call tries the socket first, without blocking, and waits (with
 * jruby-openssl's own wait, so {@code Thread#raise}, {@code Timeout} and
 * {@code IO.select} behave as stock's) only when the socket can make no
 * progress, where jruby-openssl selects before every call;
 * <li>a write seals up to four records for each socket write, and takes up
 * to 1 MiB a call, where jruby-openssl takes one record; a blocking write
 * returns once the socket has every record it sealed (waiting for it, where
 * jruby-openssl spins); a non-blocking one seals a record at a time and
 * says written only the records the socket took whole: one it took in part
 * is kept, in order, and the retry with the same data (OpenSSL's
 * contract for {@code SSL_write}, and so MRI's) is told it went; so is the
 * retry of a blocking write interrupted while it waits ({@link Writes});
 * <li>a read sends what a write left for the socket first, as stock 0.16
 * does, unless a write on another thread holds the write buffer.
 * </ul>
 * Results are stock's: the same Strings (binary, a given buffer reused and
 * returned), {@code :wait_readable}/{@code :wait_writable} or
 * jruby-openssl's own {@code SSLErrorWait*} errors, EOFError or nil at the
 * end, IOError for a closed stream or engine, and for socket errors the
 * Errno or IOError jruby-openssl raises. What
 * differs is what stock loses: decrypted data not yet read is returned
 * before the end is, a frozen buffer is refused before anything is read,
 * and a non-blocking write that finds encrypted data still waiting for the
 * socket says {@code :wait_writable} (as MRI does) where stock 0.16 takes
 * nothing and returns 0, and 0.15 drops the data waiting.
 *
 * <p>Calls in any other state go to jruby-openssl's method, as they are:
 * before the connection's engine exists (a plain socket's sysread), during
 * the initial handshake, an IO that is not a non-blocking socket channel,
 * arguments that are not an Integer and a String (conversions and errors
 * stock's), and empty reads and writes.
 */
public final class SSLSocketMethods {
    static final String CLASS = "OpenSSL::SSL::SSLSocket";
    static final String[] NAMES = {"sysread", "sysread_nonblock", "syswrite", "syswrite_nonblock",
        "connect", "connect_nonblock", "accept", "accept_nonblock", "session_reused?"};
    /** Where a class's {@link Hooks} are kept, on it. */
    private static final String HOOKS = "fast_random_ssl_socket_hooks";
    /** The most one write call takes. */
    private static final int MOST_A_WRITE = 1 << 20;
    /** The most plaintext one TLS record holds. */
    private static final int RECORD = 16384;

    private SSLSocketMethods() {}

    /** What the replacements need, kept on the class whose methods they replace: one lookup a call. */
    private static final class Hooks {
        final RubyModule type;
        final StockMethods stock;
        final SSLSocketFields fields;
        /** On a release the suite has not run on: true until the first call has run the check ({@link #usable}). */
        private volatile boolean unchecked;
        /** The thread running the check, whose own calls go through; guarded by this. */
        private Thread checking;
        /** The check failed: jruby-openssl's methods are back, and calls still reaching these go to them. Set before unchecked is cleared. */
        private volatile boolean failed;

        Hooks(RubyModule type, StockMethods stock, SSLSocketFields fields, boolean unchecked) {
            this.type = type;
            this.stock = stock;
            this.fields = fields;
            this.unchecked = unchecked;
        }

        /**
         * Whether fast_random's data path may serve this call: at once once
         * checked (or where no check is needed); else the check runs first
         * ({@link TlsModule#checkFirstUse}: at load, jruby-openssl's Ruby
         * files, whose Buffering every SSLSocket's initialize needs, are not
         * loaded yet); other threads' calls meanwhile go to jruby-openssl's
         * methods, which share the sockets' state.
         */
        boolean usable(ThreadContext context) {
            if (!unchecked) return !failed;
            synchronized (this) {
                if (checking != null) return checking == Thread.currentThread(); // another thread's calls go to stock's meanwhile
                if (!unchecked) return !failed;
                checking = Thread.currentThread();
            }
            boolean passed = false;
            try {
                passed = TlsModule.checkFirstUse(context);
            } finally { // not held while the check runs Ruby code: Thread#raise and Timeout reach it
                synchronized (this) {
                    failed = !passed;
                    unchecked = false;
                    checking = null;
                }
            }
            return passed;
        }

        /** jruby-openssl's {@code name}. */
        IRubyObject call(ThreadContext context, IRubyObject self, String name, IRubyObject[] args) {
            TlsStats.stock();
            return stock.call(context, self, type, name, args);
        }
    }

    /**
     * Puts these methods on OpenSSL::SSL::SSLSocket in place of jruby-openssl's,
     * once; openssl must be loaded. On a release the suite has not run on
     * ({@code checkFirst}), the first call runs the data path's check.
     */
    static void install(Ruby runtime, boolean checkFirst) {
        RubyModule socket = runtime.getClassFromPath(CLASS);
        SSLSocketFields fields = SSLSocketFields.of(runtime.getJRubyClassLoader());
        StockMethods.install(socket, SSLSocketMethods.class, NAMES, Collections.emptySet(),
                stock -> socket.setInternalVariable(HOOKS, new Hooks(socket, stock, fields, checkFirst)));
    }

    /**
     * Runs the check a release the suite has not run on waits for, if it has
     * not run yet (FastRandom::TLS.installed? asks, so that it answers for
     * good); nothing to do otherwise.
     */
    static void checkIfPending(ThreadContext context) {
        Ruby runtime = context.runtime;
        if (!OpenSSLHook.defined(runtime, CLASS)) return;
        Object hooks = runtime.getClassFromPath(CLASS).getInternalVariable(HOOKS);
        if (hooks instanceof Hooks && installed(runtime)) ((Hooks) hooks).usable(context);
    }

    /** Gives OpenSSL::SSL::SSLSocket jruby-openssl's own methods back; nothing to do before an install. */
    static void uninstall(Ruby runtime) {
        if (OpenSSLHook.defined(runtime, CLASS)) StockMethods.uninstall(runtime.getClassFromPath(CLASS));
    }

    /** Whether fast_random's methods are in place on this runtime's SSLSocket now. */
    static boolean installed(Ruby runtime) {
        if (!OpenSSLHook.defined(runtime, CLASS)) return false;
        StockMethods kept = StockMethods.of(runtime.getClassFromPath(CLASS));
        return kept != null && !kept.replacedNames().isEmpty();
    }

    /** {@code connect}: the OpenSSL engine first, where it serves ({@link OpenSslEngines}), then jruby-openssl's. */
    @JRubyMethod(name = "connect", rest = true)
    public static IRubyObject connect(ThreadContext context, IRubyObject self, IRubyObject[] args, Block block) {
        return handshake(context, self, "connect", args, true);
    }

    /** {@code connect_nonblock(exception: true)}. */
    @JRubyMethod(name = "connect_nonblock", rest = true)
    public static IRubyObject connect_nonblock(ThreadContext context, IRubyObject self, IRubyObject[] args, Block block) {
        return handshake(context, self, "connect_nonblock", args, true);
    }

    /** {@code accept}. */
    @JRubyMethod(name = "accept", rest = true)
    public static IRubyObject accept(ThreadContext context, IRubyObject self, IRubyObject[] args, Block block) {
        return handshake(context, self, "accept", args, false);
    }

    /** {@code accept_nonblock(exception: true)}. */
    @JRubyMethod(name = "accept_nonblock", rest = true)
    public static IRubyObject accept_nonblock(ThreadContext context, IRubyObject self, IRubyObject[] args, Block block) {
        return handshake(context, self, "accept_nonblock", args, false);
    }

    private static IRubyObject handshake(ThreadContext context, IRubyObject self, String name, IRubyObject[] args, boolean client) {
        Hooks hooks = hooks(context, self, name);
        OpenSslEngines.prepare(context, self, hooks.fields, client);
        boolean raised = true;
        try {
            IRubyObject result = hooks.stock.call(context, self, hooks.type, name, args);
            raised = false;
            return result;
        } finally {
            OpenSslEngines.afterHandshakeStep(context, self, hooks.fields, raised);
        }
    }

    /**
     * {@code session_reused?}: on the OpenSSL engine, whether its handshake
     * resumed a session, true or false as MRI's (jruby-openssl's own reads
     * JSSE's session times, which BoringSSL's sessions keep in seconds);
     * on JSSE, jruby-openssl's.
     */
    @JRubyMethod(name = "session_reused?", rest = true)
    public static IRubyObject session_reused_p(ThreadContext context, IRubyObject self, IRubyObject[] args, Block block) {
        Hooks hooks = hooks(context, self, "session_reused?");
        Boolean reused = args.length == 0 ? OpenSslEngines.sessionReused(self, hooks.fields) : null;
        if (reused == null) return hooks.stock.call(context, self, hooks.type, "session_reused?", args);
        return context.runtime.newBoolean(reused);
    }

    /** Which engine {@code socket}'s connection runs on: "openssl", "jsse", or null before its handshake has begun. */
    static String engineOf(ThreadContext context, IRubyObject socket) {
        return OpenSslEngines.engineOf(socket, hooks(context, socket, "connect").fields);
    }

    /** {@code sysread(length)} and {@code sysread(length, buffer)}. */
    @JRubyMethod(name = "sysread", rest = true) // any arity: jruby-openssl's method checks it
    public static IRubyObject sysread(ThreadContext context, IRubyObject self, IRubyObject[] args, Block block) {
        Hooks hooks = hooks(context, self, "sysread");
        if (!hooks.usable(context)) return hooks.call(context, self, "sysread", args);
        IRubyObject read = null;
        if (args.length == 1 || args.length == 2) {
            read = read(context, self, hooks, args[0], args.length == 2 ? args[1] : context.nil, true, true);
        }
        return read != null ? read : hooks.call(context, self, "sysread", args);
    }

    /** {@code sysread_nonblock(length, buffer = nil, exception: true)}. */
    @JRubyMethod(name = "sysread_nonblock", rest = true)
    public static IRubyObject sysread_nonblock(ThreadContext context, IRubyObject self, IRubyObject[] args, Block block) {
        Hooks hooks = hooks(context, self, "sysread_nonblock");
        if (!hooks.usable(context)) return hooks.call(context, self, "sysread_nonblock", args);
        IRubyObject read = null;
        if (args.length == 1) {
            read = read(context, self, hooks, args[0], context.nil, false, true);
        } else if (args.length == 2 && args[1] instanceof RubyHash) {
            read = read(context, self, hooks, args[0], context.nil, false, exception(context, args[1]));
        } else if (args.length == 2) {
            read = read(context, self, hooks, args[0], args[1], false, true);
        } else if (args.length == 3) {
            read = read(context, self, hooks, args[0], args[1], false, exception(context, args[2]));
        }
        return read != null ? read : hooks.call(context, self, "sysread_nonblock", args);
    }

    /** {@code syswrite(string)}. */
    @JRubyMethod(name = "syswrite", rest = true)
    public static IRubyObject syswrite(ThreadContext context, IRubyObject self, IRubyObject[] args, Block block) {
        Hooks hooks = hooks(context, self, "syswrite");
        if (!hooks.usable(context)) return hooks.call(context, self, "syswrite", args);
        IRubyObject written = args.length == 1 ? write(context, self, hooks, args[0], true, true) : null;
        return written != null ? written : hooks.call(context, self, "syswrite", args);
    }

    /** {@code syswrite_nonblock(string, exception: true)}. */
    @JRubyMethod(name = "syswrite_nonblock", rest = true)
    public static IRubyObject syswrite_nonblock(ThreadContext context, IRubyObject self, IRubyObject[] args, Block block) {
        Hooks hooks = hooks(context, self, "syswrite_nonblock");
        if (!hooks.usable(context)) return hooks.call(context, self, "syswrite_nonblock", args);
        IRubyObject written = null;
        if (args.length == 1) {
            written = write(context, self, hooks, args[0], false, true);
        } else if (args.length == 2) {
            written = write(context, self, hooks, args[0], false, exception(context, args[1]));
        }
        return written != null ? written : hooks.call(context, self, "syswrite_nonblock", args);
    }

    /**
     * A read on fast_random's path: the String read (the buffer, when one
     * is given), nil or {@code :wait_*} (with {@code exception: false}); or
     * null, taking nothing, for a call jruby-openssl's method is to answer.
     */
    private static IRubyObject read(ThreadContext context, IRubyObject self, Hooks hooks, IRubyObject length, IRubyObject buffer,
                                    boolean blocking, boolean exception) {
        if (!(length instanceof RubyFixnum) || !(buffer.isNil() || buffer instanceof RubyString)) return null;
        long wanted = ((RubyFixnum) length).getLongValue();
        if (wanted <= 0 || wanted > Integer.MAX_VALUE) return null; // stock's empty String, ArgumentError or RangeError
        RubyString into = buffer.isNil() ? null : (RubyString) buffer;
        if (into != null) into.modifyCheck(); // FrozenError before anything is read: stock's, after
        SSLSocketFields.SocketConnection connection = hooks.fields.connection(context, self, blocking, exception);
        if (connection == null) return null;
        Ruby runtime = context.runtime;
        try {
            int ready;
            while (true) {
                // Encrypted data a write_nonblock left goes first, as on stock; a blocking read
                // does not wait for the socket to take it (another thread may be writing, and
                // the peer reading only once it has written), but for either to go on.
                boolean flushed = flushForRead(connection);
                if (!flushed && !blocking) return wouldBlock(context, connection, true);
                if ((ready = Records.fill(connection)) != Records.WOULD_BLOCK) break;
                if (!blocking) {
                    TlsStats.read(0);
                    return wouldBlock(context, connection, false);
                }
                TlsStats.waited();
                connection.waitFor(flushed ? SelectionKey.OP_READ : SelectionKey.OP_READ | SelectionKey.OP_WRITE);
            }
            if (ready == Records.END) {
                TlsStats.read(0);
                if (exception) throw runtime.newEOFError();
                return context.nil;
            }
            int count = (int) Math.min(wanted, ready);
            TlsStats.read(count);
            return take(runtime, connection.appRead(), count, into);
        } catch (IOException e) {
            throw ioError(runtime, e);
        }
    }

    /**
     * Sends what a write left in the socket's buffer, unless a write on
     * another thread holds it (that write sends them): true when none is
     * left for this read to wait for.
     */
    private static boolean flushForRead(SSLSocketFields.SocketConnection connection) throws IOException {
        Writes writes = connection.writes();
        if (!writes.tryLock()) return true;
        try {
            return Records.flush(connection);
        } finally {
            writes.unlock();
        }
    }

    /**
     * {@code count} bytes of {@code data} as a binary String: {@code into},
     * its own array reused where it holds them, else given an array of
     * exactly that length (where a buffer is handed on and replaced by an
     * empty one, as Net::HTTP's is, growing it would cost a larger array);
     * or a new String of those bytes.
     */
    private static RubyString take(Ruby runtime, ByteBuffer data, int count, RubyString into) {
        if (into == null) {
            byte[] bytes = new byte[count];
            data.get(bytes);
            return RubyString.newStringNoCopy(runtime, bytes);
        }
        ByteList value = into.getByteList();
        if (value.getUnsafeBytes().length - value.getBegin() >= count) {
            into.modify(count); // its own array, unless another String shares it
            value = into.getByteList();
            data.get(value.getUnsafeBytes(), value.getBegin(), count);
            value.setRealSize(count);
            into.setEncoding(ASCIIEncoding.INSTANCE);
        } else {
            byte[] bytes = new byte[count];
            data.get(bytes);
            into.setValue(new ByteList(bytes, ASCIIEncoding.INSTANCE, false));
        }
        into.clearCodeRange();
        return into;
    }

    /**
     * A write on fast_random's path: the bytes taken, or {@code :wait_writable}
     * (with {@code exception: false}); or null, taking nothing, for a call
     * jruby-openssl's method is to answer.
     */
    private static IRubyObject write(ThreadContext context, IRubyObject self, Hooks hooks, IRubyObject data, boolean blocking,
                                     boolean exception) {
        if (!(data instanceof RubyString) || ((RubyString) data).getByteList().getRealSize() == 0) return null;
        SSLSocketFields.SocketConnection connection = hooks.fields.connection(context, self, blocking, exception);
        if (connection == null) return null;
        Ruby runtime = context.runtime;
        if (!connection.channel.isOpen()) throw runtime.newIOError("closed stream");
        ByteList bytes = ((RubyString) data).getByteList();
        ByteBuffer source = ByteBuffer.wrap(bytes.getUnsafeBytes(), bytes.getBegin(), bytes.getRealSize());
        Writes writes = connection.writes();
        int taken = 0;
        try {
            while (true) {
                boolean flushed;
                writes.lock();
                try {
                    flushed = Records.flush(connection);
                } finally {
                    writes.unlock();
                }
                if (!flushed) { // sealed records first: a blocking write returns once the socket has them all
                    if (!blocking) {
                        if (taken > 0) break;
                        return wouldBlock(context, connection, true);
                    }
                    TlsStats.waited();
                    try {
                        connection.waitFor(SelectionKey.OP_WRITE);
                    } catch (Throwable e) { // Timeout, Thread#raise: the caller learns nothing of what this call took
                        writes.owe(taken);
                        throw e;
                    }
                    continue;
                }
                if (taken == 0 && writes.owes()) { // the retry of a write interrupted above: told what that one took
                    taken = writes.repay(source.remaining());
                    break;
                }
                if (!source.hasRemaining() || taken >= MOST_A_WRITE) break;
                int sealed;
                boolean sent;
                writes.lock();
                try {
                    // Non-blocking: a record at a time, each said written only once the socket has it all.
                    sealed = Records.seal(connection, source, blocking ? MOST_A_WRITE - taken : Math.min(RECORD, MOST_A_WRITE - taken));
                    sent = !connection.netWrite().hasRemaining();
                } finally {
                    writes.unlock();
                }
                if (sealed == 0) break; // the engine takes no data now (a handshake under way)
                if (!blocking && !sent) { // as OpenSSL's SSL_write: the retry with the same data is told it went
                    writes.owe(sealed);
                    if (taken > 0) break;
                    return wouldBlock(context, connection, true);
                }
                taken += sealed;
            }
        } catch (Records.EngineClosedException e) {
            throw runtime.newIOError(e.getMessage());
        } catch (IOException e) {
            throw ioError(runtime, e);
        }
        if (taken == 0) return null; // the engine took nothing: jruby-openssl's method answers, as it would
        TlsStats.wrote(taken);
        connection.io.callMethod(context, "flush"); // as jruby-openssl's does, after each write
        return runtime.newFixnum(taken);
    }

    private static IRubyObject wouldBlock(ThreadContext context, SSLSocketFields.SocketConnection connection, boolean write) {
        if (connection.exception) throw connection.wouldBlock(write);
        return context.runtime.newSymbol(write ? "wait_writable" : "wait_readable");
    }

    /** An IOException as jruby-openssl raises it: IOError, or the Errno JRuby maps its message to. */
    private static RaiseException ioError(Ruby runtime, IOException e) {
        RaiseException error = runtime.newIOErrorFromException(e);
        error.initCause(e);
        return error;
    }

    /** {@code exception:} from an options Hash: false only when given as false, as jruby-openssl reads it. */
    private static boolean exception(ThreadContext context, IRubyObject options) {
        if (!(options instanceof RubyHash)) return true;
        return ((RubyHash) options).op_aref(context, context.runtime.newSymbol("exception")) != context.fals;
    }

    /** The hooks of the class whose jruby-openssl method {@code name} fast_random's replaced, for {@code self}. */
    private static Hooks hooks(ThreadContext context, IRubyObject self, String name) {
        for (RubyClass type = self.getMetaClass().getRealClass(); type != null; type = type.getSuperClass()) {
            Object hooks = type.getInternalVariable(HOOKS);
            if (hooks != null) return (Hooks) hooks;
        }
        throw context.runtime.newNotImplementedError(CLASS + "#" + name + ": jruby-openssl's method is not there");
    }
}
