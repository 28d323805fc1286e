# frozen_string_literal: true

require "open3"

# Keys made by MRI for tests whose JRuby runs elsewhere (a packaged jar, the
# ARM test bed): PEM files those processes read, and MRI's own PKCS#1 v1.5
# signature, which theirs must equal byte for byte.
module MriKeys
  # MRI: new keys as PEM files in ARGV[0] (rsa.pem, p256.pem), and its own
  # RSA signature of ARGV[1] (base64) on stdout.
  SCRIPT = <<~'RUBY'
    require "openssl"
    rsa = OpenSSL::PKey::RSA.new(2048)
    File.write(File.join(ARGV[0], "rsa.pem"), rsa.to_pem)
    File.write(File.join(ARGV[0], "p256.pem"), OpenSSL::PKey::EC.generate("prime256v1").to_pem)
    print [rsa.sign("SHA256", ARGV[1])].pack("m0")
  RUBY

  module_function

  # Writes the keys into +dir+ with MRI (Debian's ruby, or FAST_RANDOM_MRI);
  # returns MRI's signature of +message+, base64.
  def write(dir, message)
    out, err, status = Open3.capture3(ENV.fetch("FAST_RANDOM_MRI", "ruby"), "-e", SCRIPT, dir, message)
    raise "MRI failed to make the keys: #{err}" unless status.success?

    out
  end
end
