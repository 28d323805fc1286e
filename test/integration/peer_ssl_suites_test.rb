# frozen_string_literal: true

# Passes 10.1: the suites run in children on the pass's JRuby and its jruby-openssl; no setting of a pass changes them.

require_relative "../test_helper"
require_relative "../support/peer_ssl_suites"

# The peer suites of the TLS data path (test/support/peer_ssl_suites.rb):
# jruby-openssl's own SSL tests and ruby/openssl's test_ssl.rb and
# test_pair.rb, run on this JRuby's release (10.1.1.0 in bin/test, each
# JRuby 10 release with --all-jrubies), stock and with fast_random required
# first. No test that passes on stock may fail, error, skip, hang or go
# unrun with fast_random. bin/test leaves out the two ruby/openssl tests
# that take 30 s each to fail on stock (PeerSslSuites::SLOW); bin/test
# --slow runs them too. The outcomes of each run are in tmp/peer-ssl/RELEASE/.
class PeerSslSuitesTest < Minitest::Test
  PeerSslSuites::NAMES.each do |name|
    define_method("test_#{name.tr('-', '_')}_passes_with_fast_random_where_it_passes_on_stock") do
      suite = PeerSslSuites.suite(name, jruby: TestHelper.child_jruby)
      skip suite.missing if suite.missing

      # The JRubies load the shipped library, as a user's do: the pass's
      # stand-in build runs RSA's IFMA code on slow C stand-ins, which would
      # double the time of the side with fast_random and prove nothing of TLS.
      out = File.join(PeerSslSuites::OUT, suite.jruby)
      FileUtils.mkdir_p(out)
      result = PeerSslSuites.compare(suite, quick: !ENV["FAST_RANDOM_SLOW"], out: out,
                                            env: { "FAST_RANDOM_NATIVE_LIBRARY" => nil })
      logs = File.join(out, "#{name}-*.log")
      assert result[:stock].value?("pass"), "no test of #{name} passed on stock: the suite did not run (#{logs})"
      result[:intermittent].each { |test| warn "#{name}: #{test} failed with fast_random once, and passed when run again" }
      assert_empty result[:pass_to_fail], "pass→fail in #{name} (#{logs})"
      assert result[:run]["fast_random"], "the run with fast_random did not end, or had no fast_random (#{logs})"
      assert_equal true, result[:run]["tls_installed"], "FastRandom::TLS was not installed in the run (#{logs})"
      assert_operator result[:run]["tls_served"].to_i, :>, 0, "FastRandom::TLS's data path served nothing in the run (#{logs})"
    end
  end
end
