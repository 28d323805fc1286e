# frozen_string_literal: true

# Passes 10.1: C under valgrind, the same whatever JRuby or pass runs the test.

require_relative "../test_helper"
require_relative "../support/rsa_test_keys"
require "open3"
require "openssl"
require "tmpdir"

# The constant-time property of the native RSA private operation, proved
# under valgrind on every bin/test run rather than claimed in a comment.
# tmp/native/ct_harness (test/native/ct_harness.c) is the library's C built
# with the test hooks and the C stand-ins for the AVX-512 IFMA intrinsics
# (valgrind cannot run AVX-512), so fast_random's own CRT runs on any x86_64
# CPU, with results the test checks against x^d mod n.
#
# memcheck: every private value (d, p, q, dP, dQ, qInv) is marked undefined
# before the key is made, so is everything computed from it (blinding
# factors are marked where they are drawn); over two whole private
# operations (blinding and its factors, CRT, check, unblinding,
# serialization) at 2048, 3000 (primes of 1500 bits, not a multiple of 64),
# 3072 and 4096 bits, no branch or memory address in fast_random's own code
# may depend on them, and libcrypto may show only the sites OpenSSL's own
# RSA private operation shows for the same keys in the same harness.
#
# callgrind: the instructions of one private operation (after the first,
# which draws its blinding factors at random) are the same for keys whose
# secrets differ in limb pattern (test/vectors/ct_keys.txt: a dP with a zero
# top limb, a qInv below 2^64) and for inputs 1, n - 1 and p.
class RsaConstantTimeTest < Minitest::Test
  ROOT = File.expand_path("../..", __dir__)
  HARNESS = File.join(ROOT, "tmp/native/ct_harness")
  KEYS = File.expand_path("../vectors/ct_keys.txt", __dir__)
  MEMCHECK_BITS = [2048, 3000, 3072, 4096].freeze

  def setup
    unless JRUBY_VERSION.start_with?("10.") && TestHelper.main_pass?
      skip "C under valgrind, the same on every pass: bin/test runs it once, in the JRuby 10.1 main pass"
    end
    assert File.executable?(HARNESS), "#{HARNESS} is missing (rake native_test builds it)"
    assert TestHelper.executable("valgrind"), "valgrind is missing (bin/setup installs it)"
  end

  def hex(integer, bytes = nil)
    h = integer.to_s(16)
    h = "0#{h}" if h.size.odd?
    bytes ? h.rjust(2 * bytes, "0") : h
  end

  def line(key, x)
    [key.n, key.e, key.d, key.p, key.q, key.dp, key.dq, key.qinv].map { |v| hex(v) }.join(" ") +
      " #{hex(x, (key.n.bit_length + 7) / 8)}\n"
  end

  # Runs the harness (under valgrind's tool, or alone); its output lines and the tool's file.
  def harness(tool, path, input, env: {})
    Dir.mktmpdir do |dir|
      out_file = File.join(dir, "tool.out")
      command = case tool
                when :memcheck then ["valgrind", "--tool=memcheck", "--xml=yes", "--xml-file=#{out_file}", HARNESS, "memcheck", *path]
                when :callgrind then ["valgrind", "--tool=callgrind", "--collect-atstart=no", "--callgrind-out-file=#{out_file}", HARNESS, "callgrind", *path]
                else [HARNESS, "none", *path]
                end
      out, err, status = Open3.capture3(env, *command, stdin_data: input)
      assert status.success?, "#{command.join(' ')} failed: #{err[-2000..] || err}"
      [out.lines.map(&:split), File.exist?(out_file) ? File.read(out_file) : nil]
    end
  end

  Site = Struct.new(:kind, :ip, :obj, :fn, :file, :line)

  # Each memcheck error's site: its first frame outside valgrind's own
  # replacements (memcpy and the like report for their caller).
  def sites(xml)
    xml.scan(%r{<error>(.*?)</error>}m).map do |(error)|
      kind = error[%r{<kind>(.*?)</kind>}, 1]
      frames = error.scan(%r{<frame>(.*?)</frame>}m).map do |(frame)|
        Site.new(kind, *%w[ip obj fn file line].map { |tag| frame[%r{<#{tag}>(.*?)</#{tag}>}m, 1] })
      end
      frames.find { |frame| !frame.obj.to_s.include?("vgpreload") } || frames.first
    end
  end

  def own?(site)
    site.obj.to_s.end_with?("/ct_harness")
  end

  def memcheck_keys
    random = Random.new(7)
    MEMCHECK_BITS.map { |bits| RsaTestKeys.key(bits, 65_537) }.map { |key| [key, random.rand(key.n)] }
  end

  def test_no_secret_dependent_branch_or_address
    keys = memcheck_keys
    input = keys.map { |key, x| line(key, x) }.join
    ours, ours_xml = harness(:memcheck, "ours", input)
    baseline, baseline_xml = harness(:memcheck, "openssl", input)

    keys.zip(ours, baseline).each do |(key, x), (path, result), (_, openssl_result)|
      expected = x.pow(key.d, key.n)
      assert_equal hex(expected, (key.n.bit_length + 7) / 8), result, "#{key.n.bit_length} bits: wrong result"
      assert_equal result, openssl_result
      own = key.p.bit_length > 1024
      assert_equal own ? "own" : "openssl", path, "#{key.n.bit_length} bits took the wrong path"
    end

    our_sites = sites(ours_xml)
    own_sites = our_sites.select { |site| own?(site) }
    assert_empty own_sites.map { |s| "#{s.kind} in #{s.fn} (#{s.file}:#{s.line})" }.uniq,
                 "secret-dependent branches or addresses in fast_random's own code"
    allowed = sites(baseline_xml).reject { |site| own?(site) }.map { |site| [site.kind, site.ip] }
    extra = our_sites.reject { |site| own?(site) }.reject { |site| allowed.include?([site.kind, site.ip]) }
    assert_empty extra.map { |s| "#{s.kind} at #{s.ip} in #{s.fn || s.obj}" }.uniq,
                 "libcrypto sites OpenSSL's own private operation does not show"
  end

  def callgrind_instructions(output)
    output[/^totals:\s+(\d+)/, 1]&.to_i || output[/^summary:\s+(\d+)/, 1].to_i
  end

  def test_the_same_instructions_whatever_the_secrets
    keys = File.readlines(KEYS).reject { |l| l.start_with?("#") }.to_h do |l|
      name, *values = l.split
      [name, RsaTestKeys::Key.new(*values.map { |v| v.to_i(16) })]
    end
    counts = keys.flat_map do |name, key|
      [1, key.n - 1, key.p].map do |x|
        lines, output = harness(:callgrind, "ours", line(key, x))
        assert_equal ["own", hex(x.pow(key.d, key.n), (key.n.bit_length + 7) / 8)], lines.first, name
        ["#{name}, x = #{x == 1 ? '1' : x == key.p ? 'p' : 'n - 1'}", callgrind_instructions(output)]
      end
    end
    assert_operator counts.first.last, :>, 0
    assert_equal 1, counts.map(&:last).uniq.size, "instruction counts differ: #{counts.to_h}"
  end

  # Secrets wiped: after two private operations, no word of the stack they
  # used holds a 52-bit limb of p or q (without the stack burned after each
  # operation, some 45 do, left by the products' spilled operands).
  def test_no_limb_of_p_or_q_left_on_the_stack
    keys = memcheck_keys.select { |key, _| key.p.bit_length > 1024 }
    lines, = harness(:none, "residue", keys.map { |key, x| line(key, x) }.join)
    residues = lines.select { |fields| fields.first == "residue" }.map(&:last)
    assert_equal ["0"] * keys.size, residues
  end

  # libcrypto 3.0.4 (its IFMA code for 1024-bit primes is broken,
  # CVE-2022-2274) is not used for that path: those keys take our CRT.
  def test_libcrypto_3_0_4_is_not_used_for_its_broken_path
    key, x = memcheck_keys.first
    [["30000040", "own"], ["30000130", "openssl"]].each do |version, path|
      lines, = harness(:none, "ours", line(key, x), env: { "FAST_RANDOM_TEST_OPENSSL_VERSION" => version })
      assert_equal [path, hex(x.pow(key.d, key.n), (key.n.bit_length + 7) / 8)], lines.first, version
    end
  end

  # The EC engine derives a public point from the key's own private value,
  # which OpenSSL flags BN_FLG_CONSTTIME: the point is right, and memcheck
  # finds no site in the derivation that a derivation from an unflagged
  # copy (what the engine did before) does not also show.
  def test_ec_public_point_from_the_flagged_private_value
    { 415 => "prime256v1", 715 => "secp384r1", 716 => "secp521r1" }.each do |nid, curve|
      key = OpenSSL::PKey::EC.generate(curve)
      bytes = (key.group.degree + 7) / 8
      input = "#{hex(key.private_key.to_i, bytes)}\n"
      ours, ours_xml = harness(:memcheck, ["ec", nid.to_s], input)
      _, unflagged_xml = harness(:memcheck, ["ec-unflagged", nid.to_s], input)
      x = key.public_key.to_octet_string(:uncompressed)[1, bytes].unpack1("H*")
      assert_equal [["ec", x]], ours, curve
      reference = sites(unflagged_xml).map { |site| [site.kind, site.ip] }
      extra = sites(ours_xml).select { |site| site.fn.nil? || !site.fn.start_with?("test_", "BN_bin2bn") }
                             .reject { |site| reference.include?([site.kind, site.ip]) }
      assert_empty extra.map { |s| "#{s.kind} at #{s.ip} in #{s.fn || s.obj}" }.uniq, curve
    end
  end
end
