# frozen_string_literal: true

# For tests that run OpenSSL::PKey::RSA on each fast engine and on stock
# jruby-openssl: restores the hook and the engine after each test.
module RsaEngineSwitching
  ENGINES = %i[openssl gmp].freeze

  def setup
    FastRandom::RSA.install
    @engine_before = FastRandom::RSA.engine
  end

  def teardown
    FastRandom::RSA.install
    FastRandom::RSA.engine = @engine_before
  end

  # Runs the block on each fast engine, selected; an engine that cannot run
  # here is only acceptable in bin/test's pass without the JNI library.
  def each_engine
    ENGINES.each do |engine|
      problem = FastRandom::RSA.engine_problem(engine)
      if problem
        assert(engine == :openssl && !TestHelper.native_library_expected?, "the #{engine} engine must run here: #{problem}")
        next
      end
      FastRandom::RSA.engine = engine
      yield engine
    end
  end

  # The block on stock jruby-openssl (fast_random's provider and PSS methods out of the way).
  def stock
    FastRandom::RSA.uninstall
    yield
  ensure
    FastRandom::RSA.install
  end
end
