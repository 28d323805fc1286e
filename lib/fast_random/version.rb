# frozen_string_literal: true

module FastRandom
  VERSION = "0.1.0"
end
