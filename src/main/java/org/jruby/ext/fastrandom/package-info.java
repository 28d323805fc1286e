/**
 * The Ruby bindings, the only package that imports {@code org.jruby}: the
 * FastRandom module and its submodules, the methods prepended to
 * SecureRandom, OpenSSL::Random and OpenSSL::PKey, and the hooks that put
 * fast_random's providers in jruby-openssl once it loads. Each library
 * class here ({@code SecureRandomLibrary}, ...) is what
 * {@code JRuby::Util.load_ext} runs. May import every {@code fastrandom}
 * package; nothing imports it.
 */
package org.jruby.ext.fastrandom;
