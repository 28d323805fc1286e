# frozen_string_literal: true

# RSA keys for the engine tests, made once per size and exponent by the JDK's
# generator (4096-bit keys take seconds), as Ruby Integers.
module RsaTestKeys
  RsaPrivateKey = Java::FastrandomRsa::RsaPrivateKey

  Key = Struct.new(:n, :e, :d, :p, :q, :dp, :dq, :qinv) do
    # The engines' key form, with a fresh identity object (or the one given;
    # nil for none).
    def engine_key(identity = Java::JavaLang::Object.new)
      RsaPrivateKey.new(n, e, d, p, q, dp, dq, qinv, identity)
    end

    # The PKCS#1 RSAPrivateKey DER (what OpenSSL::PKey::RSA.new reads; needs openssl).
    def der
      OpenSSL::ASN1::Sequence([0, n, e, d, p, q, dp, dq, qinv].map { |i| OpenSSL::ASN1::Integer(i) }).to_der
    end

    # The :openssl engine's native key for these values, as they are (no
    # consistency check: tests build corrupted ones); close it after use.
    def native_key(check_results: false)
      Java::FastrandomJni::LibCrypto.new_private_key(n, e, d, p, q, dp, dq, qinv, check_results)
    end

    # integer^d mod n through a native key of this key (its private_raw, on
    # bytes as long as the modulus), as an Integer.
    def private_raw(native, integer)
      length = (n.bit_length + 7) / 8
      input = [integer.to_s(16).rjust(length * 2, "0")].pack("H*").to_java_bytes
      java.math.BigInteger.new(1, native.private_raw(input)).to_i
    end

    # The same key with some values replaced (a corrupted or inconsistent key).
    def with(**changes)
      dup.tap { |copy| changes.each { |name, value| copy[name] = value } }
    end
  end

  KEYS = {}
  LOCK = Mutex.new

  def self.key(bits, e)
    LOCK.synchronize do
      KEYS[[bits, e]] ||= begin
        generator = java.security.KeyPairGenerator.get_instance("RSA")
        spec = java.security.spec.RSAKeyGenParameterSpec.new(bits, java.math.BigInteger.value_of(e))
        generator.java_send(:initialize, [java.security.spec.AlgorithmParameterSpec], spec) # Ruby's initialize is private
        k = generator.generate_key_pair.private
        Key.new(*[k.modulus, k.public_exponent, k.private_exponent, k.prime_p, k.prime_q,
                  k.prime_exponent_p, k.prime_exponent_q, k.crt_coefficient].map(&:to_i))
      end
    end
  end
end
