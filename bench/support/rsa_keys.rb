# frozen_string_literal: true

module Bench
  # The RSA keys every runtime benchmarks with: made once by MRI's OpenSSL
  # (bench/run.rb calls RSAKeys.generate), kept as PEM in tmp/bench/keys, so
  # MRI and both JRubies sign with exactly the same keys.
  module RSAKeys
    DIR = File.expand_path("../../tmp/bench/keys", __dir__)
    SIZES = [2048, 3072, 4096].freeze

    module_function

    def sizes
      SIZES
    end

    def path(bits)
      File.join(DIR, "rsa#{bits}.pem")
    end

    def pem(bits)
      File.read(path(bits))
    rescue Errno::ENOENT
      abort "no #{path(bits)}: bench/run.rb makes the keys (or: ruby -r./bench/support/rsa_keys -e Bench::RSAKeys.generate)"
    end

    # With MRI: writes any missing key.
    def generate
      require "openssl"
      require "fileutils"
      FileUtils.mkdir_p(DIR)
      SIZES.each do |bits|
        File.write(path(bits), OpenSSL::PKey::RSA.new(bits).to_pem) unless File.exist?(path(bits))
      end
    end
  end
end
