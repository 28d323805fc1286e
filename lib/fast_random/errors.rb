# frozen_string_literal: true

# fast_random's errors for MRI (fast_random/inactive.rb); on JRuby the
# extension defines the same classes (org.jruby.ext.fastrandom.Errors).

module FastRandom
  # Base class of fast_random's own errors.
  class Error < StandardError; end

  # A backend was asked for that cannot run here; the message says why
  # (no RDRAND, failed self-test, missing library, not x86-64, ...).
  class BackendUnavailableError < Error; end

  # An RSA or EC engine was asked for that cannot run here; the message says
  # why. FastRandom::RSA::EngineUnavailableError and
  # FastRandom::EC::EngineUnavailableError name this class.
  class EngineUnavailableError < Error; end

  # The CPU's random number instruction failed while in use (the :rdrand backend).
  class HardwareRandomError < Error; end
end
