# frozen_string_literal: true

# OpenSSL::X509::Certificate#sign and CRL#sign (SHA-256) with an RSA-2048
# and a P-256 key (the benchmark keys): the same certificate or CRL signed
# again and again. On
# JRuby, jruby-openssl signs through the JVM's providers; fast_random's
# Certificate#sign signs through its engines (CRL#sign stays
# jruby-openssl's), and its JVM-wide provider (FAST_RANDOM_JCA=1) serves
# the JVM's providers too.
#   ruby bench/x509.rb
#   BENCH_VARIANT=fast_random FAST_RANDOM_JCA=1 bin/jruby bench/x509.rb
require_relative "support/harness"
require_relative "support/rsa_keys"
require_relative "support/ec_keys"

require "openssl"
Bench.load_subject

module Bench
  module X509Signing
    KEYS = { "RSA-2048" => -> { RSAKeys.pem(2048) }, "P-256" => -> { ECKeys.pem("prime256v1", 1) } }.freeze

    module_function

    def certificate(key)
      cert = OpenSSL::X509::Certificate.new
      cert.version = 2
      cert.serial = 1
      cert.subject = cert.issuer = OpenSSL::X509::Name.parse("/CN=fast_random bench")
      cert.public_key = key
      cert.not_before = Time.at(1_700_000_000)
      cert.not_after = Time.at(1_900_000_000)
      cert
    end

    def crl
      crl = OpenSSL::X509::CRL.new
      crl.version = 1
      crl.issuer = OpenSSL::X509::Name.parse("/CN=fast_random bench")
      crl.last_update = Time.at(1_700_000_000)
      crl.next_update = Time.at(1_900_000_000)
      crl
    end

    def sign_crl(crl, key, n)
      i = 0
      while i < n
        crl.sign(key, "SHA256")
        i += 1
      end
    end

    def sign(cert, key, n)
      i = 0
      while i < n
        cert.sign(key, "SHA256")
        i += 1
      end
    end
  end
end

signing = Bench::X509Signing
Bench.ips("jca_provider" => defined?(FastRandom) && FastRandom.jca_provider_installed?) do |x|
  signing::KEYS.each do |label, pem|
    key = OpenSSL::PKey.read(pem.call)
    cert = signing.certificate(key)
    cert.sign(key, "SHA256")
    raise "the certificate does not verify" unless cert.verify(key)

    x.report("Certificate#sign, #{label}") { |times| signing.sign(cert, key, times) }
    crl = signing.crl
    crl.sign(key, "SHA256")
    raise "the CRL does not verify" unless crl.verify(key)

    x.report("CRL#sign, #{label}") { |times| signing.sign_crl(crl, key, times) }
  end
end
