/**
 * The providers: {@link fastrandom.jca.JRubyOpenSslProvider}, put by
 * {@link fastrandom.jca.ProviderHook} in place of the BouncyCastle provider
 * jruby-openssl holds (registered nowhere), and the opt-in JVM-wide
 * {@link fastrandom.jca.JvmProvider}, whose long-lived part is in
 * {@code jca.detached}. Both serve the services of {@code rsa.jca} and
 * {@code ec.jca}. May import every engine package, never the bindings.
 */
package fastrandom.jca;
