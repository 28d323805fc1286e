# frozen_string_literal: true

require_relative "lib/fast_random/version"

Gem::Specification.new do |spec|
  spec.name     = "fast_random"
  spec.version  = FastRandom::VERSION
  spec.platform = "java"
  spec.authors  = ["fast_random contributors"]
  spec.license  = "MIT"
  spec.homepage = "https://example.invalid/fast_random"
  spec.summary  = "Fast, per-thread SecureRandom (and soon RSA) for JRuby"
  spec.description = <<~DESC
    fast_random replaces JRuby's SecureRandom with a per-thread NIST SP 800-90A
    CTR_DRBG (AES-256 through the JCE, so AES-NI is used), seeded from the OS,
    with uuid, hex, base64 and random_number implemented in Java. It keeps the
    API, encodings and errors of MRI's SecureRandom. One line: require 'fast_random'.
  DESC

  spec.required_ruby_version = ">= 3.1"

  # The jars are built, not tracked: lib/fast_random/fast_random.jar and the
  # libraries in lib/fast_random/vendor/ (JNA, jnagmp, bouncycastle-rsa), which
  # `rake compile` puts there. BouncyCastle is not shipped: jruby-openssl's is used.
  spec.files = Dir.chdir(__dir__) do
    tracked = `git ls-files -z 2>/dev/null`.split("\x0")
    tracked = Dir["{lib,src,ext}/**/*", "*.md", "LICENSE"] if tracked.empty?
    tracked.grep(%r{\A(lib|src|ext)/|\A(README\.md|CHANGELOG\.md|LICENSE)\z}) +
      Dir["lib/**/*.jar"]
  end.uniq
  spec.require_paths = ["lib"]
end
