# The application of test/integration/packaged_app_test.rb's executable jar
# (app/bin/app in the archive, loaded by META-INF/main.rb): fast_random from
# the archive's gems, through RubyGems, as any gem of a Warbler jar. ARGV:
# the directory of MRI's keys, the message, and "full" for the parts that
# prove more than the engines (:gmp, a second runtime, the JVM-wide
# provider). Prints one JSON line.
require "fast_random"
require "openssl"
require "json"
require "jruby"

dir, message, mode = ARGV
native = Java::FastrandomJni::NativeLibrary
started = Process.clock_gettime(Process::CLOCK_MONOTONIC, :float_millisecond)
loaded = native.load
load_ms = Process.clock_gettime(Process::CLOCK_MONOTONIC, :float_millisecond) - started

rsa = OpenSSL::PKey::RSA.new(File.read(File.join(dir, "rsa.pem")))
ec = OpenSSL::PKey::EC.new(File.read(File.join(dir, "p256.pem")))
result = {
  "gem_dir" => Gem.loaded_specs["fast_random"]&.full_gem_path,
  "library_dir" => FastRandom.const_get(:LIBRARY_DIR),
  "native_loaded" => loaded, "native_failure" => native.failure, "archived" => native.archived,
  "private_copy" => native.private_copy, "load_ms" => load_ms,
  "rsa_engine" => FastRandom::RSA.engine, "ec_engine" => FastRandom::EC.engine,
  "rsa_problem" => FastRandom::RSA.engine_problem(:openssl),
  "gmp_problem" => FastRandom::RSA.engine_problem(:gmp),
  "rsa_signature" => [rsa.sign("SHA256", message)].pack("m0"),
  "ec_signature" => [ec.sign("SHA256", message)].pack("m0"),
  "entropy" => FastRandom::Generator.entropy_source,
  "uuid" => SecureRandom.uuid
}
result["ec_verifies"] = ec.verify("SHA256", result["ec_signature"].unpack1("m0"), message)
aes = OpenSSL::Cipher.new("aes-256-gcm").encrypt
aes.key = "k" * 32
aes.iv = "i" * 12
result["aes_gcm"] = [aes.update(message) + aes.final + aes.auth_tag].pack("m0")
result["rsa_stats"] = FastRandom::RSA.stats
result["ec_stats"] = FastRandom::EC.stats

if mode == "full"
  # :gmp on the libgmp the gem bundles (FAST_RANDOM_GMP_LIBRARY=bundled), copied out of the archive.
  FastRandom::RSA.engine = :gmp
  result["gmp_signature"] = [rsa.sign("SHA256", message)].pack("m0")
  result["gmp_library"] = Java::FastrandomRsa::GmpLibrary.library
  result["gmp_stats"] = FastRandom::RSA.stats[:gmp]
  FastRandom::RSA.engine = :openssl

  # The JVM-wide provider: Java code's RSA signature, served by fast_random's :openssl engine.
  FastRandom.install_jca_provider
  generator = java.security.KeyPairGenerator.getInstance("RSA")
  generator.java_send(:initialize, [Java::int], 2048)
  pair = generator.generateKeyPair
  signer = java.security.Signature.getInstance("SHA256withRSA")
  signer.initSign(pair.getPrivate)
  signer.update(message.to_java_bytes)
  signature = signer.sign
  verifier = java.security.Signature.getInstance("SHA256withRSA")
  verifier.initVerify(pair.getPublic)
  verifier.update(message.to_java_bytes)
  result["jca_provider"] = signer.getProvider.getName
  result["jca_verifies"] = verifier.verify(signature)
  result["jca_rsa_stats"] = FastRandom::RSA.stats[:openssl]
  FastRandom.uninstall_jca_provider

  # The OpenSSL TLS engine from the archive: netty's jars read from it, its
  # JNI library a private copy checked against the SHA-256 fast_random's jar
  # records. One connection over loopback, both ends on it.
  require_relative "tls_loopback"
  FastRandom::TLS.engine = :openssl
  reply, *engines = TlsLoopback.round_trip(rsa, message)
  tls_library = Java::FastrandomTlsOpenssl::OpenSslTls.library
  result["tls"] = { "reply" => reply, "engines" => engines, "version" => FastRandom::TLS.engine_version,
                    "archived" => tls_library.archived, "private_copy" => tls_library.private_copy }

  # A second runtime in this JVM (as a second ScriptingContainer or a pool has): a
  # class loader of its own for fast_random's jar, so a private copy of its own.
  second = org.jruby.embed.ScriptingContainer.new(org.jruby.embed.LocalContextScope::SINGLETHREAD)
  second.setClassLoader(JRuby.runtime.getJRubyClassLoader.getParent)
  second.setArgv([dir, message].to_java(:string))
  result["classes"] = JRuby.runtime.getJRubyClassLoader.loadClass("fastrandom.jni.NativeLibrary").hashCode
  result["second"] = JSON.parse(second.runScriptlet(<<~'RUBY'))
    require 'META-INF/init.rb'
    require "fast_random"
    require "openssl"
    require "json"
    require "jruby"
    native = Java::FastrandomJni::NativeLibrary
    rsa = OpenSSL::PKey::RSA.new(File.read(File.join(ARGV[0], "rsa.pem")))
    JSON.generate("rsa_engine" => FastRandom::RSA.engine, "ec_engine" => FastRandom::EC.engine,
                  "native_failure" => native.failure, "private_copy" => native.private_copy,
                  "rsa_signature" => [rsa.sign("SHA256", ARGV[1])].pack("m0"),
                  "classes" => JRuby.runtime.getJRubyClassLoader.loadClass("fastrandom.jni.NativeLibrary").hashCode)
  RUBY
  second.terminate
end
puts JSON.generate(result)
