/**
 * The OpenSSL engine on netty: the only classes that name netty's, loaded
 * only by {@link fastrandom.tls.openssl.EngineClassLoader}, never by
 * fast_random's own class loader (which cannot see netty).
 */
package fastrandom.tls.openssl.netty;
