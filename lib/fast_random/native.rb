# frozen_string_literal: true

module FastRandom
  # Where the JNI library (RDRAND/RDSEED) ships inside the gem. It is only
  # loaded, from this directory, the first time it is needed.
  # FAST_RANDOM_NATIVE_LIBRARY overrides the path (tests use it to simulate
  # a missing library).
  module Native
    PLATFORM = "#{RbConfig::CONFIG["host_os"][/linux|darwin|mswin|mingw/] || RbConfig::CONFIG["host_os"]}-" \
               "#{RbConfig::CONFIG["host_cpu"].sub(/\A(amd64|x64)\z/, "x86_64")}"
    FILE = { "darwin" => "libfast_random.dylib" }.fetch(PLATFORM[/\A[a-z]+/], "libfast_random.so")

    def self.path
      ENV.fetch("FAST_RANDOM_NATIVE_LIBRARY") { File.expand_path(File.join(PLATFORM, FILE), __dir__) }
    end
  end
end
