# frozen_string_literal: true

module Bench
  # The timed loops, one per benchmarked call, as methods written out in a
  # file. benchmark-ips's string form would build its loop with eval, which
  # JRuby never JIT-compiles, so every JRuby number would carry interpreter
  # overhead per call that a real application's hot code does not pay; and
  # a block or lambda call per iteration costs more than some of the calls
  # measured. Each method makes its call n times.
  module Calls
    # One benchmarked call: the loop method below that makes it, the
    # SecureRandom method it needs, and for random_bytes the bytes it asks
    # for (the report gives those calls in MB/s too).
    Call = Struct.new(:loop_method, :needs, :bytes)

    ALL = {
      "uuid" => Call.new(:uuid, :uuid, nil),
      "uuid_v7" => Call.new(:uuid_v7, :uuid_v7, nil),
      "hex(16)" => Call.new(:hex16, :hex, nil),
      "base64(16)" => Call.new(:base64_16, :base64, nil),
      "urlsafe_base64(16)" => Call.new(:urlsafe_base64_16, :urlsafe_base64, nil),
      "random_bytes(16)" => Call.new(:random_bytes16, :random_bytes, 16),
      "random_bytes(4096)" => Call.new(:random_bytes4096, :random_bytes, 4096),
      "random_bytes(1 MiB)" => Call.new(:random_bytes1m, :random_bytes, 1 << 20),
      "random_number(1000)" => Call.new(:random_number1000, :random_number, nil),
      "alphanumeric(20)" => Call.new(:alphanumeric20, :alphanumeric, nil),
    }.freeze

    # Whether this Ruby's SecureRandom has the call (MRI 3.1 and stock
    # JRuby 9.4 have no uuid_v7).
    def self.available?(name)
      SecureRandom.respond_to?(ALL.fetch(name).needs)
    end

    module_function

    CHUNK = 1_000

    # Makes the call named +name+ n times, in chunks of CHUNK calls (see
    # Bench.in_chunks).
    def run(name, n)
      method = ALL.fetch(name).loop_method
      Bench.in_chunks(n, CHUNK) { |chunk| public_send(method, chunk) }
    end

    def uuid(n)
      i = 0
      while i < n
        SecureRandom.uuid
        i += 1
      end
    end

    def uuid_v7(n)
      i = 0
      while i < n
        SecureRandom.uuid_v7
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

    def base64_16(n)
      i = 0
      while i < n
        SecureRandom.base64(16)
        i += 1
      end
    end

    def urlsafe_base64_16(n)
      i = 0
      while i < n
        SecureRandom.urlsafe_base64(16)
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

    def random_bytes1m(n)
      i = 0
      while i < n
        SecureRandom.random_bytes(1 << 20)
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
