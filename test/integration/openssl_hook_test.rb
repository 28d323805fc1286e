# frozen_string_literal: true

require_relative "../test_helper"

# OpenSSL::Random.random_bytes uses fast_random's generators whether openssl
# is loaded before or after fast_random, and fast_random never loads openssl.
# Each case runs in a fresh JRuby so the load order is real.
class OpenSSLHookTest < Minitest::Test
  REPORT = <<~RUBY
    before = FastRandom.stats[:bytes_generated]
    bytes = OpenSSL::Random.random_bytes(100_000)
    p [bytes.bytesize, bytes.encoding.to_s, OpenSSL::Random.method(:random_bytes).owner.to_s,
       FastRandom.stats[:bytes_generated] - before >= 100_000]
  RUBY

  EXPECTED = '[100000, "ASCII-8BIT", "FastRandom::OpenSSLRandomMethods", true]'

  def run_jruby(code)
    out, err, status = TestHelper.jruby(code)
    assert status.success?, "jruby failed: #{err}"
    out.lines.last.to_s.strip
  end

  def test_require_fast_random_does_not_load_openssl
    assert_equal "[false, false]", run_jruby(<<~RUBY)
      require "fast_random"
      SecureRandom.uuid
      p [defined?(OpenSSL).nil? == false, $LOADED_FEATURES.any? { |f| f.end_with?("/openssl.rb") }]
    RUBY
  end

  # jruby-openssl looks its provider's name up in the JVM's list
  # (SecurityHelper.isProviderRegistered): the JVM-wide provider, named
  # FastRandom, must not be taken for it.
  def test_the_provider_jruby_openssl_holds_is_named_apart_from_the_jvm_wide_one
    out, err, status = TestHelper.jruby(<<~RUBY)
      require "fast_random"; require "openssl"
      FastRandom.install_jca_provider
      helper = Java::OrgJrubyExtOpenssl::SecurityHelper
      p [helper.getSecurityProvider.getName, java.security.Security.getProvider("FastRandom").nil?, helper.isProviderRegistered]
    RUBY
    assert status.success?, "jruby failed: #{err}"
    assert_equal '["FastRandom-jruby-openssl", false, false]', out.lines.last.to_s.strip
  end

  def test_openssl_loaded_before_fast_random
    assert_equal EXPECTED, run_jruby("require 'openssl'; require 'fast_random'\n" + REPORT)
  end

  def test_openssl_loaded_after_fast_random
    assert_equal EXPECTED, run_jruby("require 'fast_random'; require 'openssl'\n" + REPORT)
  end

  def test_openssl_loaded_through_another_library
    assert_equal EXPECTED, run_jruby("require 'fast_random'; require 'net/https'; require 'openssl'\n" + REPORT)
  end

  def test_pseudo_bytes_and_odd_arguments
    assert_equal '[8, 3, "ArgumentError", "TypeError"]', run_jruby(<<~RUBY)
      require "fast_random"
      require "openssl"
      errors = [-1, "x"].map { |n| (OpenSSL::Random.random_bytes(n) rescue $!.class.name) }
      p [OpenSSL::Random.pseudo_bytes(8).bytesize, OpenSSL::Random.random_bytes(3.7).bytesize, *errors]
    RUBY
  end
end
