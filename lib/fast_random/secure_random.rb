# frozen_string_literal: true

module FastRandom
  # The methods fast_random puts in front of SecureRandom's own (prepended to
  # its singleton class when the extension loads). Most are
  # Java (bytes, gen_random, random_bytes, hex, base64, urlsafe_base64, uuid,
  # uuid_v4, random_number, rand); the two below take keywords, so their
  # signatures are Ruby's and their work is Java's.
  module SecureRandomMethods
    DEFAULT_ALPHANUMERIC = Random::Formatter::ALPHANUMERIC.dup.freeze

    def uuid_v7(extra_timestamp_bits: 0)
      FastRandom::Generator.uuid_v7(Integer(extra_timestamp_bits))
    end

    def alphanumeric(n = nil, chars: DEFAULT_ALPHANUMERIC)
      n = 16 if n.nil?
      if Array === chars && (Integer === n || ((Float === n || Rational === n) && n > FastRandom::Generator::MAX_LENGTH))
        # Java, which raises NoMemoryError at once for lengths no String can
        # hold, where MRI's loop would grow the string until memory runs out.
        FastRandom::Generator.choose(chars, n)
      elsif chars.size < 2
        # MRI 3.3 and 3.4's choose loops forever here; this is what MRI 3.5's does.
        raise ArgumentError, "character source must not be empty" if chars.size.zero?

        chars.first * n
      else
        # MRI's own algorithm (Random::Formatter#choose) for other argument
        # types, so they convert and fail exactly as on MRI.
        choose(chars, n)
      end
    end
  end
end

