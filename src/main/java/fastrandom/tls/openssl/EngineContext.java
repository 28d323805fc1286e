package fastrandom.tls.openssl;

import javax.net.ssl.SSLEngine;

/** The engine's context for one jruby-openssl SSLContext and one mode (client or server): engines for its sockets. */
public interface EngineContext {
    /**
     * A new engine, in the context's mode, for a connection to
     * {@code host}:{@code port} (a client sends {@code host} as SNI when it
     * is a name, and resumes a session of that host and port; null: none).
     */
    SSLEngine newEngine(String host, int port);
}
