# frozen_string_literal: true

require_relative "lib/fast_random/version"

Gem::Specification.new do |spec|
  spec.name     = "fast_random"
  spec.version  = FastRandom::VERSION
  spec.authors  = ["fast_random contributors"]
  spec.license  = "MIT"
  spec.homepage = "https://example.invalid/fast_random"
  spec.summary  = "Fast SecureRandom, RSA and EC for JRuby; opt-in JVM-wide JCA provider"
  spec.description = <<~DESC
    fast_random makes JRuby's SecureRandom fast: uuid, hex, base64,
    random_bytes and random_number come from a per-thread NIST SP 800-90A
    CTR_DRBG (AES-256), seeded from the OS and, where the CPU has them,
    RDSEED/RDRAND, with the API, encodings and errors of MRI's SecureRandom;
    OpenSSL::Random uses the same generators. It runs jruby-openssl's RSA and
    EC operations (OpenSSL::PKey::RSA sign, verify, encrypt, decrypt and PSS;
    ECDSA and ECDH on P-256 and P-521) on OpenSSL's libcrypto, or RSA on GMP,
    with jruby-openssl's results. An opt-in JVM-wide JCA provider serves
    Java's SecureRandom, UUID.randomUUID, TLS handshakes and certificate
    signing from the same engines. One line: require "fast_random". On MRI it
    is inactive and changes nothing.
  DESC
  spec.metadata = {
    "homepage_uri" => spec.homepage,
    "source_code_uri" => spec.homepage,
    "changelog_uri" => "#{spec.homepage}/blob/main/CHANGELOG.md",
    "bug_tracker_uri" => "#{spec.homepage}/issues",
    "rubygems_mfa_required" => "true",
  }

  # JRuby 9.4 (Ruby 3.1) and 10.x (Ruby 3.4); MRI 3.1 and later load the no-op.
  spec.required_ruby_version = ">= 3.1"
  spec.requirements << "JRuby 9.4 (Java 8 or later) or 10 (Java 21 or later); the JNI library is built for linux-x86_64 and linux-aarch64"

  # One gemspec, two gems, as nio4r's: read by JRuby (`rake gem`, or Bundler's
  # path: and git: sources on JRuby) it is the java gem, with what `rake
  # compile` builds into lib/ (the extension's jar, the JNI library, the
  # vendored libraries and their licence texts); read by MRI it is the plain
  # gem, whose `require "fast_random"` does nothing (lib/fast_random/inactive.rb),
  # so one Gemfile serves both.
  java = RUBY_ENGINE == "jruby"
  spec.platform = "java" if java
  spec.files = Dir.chdir(__dir__) do
    tracked = `git ls-files -z 2>/dev/null`.split("\x0")
    tracked = Dir["{lib,src,ext}/**/*", "*.md", "docs/*.md", "LICENSE"] if tracked.empty?
    # The docs README.md links to travel with it, so its links work in an installed gem.
    files = tracked.grep(%r{\A(lib|src|ext)/|\A(README|CHANGELOG|CONTRIBUTING|THIRD_PARTY_NOTICES)\.md\z|\Adocs/[^/]+\.md\z|\ALICENSE\z})
    built = Dir["lib/fast_random/fast_random.jar", "lib/fast_random/*/libfast_random.*", "lib/fast_random/*/libnetty_tcnative_*",
                "lib/fast_random/vendor/**/*"]
    (java ? files + built : files).select { |path| File.file?(path) }.uniq.sort
  end
  spec.require_paths = ["lib"]
end
