# frozen_string_literal: true

# MRI's side of the PBKDF2 tests (test/kdf/pbkdf2_test.rb): what MRI's
# OpenSSL derives, or raises, for each case.
#
#   ruby test/support/mri_kdf.rb derive < cases   # JSON in, JSON out
#
# The same file runs on stock JRuby (no fast_random) for stock's answers:
# KdfCases.outcomes is what both sides compute.
require_relative "mri_script"

module KdfCases
  extend MriScript

  # Runs this file with MRI; returns its JSON.
  def self.run(command, input = "") = run_script(__FILE__, command, input)

  # Each case {"call", "pass", "salt", "iter", "len", "digest"} (hex strings
  # for pass and salt; "call" names the method, "pass_utf8" a password given
  # as text), computed: the key in hex, or [class, message].
  def self.outcomes(cases)
    require "openssl"
    cases.map do |c|
      pass = c.key?("pass_utf8") ? c["pass_utf8"].dup.force_encoding(Encoding::UTF_8) : unhex(c["pass"])
      salt = unhex(c["salt"])
      iter = c["iter"]
      len = c["len"]
      key = case c["call"]
            when "pkcs5" then OpenSSL::PKCS5.pbkdf2_hmac(pass, salt, iter, len, c["digest"])
            when "pkcs5_sha1" then OpenSSL::PKCS5.pbkdf2_hmac_sha1(pass, salt, iter, len)
            when "kdf" then OpenSSL::KDF.pbkdf2_hmac(pass, salt: salt, iterations: iter, length: len, hash: c["digest"])
            when "kdf_digest" then OpenSSL::KDF.pbkdf2_hmac(pass, salt: salt, iterations: iter, length: len,
                                                                  hash: OpenSSL::Digest.new(c["digest"]))
            end
      [hex(key), key.encoding.name]
    rescue StandardError => e
      [e.class.name, e.message]
    end
  end
end

if $PROGRAM_NAME == __FILE__
  require "json"
  puts JSON.generate(KdfCases.outcomes(JSON.parse($stdin.read)))
end
