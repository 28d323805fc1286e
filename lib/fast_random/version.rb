# frozen_string_literal: true

module FastRandom
  VERSION = "0.1.0"
  # The oldest JRuby supported (README, "Supported versions"): on an older
  # one fast_random stays out of the way, as on MRI, and says so once.
  OLDEST_JRUBY = "9.4.8.0"
end
