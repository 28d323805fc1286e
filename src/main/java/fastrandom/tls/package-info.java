/**
 * TLS connections' data path: {@link fastrandom.tls.Records} moves
 * application data through a connection's {@code SSLEngine} and socket
 * without blocking (the bindings wait, the way jruby-openssl waits, only
 * when the socket can make no progress); {@link fastrandom.tls.Connection}
 * is what it needs of one connection (jruby-openssl's
 * {@code OpenSSL::SSL::SSLSocket}, seen through its fields);
 * {@link fastrandom.tls.Writes}, what its writes share between calls and
 * threads; {@link fastrandom.tls.TlsStats} counts what it served. JDK and
 * {@code fastrandom.Faults} only.
 */
package fastrandom.tls;
