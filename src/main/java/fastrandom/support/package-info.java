/**
 * Small pieces several engines share: {@link fastrandom.support.Diagnostics}
 * (one-time warnings, routed to the runtime that loaded us),
 * {@link fastrandom.support.KeyCache} (native keys kept per Java key
 * object) and {@link fastrandom.support.SignatureInput} (a signature's
 * message, buffered or hashed as it comes), {@link
 * fastrandom.support.FallbackSignatureSpi} (what the RSA and ECDSA
 * signatures share), {@link
 * fastrandom.support.EngineRegistry} (one engine chosen by name). May
 * import only the JDK and {@code fastrandom.jni}.
 */
package fastrandom.support;
