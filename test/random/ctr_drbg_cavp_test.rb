# frozen_string_literal: true

# Passes main: the DRBG is Java on the JDK's AES, whatever the CPU features; each JRuby runs on its own JDK.

require_relative "../test_helper"

# NIST CAVP CTR_DRBG vectors (AES-256, no derivation function, no prediction
# resistance), run through fastrandom.random.CtrDrbg: the class every
# SecureRandom call goes through.
class CtrDrbgCavpTest < Minitest::Test
  CtrDrbg = Java::FastrandomRandom::CtrDrbg

  FIELDS = %w[EntropyInput PersonalizationString EntropyInputReseed AdditionalInputReseed
              AdditionalInput1 AdditionalInput2 ReturnedBits].freeze

  def self.vectors
    @vectors ||= parse(File.read(TestHelper.vector("ctr_drbg_aes256_nodf.txt")))
  end

  def self.parse(text)
    text.split(/\n\s*\n/).filter_map do |block|
      fields = block.lines.grep_v(/\A\s*#/).to_h do |line|
        name, value = line.split("=", 2).map(&:strip)
        [name, [value.to_s].pack("H*")]
      end
      fields if fields.key?("ReturnedBits")
    end
  end

  def test_the_file_holds_all_240_vectors_with_every_field
    assert_equal 240, self.class.vectors.size
    self.class.vectors.each { |v| assert_equal FIELDS.sort, v.keys.sort }
  end

  def test_every_vector_matches_returned_bits
    failures = self.class.vectors.each_with_index.reject do |v, _|
      drbg = CtrDrbg.new
      drbg.instantiate(bytes(v["EntropyInput"]), bytes(v["PersonalizationString"]))
      drbg.reseed(bytes(v["EntropyInputReseed"]), bytes(v["AdditionalInputReseed"]))
      out = Java::byte[64].new
      drbg.generate(out, 0, 64, bytes(v["AdditionalInput1"]))
      drbg.generate(out, 0, 64, bytes(v["AdditionalInput2"]))
      String.from_java_bytes(out) == v["ReturnedBits"]
    end
    assert_empty failures.map(&:last), "vectors whose output differs from ReturnedBits"
  end

  def test_a_wrong_entropy_length_is_refused
    assert_raises(Java::JavaLang::IllegalArgumentException) { CtrDrbg.new.instantiate(Java::byte[47].new, nil) }
  end

  def test_requests_over_64_kib_are_refused
    drbg = CtrDrbg.new
    drbg.instantiate(Java::byte[48].new, nil)
    assert_raises(Java::JavaLang::IllegalArgumentException) { drbg.generate(Java::byte[65_537].new, 0, 65_537, nil) }
  end

  private

  def bytes(string)
    string.to_java_bytes
  end
end
