# frozen_string_literal: true

require "openssl"

# What the JVM-wide provider's tests share (test/jca/provider_test.rb,
# provider_parity_test.rb): the JDK's keys made once per test class, the
# provider installed around each test, and signing, verifying and
# encrypting through a chosen provider.
module JcaProvider
  Security = java.security.Security
  Signature = java.security.Signature
  Cipher = javax.crypto.Cipher
  KeyAgreement = javax.crypto.KeyAgreement
  LibCrypto = Java::FastrandomJni::LibCrypto
  PSSParameterSpec = java.security.spec.PSSParameterSpec
  MGF1ParameterSpec = java.security.spec.MGF1ParameterSpec
  MESSAGE = "fast_random on every JVM library".to_java_bytes
  RSA_DIGESTS = %w[SHA1 SHA224 SHA256 SHA384 SHA512].freeze

  def self.included(test_class)
    test_class.extend(Keys)
  end

  # The test class's keys, made once.
  module Keys
    def key_pair(algorithm, parameter)
      generator = java.security.KeyPairGenerator.getInstance(algorithm, algorithm == "EC" ? "SunEC" : "SunRsaSign")
      if parameter.is_a?(Integer)
        generator.java_send(:initialize, [Java::int], parameter)
      else
        generator.java_send(:initialize, [java.security.spec.AlgorithmParameterSpec], parameter)
      end
      generator.generateKeyPair
    end

    def rsa = @rsa ||= key_pair("RSA", 2048)

    # The same kind of key as jruby-openssl makes: BouncyCastle's classes.
    def bc_rsa
      @bc_rsa ||= begin
        key = OpenSSL::PKey::RSA.new(2048)
        factory = java.security.KeyFactory.getInstance("RSA", Java::OrgBouncycastleJceProvider::BouncyCastleProvider.new)
        crt = [key.n, key.e, key.d, key.p, key.q, key.dmp1, key.dmq1, key.iqmp].map { |bn| bn.to_i.to_java(java.math.BigInteger) }
        [factory.generatePrivate(java.security.spec.RSAPrivateCrtKeySpec.new(*crt)),
         factory.generatePublic(java.security.spec.RSAPublicKeySpec.new(crt[0], crt[1]))]
      end
    end

    def ec(curve) = (@ec ||= {})[curve] ||= key_pair("EC", java.security.spec.ECGenParameterSpec.new(curve))

    def native? = LibCrypto.load
  end

  def setup
    @installed = FastRandom.install_jca_provider
    @rsa_engine = FastRandom::RSA.engine
    @ec_engine = FastRandom::EC.engine
  end

  def teardown
    LibCrypto.inject_faults(0)
    FastRandom::RSA.engine = @rsa_engine
    FastRandom::EC.engine = @ec_engine
    FastRandom.uninstall_jca_provider
  end

  def rsa = self.class.rsa
  def provider_names = Security.getProviders.map(&:getName)

  def sign(algorithm, key, provider = nil, message: MESSAGE, parameters: nil)
    signature = provider ? Signature.getInstance(algorithm, provider) : Signature.getInstance(algorithm)
    signature.setParameter(parameters) if parameters
    signature.initSign(key)
    signature.update(message)
    [signature.sign, signature.getProvider.getName]
  end

  def verify(algorithm, key, bytes, provider = nil, message: MESSAGE, parameters: nil)
    signature = provider ? Signature.getInstance(algorithm, provider) : Signature.getInstance(algorithm)
    signature.setParameter(parameters) if parameters
    signature.initVerify(key)
    signature.update(message)
    signature.verify(bytes)
  end

  def pss(digest, salt)
    PSSParameterSpec.new(digest, "MGF1", MGF1ParameterSpec.new(digest), salt, 1)
  end

  def crypt(transformation, mode, key, data, provider = nil, parameters = nil)
    cipher = provider ? Cipher.getInstance(transformation, provider) : Cipher.getInstance(transformation)
    parameters ? cipher.init(mode, key, parameters) : cipher.init(mode, key)
    [cipher.doFinal(data), cipher.getProvider.getName]
  end

  # RSA and EC operations on the native engines while the block runs.
  def native_operations
    rsa_before = FastRandom::RSA.stats[:openssl].values.sum
    ec_before = FastRandom::EC.stats[:openssl].values.sum
    yield
    FastRandom::RSA.stats[:openssl].values.sum - rsa_before + FastRandom::EC.stats[:openssl].values.sum - ec_before
  end

  def assert_native(count, &block)
    operations = native_operations(&block)
    if self.class.native?
      assert_equal count, operations, "operations on the native engines"
    else
      assert_equal 0, operations, "libcrypto is unavailable in this pass: nothing can run natively"
    end
  end
end
