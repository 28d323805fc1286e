# frozen_string_literal: true

# The Rack application of test/integration/servlet_deploy_test.rb, run by jruby-rack in
# each runtime of its pool (WEB-INF/config.ru of the exploded web app).
#
# The web app's context-param fast_random.lib names the checkout's lib/
# directory; "gem", the app is a packed war and fast_random one of its gems
# (ServletDeploy.build_war); empty, the app runs on stock JRuby, which the
# test uses to tell leaks of JRuby and jruby-rack from fast_random's.
require "jruby"
require "json"
require "openssl"

FAST_RANDOM_LIB = $servlet_context.getInitParameter("fast_random.lib").to_s
unless FAST_RANDOM_LIB.empty?
  $LOAD_PATH.unshift(FAST_RANDOM_LIB) unless FAST_RANDOM_LIB == "gem"
  require "fast_random"
end
require "securerandom"

MESSAGE = "fast_random in a servlet container"
# Keys made once at boot (each runtime of the pool boots this file): the
# RSA key from the PEM the test wrote beside this file, the EC key new. The
# public halves are made in ways every supported jruby-openssl has (0.15.0
# has no public_to_pem or public_to_der).
# Read as a resource of the web app: a war that is not unpacked has no files.
RSA_KEY = OpenSSL::PKey::RSA.new($servlet_context.getResourceAsStream("/WEB-INF/rsa_key.pem").to_io.read)
RSA_PUBLIC = RSA_KEY.public_key
EC_KEY = OpenSSL::PKey::EC.generate("prime256v1")
EC_PUBLIC = OpenSSL::PKey::EC.new(EC_KEY.group).tap { |key| key.public_key = EC_KEY.public_key }
EC_SIGNATURE = EC_KEY.sign("SHA256", MESSAGE)
AES_KEY = OpenSSL::Random.random_bytes(32)

# An AES-GCM round trip as Rails' MessageEncryptor does it (a new cipher per
# message, a random IV): the JDK ciphers fast_random keeps per thread live
# in the container's threads, past an undeploy.
def aes_round_trip(message)
  encryptor = OpenSSL::Cipher.new("aes-256-gcm").encrypt
  encryptor.key = AES_KEY
  iv = encryptor.random_iv
  encryptor.auth_data = "servlet"
  ciphertext = encryptor.update(message) + encryptor.final
  decryptor = OpenSSL::Cipher.new("aes-256-gcm").decrypt
  decryptor.key = AES_KEY
  decryptor.iv = iv
  decryptor.auth_tag = encryptor.auth_tag
  decryptor.auth_data = "servlet"
  decryptor.update(ciphertext) + decryptor.final == message
end

# The class loader of fast_random's Java classes in this runtime (on stock
# JRuby, the runtime's own JRubyClassLoader), noted by weak reference in the
# harness.
APP_LOADER = if FAST_RANDOM_LIB.empty?
               JRuby.runtime.getJRubyClassLoader
             else
               Java::FastrandomJni::NativeLibrary.java_class.then { |c| c.respond_to?(:class_loader) ? c.class_loader : c.getClassLoader }
             end

def identity(object)
  java.lang.Integer.toHexString(java.lang.System.identityHashCode(object))
end

def probe
  Java::Servletdeploy::Probe
rescue NameError
  nil # not run by the harness
end

# A Rack body that jruby-rack copies from a Java channel (#to_channel)
# rather than by #each: see the response below.
class ChannelBody
  def initialize(text)
    @text = text
  end

  def each
    yield @text
  end

  def to_channel
    java.nio.channels.Channels.newChannel(java.io.ByteArrayInputStream.new(@text.to_java_bytes))
  end
end

run lambda { |env|
  params = Rack::Utils.parse_query(env["QUERY_STRING"].to_s)
  deploy = params["deploy"].to_i
  probe&.register("app", deploy, APP_LOADER)
  message = "#{MESSAGE} #{SecureRandom.hex(8)}"
  rsa_signature = RSA_KEY.sign("SHA256", message)
  body = {
    "uuid" => SecureRandom.uuid,
    "rsa_verified" => RSA_PUBLIC.verify("SHA256", rsa_signature, message),
    "ec_verified" => EC_PUBLIC.verify("SHA256", EC_SIGNATURE, MESSAGE),
    "aes_round_trip" => aes_round_trip(message),
    "fast_random" => !FAST_RANDOM_LIB.empty?,
    "jruby" => JRUBY_VERSION,
    "runtime" => identity(JRuby.runtime),
    "loader" => Java::Servletdeploy::Probe.describe(APP_LOADER),
    "deploy" => deploy
  }
  unless FAST_RANDOM_LIB.empty?
    body.update(
      "ec_engine" => FastRandom::EC.engine.to_s,
      "ec_engine_problem" => FastRandom::EC.engine_problem(:openssl),
      "rsa_engine" => FastRandom::RSA.engine.to_s,
      "rsa_engine_problem" => FastRandom::RSA.engine_problem(:openssl),
      "rdrand_available" => FastRandom.rdrand_available?,
      "rdrand_problem" => FastRandom.rdrand_problem,
      "native_library_failure" => Java::FastrandomJni::NativeLibrary.failure,
      "native_library_archived" => Java::FastrandomJni::NativeLibrary.archived,
      "library_dir" => FastRandom.const_get(:LIBRARY_DIR),
      "rsa_stats" => FastRandom::RSA.stats[:openssl],
      # Deterministic (PKCS#1 v1.5): the test compares it with MRI's.
      "rsa_signature" => [RSA_KEY.sign("SHA256", MESSAGE)].pack("m0")
    )
  end
  sleep(Float(params["hold"])) if params["hold"]
  # jruby-rack 1.2.6 (the newest on Maven Central) writes a body by #each,
  # and header values other than Content-Type's and Content-Length's,
  # through a JRuby 9.4 API that JRuby 10 lacks (NoSuchMethodError:
  # JavaInternalBlockBody.<init>(Ruby, Arity)); a body with #to_channel and
  # no other header take the paths that work on both.
  [200, { "content-type" => "application/json" }, ChannelBody.new(JSON.generate(body))]
}
