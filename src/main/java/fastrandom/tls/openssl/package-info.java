/**
 * The OpenSSL TLS engine ({@code FAST_RANDOM_TLS=openssl}): the
 * {@code SSLEngine} jruby-openssl's {@code SSLSocket} runs its handshake
 * and records on, when fast_random gives it one, from netty's
 * {@code OpenSslEngine} on netty-tcnative's static BoringSSL. Those
 * libraries are loaded by a class loader of fast_random's own
 * ({@link EngineClassLoader}), so that an application's netty, or none, is
 * unaffected, and their JNI library as fast_random's own is
 * ({@link fastrandom.jni.LibraryFile}); {@link OpenSslTls} says whether the
 * engine loaded and why not. The only classes that name netty's are in
 * {@code fastrandom.tls.openssl.netty}, which only that class loader loads.
 */
package fastrandom.tls.openssl;
