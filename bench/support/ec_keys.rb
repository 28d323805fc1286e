# frozen_string_literal: true

module Bench
  # The EC keys every runtime benchmarks with: made once by MRI's OpenSSL
  # (bench/run.rb calls ECKeys.generate), kept as PEM in tmp/bench/keys, so
  # MRI and both JRubies sign with exactly the same keys; two per curve (the
  # second is the ECDH peer).
  module ECKeys
    DIR = File.expand_path("../../tmp/bench/keys", __dir__)
    CURVES = %w[prime256v1 secp384r1 secp521r1].freeze

    module_function

    def path(curve, n)
      File.join(DIR, "ec_#{curve}_#{n}.pem")
    end

    def pem(curve, n)
      File.read(path(curve, n))
    rescue Errno::ENOENT
      abort "no #{path(curve, n)}: bench/run.rb makes the keys (or: ruby -r./bench/support/ec_keys -e Bench::ECKeys.generate)"
    end

    # With MRI: writes any missing key.
    def generate
      require "openssl"
      require "fileutils"
      FileUtils.mkdir_p(DIR)
      CURVES.product([1, 2]).each do |curve, n|
        File.write(path(curve, n), OpenSSL::PKey::EC.generate(curve).to_pem) unless File.exist?(path(curve, n))
      end
    end
  end
end
