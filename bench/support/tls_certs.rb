# frozen_string_literal: true

require_relative "rsa_keys"
require_relative "ec_keys"

module Bench
  # Self-signed certificates for "localhost" on the benchmark keys (RSA-2048
  # and P-256, see RSAKeys and ECKeys), made once by MRI's OpenSSL
  # (bench/run.rb calls TLSCerts.generate), for bench/tls.rb's servers.
  module TLSCerts
    KEYS = { "RSA-2048" => -> { RSAKeys.path(2048) }, "P-256" => -> { ECKeys.path("prime256v1", 1) } }.freeze

    module_function

    def labels
      KEYS.keys
    end

    # [certificate path, key path]
    def files(label)
      key = KEYS.fetch(label).call
      [key.sub(/\.pem\z/, ".crt"), key]
    end

    # With MRI: writes any missing certificate (after the keys).
    def generate
      require "openssl"
      RSAKeys.generate
      ECKeys.generate
      labels.each do |label|
        cert_path, key_path = files(label)
        next if File.exist?(cert_path) && OpenSSL::X509::Certificate.new(File.read(cert_path)).not_after > Time.now + 86_400

        key = OpenSSL::PKey.read(File.read(key_path))
        cert = OpenSSL::X509::Certificate.new
        cert.version = 2
        cert.serial = 1
        cert.subject = cert.issuer = OpenSSL::X509::Name.parse("/CN=localhost")
        cert.public_key = key
        cert.not_before = Time.now - 60
        cert.not_after = Time.now + 30 * 86_400
        cert.sign(key, "SHA256")
        File.write(cert_path, cert.to_pem)
      end
    end
  end
end
