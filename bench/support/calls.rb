# frozen_string_literal: true

module Bench
  # The timed loops, one per benchmarked call, as methods written out in a
  # file. benchmark-ips's string form would build its loop with eval, which
  # JRuby never JIT-compiles, so every JRuby number would carry interpreter
  # overhead per call that a real application's hot code does not pay; and
  # a block or lambda call per iteration costs more than some of the calls
  # measured. Each method makes its call n times.
  module Calls
    # name => [method, bytes of randomness per call (for MB/s) or nil]
    ALL = {
      "uuid" => [:uuid, 16],
      "hex(16)" => [:hex16, 16],
      "random_bytes(16)" => [:random_bytes16, 16],
      "random_bytes(4096)" => [:random_bytes4096, 4096],
      "random_number(1000)" => [:random_number1000, nil],
      "alphanumeric(20)" => [:alphanumeric20, nil],
    }.freeze

    module_function

    CHUNK = 1_000

    # Makes the call named +name+ n times, in chunks of CHUNK calls: JRuby
    # JIT-compiles a method once it has been called 50 times, and the JVM
    # optimizes best a method called often, so a hot loop method called a
    # few times with a huge n (as benchmark-ips would) would be measured
    # interpreted or half-optimized, as no hot method of a running app is.
    def run(name, n)
      method = ALL.fetch(name).first
      full, rest = n.divmod(CHUNK)
      full.times { public_send(method, CHUNK) }
      public_send(method, rest)
    end

    def uuid(n)
      i = 0
      while i < n
        SecureRandom.uuid
        i += 1
      end
    end

    def hex16(n)
      i = 0
      while i < n
        SecureRandom.hex(16)
        i += 1
      end
    end

    def random_bytes16(n)
      i = 0
      while i < n
        SecureRandom.random_bytes(16)
        i += 1
      end
    end

    def random_bytes4096(n)
      i = 0
      while i < n
        SecureRandom.random_bytes(4096)
        i += 1
      end
    end

    def random_number1000(n)
      i = 0
      while i < n
        SecureRandom.random_number(1000)
        i += 1
      end
    end

    def alphanumeric20(n)
      i = 0
      while i < n
        SecureRandom.alphanumeric(20)
        i += 1
      end
    end
  end
end
