# frozen_string_literal: true

# Passes main: the DRBG's state in the JDK's AES, the same with any seed source; each JRuby runs on its own JDK.

require_relative "../test_helper"
require "json"

# What a heap dump shows of a thread's generator: its current DRBG key and
# the next output, never output already handed out. test/support/heap_attacker.rb
# plays the attacker through reflection (every array reachable from the
# generator, the JDK's AES key copies, key schedules and counter blocks
# included) in a child JRuby whose JVM opens the JDK's crypto packages, as a
# heap dump would.
class HeapExposureTest < Minitest::Test
  ATTACKER = File.expand_path("../support/heap_attacker.rb", __dir__)
  OPENS = %w[javax.crypto com.sun.crypto.provider].map { |pkg| "--add-opens=java.base/#{pkg}=ALL-UNNAMED" }.join(" ")

  def attack
    out, err, status = TestHelper.jruby("require #{ATTACKER.dump}; puts JSON.generate(HeapAttacker.run)",
                                        env: { "FAST_RANDOM_JAVA_OPTS" => OPENS }, long: true)
    assert status.success?, "the attacker failed: #{err}"
    JSON.parse(out.lines.last)
  end

  def test_no_output_already_handed_out_can_be_rebuilt_from_the_generator
    report = attack
    # The controls: the search read the JDK's cipher internals, and it does
    # find what a heap dump is documented to show (the next output).
    refute_empty report["jdk_crypto_classes_read"].grep(/\Acom\.sun\.crypto\.provider\./), report.inspect
    assert report["predicts_next_output"], "the search cannot even predict the next output: #{report.inspect}"
    assert_operator report["handed_out_blocks"], :>, 4096

    assert_equal 0, report["recovered_count"], "handed-out blocks rebuilt from the heap: #{report['recovered']}"
  end
end
