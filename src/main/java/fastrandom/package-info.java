/**
 * fast_random's Java side, below the Ruby bindings. {@link
 * fastrandom.FastRandom} is the entry point for plain Java callers,
 * {@link fastrandom.Setting} the settings held once per class loader and
 * {@link fastrandom.Faults} the sites of the test build's fault injection,
 * which every layer names; the
 * subpackages are the engines ({@code random}, {@code rsa}, {@code ec}, the
 * providers in {@code jca}), the native layer ({@code jni}) and shared
 * helpers ({@code support}, {@code text}). Nothing under {@code fastrandom}
 * imports {@code org.jruby}: JRuby is reached only through the bindings in
 * {@code org.jruby.ext.fastrandom}, which sit on top.
 */
package fastrandom;
