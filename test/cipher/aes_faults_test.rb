# frozen_string_literal: true

# Passes main: AesCipher's own fallbacks and interleavings, which no CPU feature or native engine touches; one per jruby-openssl.

require_relative "../test_helper"
require "json"
require "openssl"
require "digest"
require "jruby"

# Failure paths of FastRandom::AES (src/main/java/fastrandom/cipher/AesCipher.java):
# a JDK call that throws (made to, through the test build's AesFaults, at
# each step: getting the JDK's cipher, its init, AAD, each update, final)
# gives stock's bytes and errors, below and above the replay limit (16 MiB
# of a GCM message), said by warnings that count the faults; nothing wrong,
# partial or unverified comes out; a message that cannot be replayed is
# refused, never restarted; and once the JDK works again the next message
# is on it. The warnings are counted in a child JRuby.
class AesFaultsTest < Minitest::Test
  STEPS = %w[cipher init aad update final].freeze

  CHILD = <<~'RUBY'
    require TEST_JAR # first: fast_random looks for its fault injector once, at its first fault site
    require "fast_random"
    require "openssl"
    require "json"
    aes = Java::FastrandomCipher::AesFaults
    key = "k" * 32
    run = lambda do |name, direction, chunks, aad: nil, tag: nil, iv: nil|
      c = OpenSSL::Cipher.new(name)
      direction == :encrypt ? c.encrypt : c.decrypt
      c.key = key[0, c.key_len]
      c.iv = iv || "i" * c.iv_len
      c.auth_tag = tag if tag
      c.auth_data = aad if aad
      out = chunks.map { |chunk| c.update(chunk) }
      out << c.final
      result = {"out" => out.map { |s| s.unpack1("H*") }}
      result["tag"] = c.auth_tag.unpack1("H*") if name.end_with?("gcm") && direction == :encrypt
      result
    rescue OpenSSL::Cipher::CipherError => e
      {"error" => [e.class.name, e.message], "out" => (out || []).map { |s| s.unpack1("H*") }}
    end
    plain = (0...300).map { |i| (i * 7 % 256).chr }.join
    gcm = run.("aes-256-gcm", :encrypt, [plain], aad: "header")
    ct = [gcm["out"].join].pack("H*")
    tag = [gcm["tag"]].pack("H*")
    bad_tag = tag.dup.tap { |t| t.setbyte(0, t.getbyte(0) ^ 1) }
    cbc_ct = [run.("aes-256-cbc", :encrypt, [plain])["out"].join].pack("H*")
    cases = {
      "gcm encrypt" => -> { run.("aes-256-gcm", :encrypt, [plain[0, 100], plain[100..]], aad: "header") },
      "gcm decrypt" => -> { run.("aes-256-gcm", :decrypt, [ct[0, 17], ct[17..]], aad: "header", tag: tag) },
      "gcm bad tag" => -> { run.("aes-256-gcm", :decrypt, [ct], aad: "header", tag: bad_tag) },
      "cbc encrypt" => -> { run.("aes-256-cbc", :encrypt, [plain[0, 33], plain[33..]]) },
      "cbc decrypt" => -> { run.("aes-256-cbc", :decrypt, [cbc_ct[0, 40], cbc_ct[40..]]) },
      "cbc bad padding" => -> { run.("aes-128-cbc", :decrypt, ["x" * 32]) },
      "ctr encrypt" => -> { run.("aes-128-ctr", :encrypt, [plain[0, 5], plain[5..]]) },
    }
    stats = -> { FastRandom::AES.stats }
    report = {}
    FastRandom::AES.uninstall
    report["stock"] = cases.transform_values(&:call)
    FastRandom::AES.install
    report["faults"] = {}
    STEPS.each do |step|
      cases.each do |label, call|
        aes.set(->(s) { s == step })
        before = stats.()
        result = call.()
        aes.set(nil)
        middle = stats.()
        again = call.()
        after = stats.()
        report["faults"]["#{label} at #{step}"] = {
          "result" => result, "again" => again,
          "faults" => middle[:faults] - before[:faults],
          "jdk_after" => after[:jdk] - middle[:jdk], "faults_after" => after[:faults] - middle[:faults],
        }
      end
    end
    # A JDK that always fails: every message still right, on BouncyCastle.
    aes.set(->(_) { true })
    report["always"] = cases.transform_values(&:call)
    aes.set(nil)
    report["total_faults"] = FastRandom::AES.stats[:faults]
    puts JSON.generate(report)
  RUBY

  def test_a_failing_jdk_call_gives_stock_s_result_once_warned_and_the_next_message_is_on_the_jdk
    out, err, status = TestHelper.jruby("STEPS = #{STEPS.inspect}\nTEST_JAR = #{TestHelper::TEST_JAR.dump}\n#{CHILD}")
    assert status.success?, err
    report = JSON.parse(out.lines.last)
    stock = report.fetch("stock")
    assert_equal ["OpenSSL::Cipher::CipherError", "mac check in GCM failed"], stock["gcm bad tag"]["error"]
    assert_equal ["OpenSSL::Cipher::CipherError", "pad block corrupted"], stock["cbc bad padding"]["error"]

    # Stock releases unverified GCM plaintext from update; fast_random none.
    stock["gcm bad tag"]["out"] = []
    report.fetch("faults").each do |name, outcome|
      label = name.split(" at ").first
      expected = stock.fetch(label)
      assert_equal joined(expected), joined(outcome["result"]), "#{name}: the result under the fault"
      assert_equal joined(expected), joined(outcome["again"]), "#{name}: the next message"
      assert_equal 0, outcome["faults_after"], "#{name}: the next message failed too"
      assert_equal 1, outcome["jdk_after"], "#{name}: the next message is not on the JDK" unless expected["error"]
    end
    # A message BouncyCastle refuses too is no fault, whatever the JDK did.
    assert_equal 0, report["faults"]["gcm bad tag at final"]["faults"]
    assert_equal 0, report["faults"]["gcm bad tag at cipher"]["faults"]
    # Each step fails somewhere on the way (the test can tell a fault from none).
    STEPS.each do |step|
      faulted = report["faults"].select { |name, o| name.end_with?(" at #{step}") && o["faults"].positive? }
      refute_empty faulted, "no message met the failure at #{step}"
    end
    report.fetch("always").each do |label, outcome|
      assert_equal joined(stock.fetch(label)), joined(outcome), "#{label} with every JDK call failing"
    end

    # Warned at the 1st, 10th, 100th... fault, each time with the count (I1).
    faults = report.fetch("total_faults")
    assert_operator faults, :>=, 10
    warnings = err.lines.grep(/AES/)
    expected = (0..).lazy.map { |e| 10**e }.take_while { |n| n <= faults }.to_a
    assert_equal expected.size, warnings.size, err
    assert_match(/AES: a call to the JDK's cipher failed \(the last: .*injected failure.*\); jruby-openssl's BouncyCastle finished/,
                 warnings.first)
    assert_match(/AES: 10 calls to the JDK's cipher failed .*FastRandom::AES.stats\[:faults\] counts them/, warnings[1])
  end

  LIMIT = 16 << 20 # AesCipher::REPLAY_LIMIT

  # Every JDK call of a message failing in turn (getting the cipher, init,
  # AAD, the 1st, 2nd and 3rd update, final), at sizes below, just below
  # and above the replay limit: stock's bytes, tag and error each time, and
  # the next message on the JDK. Above the limit a GCM message goes on on
  # BouncyCastle, so no JDK call can fail there (and the tag is the right
  # one, where a failure past 16 MiB used to give the empty message's).
  def test_a_fault_at_any_step_below_or_above_the_replay_limit_gives_stock_s_result
    faults = Java::FastrandomCipher::AesFaults
    key = "K" * 32
    problems = []
    [1000, LIMIT - 64, LIMIT + 21].each do |size| # below, just below with the tag, above
      plain = Random.new(size).bytes(size)
      chunks = [plain[0, size / 3], plain[size / 3, size / 3], plain[(2 * size / 3)..]]
      gcm = run_message("aes-256-gcm", :encrypt, key, chunks, aad: "header")
      ct = gcm[:out]
      cases = {
        "gcm encrypt" => [:encrypt, chunks, "aes-256-gcm"],
        "gcm decrypt" => [:decrypt, [ct[0, 17], ct[17, size / 2], ct[(17 + size / 2)..]], "aes-256-gcm"],
        "cbc encrypt" => [:encrypt, chunks, "aes-256-cbc"],
        "ctr decrypt" => [:decrypt, chunks, "aes-128-ctr"],
      }
      cases.each do |label, (direction, input, name)|
        next if size > 1000 && !name.end_with?("gcm") # CBC and CTR keep one block at any size

        options = name.end_with?("gcm") ? { aad: "header", tag: direction == :decrypt ? gcm[:tag] : nil } : {}
        FastRandom::AES.uninstall
        expected = digest(run_message(name, direction, key, input, **options))
        FastRandom::AES.install
        # Large messages: the cipher comes from the thread's spare (no "cipher" step), and the next message
        # is checked once, after the last fault.
        points = size > 1000 ? %w[init aad update:1 update:2 update:3 final] : %w[cipher init aad update:1 update:2 update:3 final]
        points.each do |at|
          step, nth = at.split(":")
          seen = 0
          faults.set(->(s) { s == step && (seen += 1) == (nth || 1).to_i })
          begin
            got = run_message(name, direction, key, input, **options)
          ensure
            faults.set(nil)
          end
          where = "#{label}, #{size} B, fault at #{at}"
          problems << "#{where}: #{digest(got).inspect}, stock #{expected.inspect}" unless digest(got) == expected
          next if size > 1000 && at != points.last

          before = FastRandom::AES.stats
          again = digest(run_message(name, direction, key, input, **options))
          after = FastRandom::AES.stats
          problems << "#{where}: the next message #{again.inspect}" unless again == expected
          problems << "#{where}: the next message faulted" unless after[:faults] == before[:faults]
          engine = size > LIMIT && name.end_with?("gcm") ? 0 : 1 # past the limit: BouncyCastle
          problems << "#{where}: the next message's engine" unless after[:jdk] - before[:jdk] == engine
        end
      end
    end
    assert_empty problems, problems.first(10).join("\n")
  end

  # F1 and N2: AAD after a GCM message's data is refused at auth_data=
  # itself, as on MRI ("couldn't set additional authenticated data"),
  # before any output and whatever the size (past the replay limit
  # BouncyCastle used to restart the message, reusing its keystream); the
  # calls after it are refused too, until the next init; and nothing is
  # left pending in jruby-openssl: after iv=, the next message on the same
  # Cipher, encrypting and decrypting, is exactly what a fresh Cipher gives
  # (it used to be authenticated over the refused AAD).
  def test_late_aad_is_refused_at_auth_data_and_nothing_carries_over
    key = "K" * 32
    fresh = gcm(:encrypt, key, "m" * 12)
    fresh_ct = fresh.update("fresh") + fresh.final
    fresh_tag = fresh.auth_tag
    [100, LIMIT + 100].each do |size|
      plain = "p" * size
      %i[encrypt decrypt].each do |direction|
        c = gcm(direction, key, "n" * 12, tag: direction == :decrypt ? "t" * 16 : nil)
        first = c.update(plain)
        error = assert_raises(OpenSSL::Cipher::CipherError, "#{direction} #{size}") { c.auth_data = "late" }
        assert_match(/\Acouldn't set additional authenticated data: AES-GCM takes it before the message's data/, error.message)
        assert_raises(OpenSSL::Cipher::CipherError) { c.update(plain) }
        assert_raises(OpenSSL::Cipher::CipherError) { c.final }
        assert_equal size - size % 16, first.bytesize if direction == :encrypt

        c.iv = "m" * 12
        if direction == :encrypt
          assert_equal [fresh_ct, fresh_tag], [c.update("fresh") + c.final, c.auth_tag], "#{direction} #{size}: the next message"
        else
          c.auth_tag = fresh_tag
          assert_equal "fresh", c.update(fresh_ct) + c.final, "#{direction} #{size}: the next message"
        end
      end
    end
  end

  # N2: AAD given while a message has no data yet stays jruby-openssl's
  # until its next update, as on stock, wherever it is given: after iv=,
  # after reset or pkcs5_keyivgen (jruby-openssl's cipher is initialized
  # then), twice (the last one counts), before a reset or a new IV, and on
  # a Cipher reused after a final. Each way the messages are stock's,
  # encrypting and decrypting.
  def test_aad_before_the_data_gives_stock_s_messages
    key = "K" * 16
    sealed = lambda do |aad|
      e = gcm(:encrypt, key, "i" * 12)
      e.auth_data = aad if aad
      [e.update("a message") + e.final, e.auth_tag]
    end
    run = lambda do
      out = []
      [false, true].each do |initialized|
        e = gcm(:encrypt, key, "i" * 12)
        e.reset if initialized # jruby-openssl initializes its cipher now, not at the next update
        e.auth_data = "first"
        e.auth_data = "second"
        out << [e.update("x") + e.final, e.auth_tag]
        ct, tag = sealed.("header")
        d = gcm(:decrypt, key, "i" * 12)
        d.reset if initialized
        d.auth_data = "header"
        d.reset if initialized
        d.auth_tag = tag
        out << (d.update(ct) + d.final rescue $!.message)
      end
      # AAD, then a new IV or key: it goes with the next message.
      e = gcm(:encrypt, key, "i" * 12)
      e.reset
      e.auth_data = "header"
      e.iv = "j" * 12
      out << [e.update("y") + e.final, e.auth_tag]
      e = gcm(:encrypt, key, "i" * 12)
      e.pkcs5_keyivgen("secret", "saltsalt")
      e.auth_data = "header"
      out << [e.update("z") + e.final, e.auth_tag]
      # A decryption Cipher reused after a final, AAD before its new IV.
      ct1, tag1 = sealed.(nil)
      ct2, tag2 = sealed.("header")
      d = gcm(:decrypt, key, "i" * 12)
      d.auth_tag = tag1
      out << d.update(ct1) + d.final
      d.auth_data = "header"
      d.iv = "i" * 12
      d.auth_tag = tag2
      out << (d.update(ct2) + d.final rescue $!.message)
      out
    end
    FastRandom::AES.uninstall
    expected = run.()
    FastRandom::AES.install
    assert_equal expected, run.()
  end

  # N3: the bound on unverified plaintext counts ciphertext only. A
  # tampered GCM message of up to LIMIT bytes of ciphertext releases
  # nothing from update, whether its tag comes by auth_tag= or at the end
  # of the data (where the tag's bytes used to count, and 16 MiB - 15 to
  # 16 MiB released almost all of it); past LIMIT it streams, exactly as
  # stock's, both ways.
  def test_the_unverified_plaintext_bound_counts_ciphertext_only
    key = "K" * 32
    e = gcm(:encrypt, key, "n" * 12)
    ct = e.update(Random.new(3).bytes(LIMIT + 16)) + e.final
    bad_tag = "t" * 16
    decrypt = lambda do |size, inline|
      d = gcm(:decrypt, key, "n" * 12, tag: inline ? nil : bad_tag)
      data = ct[0, size]
      data += bad_tag if inline
      half = data.bytesize / 2
      released = d.update(data[0, half]).bytesize + d.update(data[half..]).bytesize
      error = (d.final rescue $!)
      [released, error.class]
    end
    [-16, -1, 0, 1, 15, 16].each do |delta|
      size = LIMIT + delta
      [false, true].each do |inline|
        FastRandom::AES.uninstall
        stock = decrypt.(size, inline)
        FastRandom::AES.install
        got = decrypt.(size, inline)
        where = "ciphertext LIMIT#{format("%+d", delta)}, tag #{inline ? "inline" : "by auth_tag="}"
        assert_equal OpenSSL::Cipher::CipherError, got.last, where
        assert_operator stock.first, :>, 0, where
        assert_equal (delta <= 0 ? 0 : stock.first), got.first, where
      end
    end
  end

  # F6: after a fault moved a CBC message to BouncyCastle, an error at its
  # final resets the cipher as stock's resets (to the init's IV): the next
  # message, with no new init, decrypts as on stock.
  def test_a_replayed_message_that_ends_in_an_error_resets_as_stock_s_does
    faults = Java::FastrandomCipher::AesFaults
    key = "K" * 32
    iv = "I" * 16
    good = OpenSSL::Cipher.new("aes-256-cbc").encrypt.tap { |e| e.key = key; e.iv = iv }
    ct = good.update("a message of some length, more than two blocks") + good.final
    run = lambda do
      c = OpenSSL::Cipher.new("aes-256-cbc").decrypt
      c.key = key
      c.iv = iv
      c.update("x" * 40)
      faults.set(->(s) { s == "update" })
      c.update("y" * 40)
      faults.set(nil)
      error = (c.final rescue $!) # 80 bytes of junk: bad padding or more
      [error.class, c.update(ct) + c.final]
    ensure
      faults.set(nil)
    end
    FastRandom::AES.uninstall
    expected = run.()
    FastRandom::AES.install
    assert_equal expected, run.()
    assert_equal "a message of some length, more than two blocks", expected.last
  end

  # F5: an update that raised (here in jruby-openssl itself, whose IV
  # bookkeeping fails after iv_len= grows) releases nothing of its input
  # later: stock lost that update's plaintext with the exception and its
  # final gives only the rest; fast_random's final gives the same bytes (it
  # used to give all of them).
  def test_an_update_that_raised_releases_nothing_of_its_input_later
    key = "K" * 16
    plain = (0...100).map { |i| (65 + i % 26).chr }.join
    e = OpenSSL::Cipher.new("aes-128-gcm").encrypt
    e.key = key
    e.iv = "n" * 12
    ct = e.update(plain) + e.final
    tag = e.auth_tag
    run = lambda do
      c = OpenSSL::Cipher.new("aes-128-gcm").decrypt
      c.key = key
      c.iv = "n" * 12
      c.auth_tag = tag
      out = c.update(ct[0, 40]) # jruby-openssl sizes its last-IV copy: 12 bytes
      c.iv_len = 16
      error = assert_raises(OpenSSL::Cipher::CipherError) { c.update(ct[40, 40]) } # it copies 16 into 12
      out << c.update(ct[80, 10]) << c.update(ct[90, 10]) << c.final
      [error.class, out]
    end
    FastRandom::AES.uninstall
    expected = run.()
    FastRandom::AES.install
    assert_equal expected, run.()
    assert_equal plain[0, 16] + plain[64..], expected.last
  end

  # I1 and N6: no way in the shipped jar to make AES, PBKDF2 or an install
  # fail, nor to swap what the generators are made of. Their sites ask
  # fastrandom.Faults, whose injector is a final field, looked up
  # once as a service that only the test jar provides (the shipped jar has
  # neither a provider, its services file nor any class of test/java); no
  # class of the cipher, kdf, random and support packages, nor the bindings
  # that replace jruby-openssl's methods, has a static field of a function
  # or generator-part type that could be set; AesCipher's public statics are
  # its factory and its counts, ThreadGenerators' the calls' generators, the
  # backend (FastRandom.backend=), reseed! and the counts: no seed or entropy
  # source, reseed policy or source decorator; no generator hands out a copy
  # of its DRBG (a shared one's predicts other threads'); the bookkeeping of
  # jruby-openssl's update (UpdateCalls) has no static method or settable
  # field: it is the provider's instance.
  def test_the_shipped_jar_has_no_fault_hook
    loader = JRuby.runtime.getJRubyClassLoader
    modifier = java.lang.reflect.Modifier
    jar = File.join(TestHelper::ROOT, "lib/fast_random/fast_random.jar")
    entries = java.util.jar.JarFile.new(jar).entries.map(&:getName)
    refute_includes entries, "META-INF/services/fastrandom.FaultInjector"
    test_classes = Dir.glob("**/*.java", base: File.join(TestHelper::ROOT, "test/java")).map { |f| f.sub(/\.java\z/, ".class") }
    assert_includes test_classes, "fastrandom/random/GeneratorFaults.class"
    assert_empty test_classes & entries, "classes of the test build's jar in the shipped one"
    injector = java.lang.Class.forName("fastrandom.FaultInjector", false, loader)
    names = entries.grep(%r{\A(fastrandom/(cipher|kdf|random|support)/|org/jruby/ext/fastrandom/(StockMethods|CipherMethods|CipherFields)\b).*\.class\z})
    refute_empty names
    hook_types = %w[java.util.function. fastrandom.FaultInjector
                    fastrandom.random.BlockSource fastrandom.random.EntropySource fastrandom.random.ReseedPolicy]
    settable = []
    names.each do |entry|
      type = java.lang.Class.forName(entry.delete_suffix(".class").tr("/", "."), false, loader)
      refute(injector.isAssignableFrom(type) && !type.isInterface, "#{type.getName} is a fault injector")
      type.getDeclaredFields.each do |field|
        next unless modifier.isStatic(field.getModifiers) && !modifier.isFinal(field.getModifiers)
        next unless hook_types.any? { |prefix| field.getType.getName.start_with?(prefix) }

        settable << "#{type.getName}.#{field.getName}"
      end
    end
    assert_empty settable, "static fields a shipped caller could set"
    faults = java.lang.Class.forName("fastrandom.Faults$Injector", false, loader)
    assert modifier.isFinal(faults.getDeclaredField("INSTANCE").getModifiers)
    public_statics = lambda do |name|
      java.lang.Class.forName(name, false, loader).getDeclaredMethods
                     .select { |m| modifier.isPublic(m.getModifiers) && modifier.isStatic(m.getModifiers) }.map(&:getName).sort
    end
    assert_equal %w[bouncyCastleMessages budgetBytes faults heldBytes jdkMessages newInstance overBudget],
                 public_statics.("fastrandom.cipher.AesCipher")
    assert_equal %w[backend bytesGenerated entropySource forCall generatorsCreated hasOwn own reseedAll seedsTaken setBackend sharedGenerators],
                 public_statics.("fastrandom.random.ThreadGenerators")
    drbg_copies = java.lang.Class.forName("fastrandom.random.BufferedRandom", false, loader).getDeclaredMethods
                           .select { |m| m.getReturnType.getName == "fastrandom.random.CtrDrbg" && !modifier.isPrivate(m.getModifiers) && !modifier.isStatic(m.getModifiers) }
    assert drbg_copies.none? { |m| modifier.isPublic(m.getModifiers) || modifier.isProtected(m.getModifiers) },
           "a shared generator's DRBG copied by any caller predicts other threads' output"
    calls = java.lang.Class.forName("fastrandom.cipher.UpdateCalls", false, loader)
    members = calls.getDeclaredMethods.to_a + calls.getDeclaredFields.reject { |f| modifier.isFinal(f.getModifiers) }
    assert_empty members.select { |m| modifier.isStatic(m.getModifiers) && !m.isSynthetic }.map(&:getName)
  end

  # Streams of any size in a small heap: CBC and CTR keep one block, GCM up
  # to the replay limit (a decryption holds its plaintext until then, and
  # streams past it as stock's does). 128 MB each way under -Xmx160m, where
  # GCM decryption used to hold the whole message and run out of memory.
  def test_streams_run_in_bounded_memory
    out, err, status = TestHelper.jruby(<<~'RUBY', env: { "FAST_RANDOM_JAVA_OPTS" => "-Xmx160m" }, long: true)
      require "fast_random"
      require "openssl"
      require "digest"
      chunk = "s" * (1 << 20)
      report = {}
      %w[aes-128-ctr aes-256-cbc aes-256-gcm].each do |name|
        e = OpenSSL::Cipher.new(name).encrypt
        d = OpenSSL::Cipher.new(name).decrypt
        [e, d].each { |c| c.key = "k" * c.key_len; c.iv = "i" * c.iv_len }
        plain = Digest::SHA256.new
        back = Digest::SHA256.new
        total = 0
        128.times do
          plain << chunk
          ct = e.update(chunk)
          total += ct.bytesize
          back << d.update(ct) unless ct.empty?
        end
        last = e.final
        total += last.bytesize
        d.auth_tag = e.auth_tag if name.end_with?("gcm")
        back << (last.empty? ? "" : d.update(last)) << d.final
        report[name] = [total, plain.hexdigest == back.hexdigest]
      end
      p report
    RUBY
    assert status.success?, err
    report = eval(out.lines.last) # rubocop:disable Security/Eval -- our own child's p output
    assert_equal [128 << 20, true], report["aes-128-ctr"]
    assert_equal [(128 << 20) + 16, true], report["aes-256-cbc"]
    assert_equal [128 << 20, true], report["aes-256-gcm"]
  end

  # The slow tier (bin/test --slow): messages just over 2 GiB, from a
  # streamed source, each way, give stock's bytes and tag (SunJCE refuses a
  # GCM message of 2^31 bytes: past 16 MiB the message is BouncyCastle's,
  # as all of it is on stock). Minutes: BouncyCastle's speed, twice.
  def test_messages_over_2_gib_each_way_give_stock_s_bytes
    skip "the slow tier (minutes): bin/test --slow runs it" unless ENV["FAST_RANDOM_SLOW"]

    chunk = Random.new(7).bytes(1 << 20)
    chunks = (1 << 11) + 3 # 2 GiB and 3 MiB
    %w[aes-256-gcm aes-128-ctr aes-256-cbc].each do |name|
      results = %i[stock fast_random].to_h do |side|
        side == :stock ? FastRandom::AES.uninstall : FastRandom::AES.install
        e = OpenSSL::Cipher.new(name).encrypt
        d = OpenSSL::Cipher.new(name).decrypt
        [e, d].each { |c| c.key = "k" * c.key_len; c.iv = "i" * c.iv_len }
        ct = Digest::SHA256.new
        back = Digest::SHA256.new
        chunks.times do |i|
          out = e.update(i.even? ? chunk : chunk.reverse)
          ct << out
          back << d.update(out) unless out.empty?
        end
        last = e.final
        ct << last
        d.auth_tag = e.auth_tag if name.end_with?("gcm")
        back << (last.empty? ? "" : d.update(last)) << d.final
        [side, [ct.hexdigest, name.end_with?("gcm") ? e.auth_tag.unpack1("H*") : nil, back.hexdigest]]
      ensure
        FastRandom::AES.install
      end
      plain = Digest::SHA256.new
      chunks.times { |i| plain << (i.even? ? chunk : chunk.reverse) }
      assert_equal results[:stock], results[:fast_random], name
      assert_equal plain.hexdigest, results[:fast_random].last, "#{name}: the round trip"
    end
  end

  private

  # An AES-GCM Cipher (the key's length picks 128 or 256), ready for a message.
  def gcm(direction, key, iv, tag: nil)
    c = OpenSSL::Cipher.new("aes-#{key.bytesize * 8}-gcm").send(direction)
    c.key = key
    c.iv = iv
    c.auth_tag = tag if tag
    c
  end

  # One message: its bytes (GCM decryption's come at the final), tag, error.
  def run_message(name, direction, key, chunks, aad: nil, tag: nil)
    c = OpenSSL::Cipher.new(name).send(direction)
    c.key = key[0, c.key_len]
    c.iv = "i" * c.iv_len
    c.auth_tag = tag if tag
    c.auth_data = aad if aad
    out = +"".b
    chunks.each { |chunk| out << c.update(chunk) }
    out << c.final
    { out: out, tag: name.end_with?("gcm") && direction == :encrypt ? c.auth_tag : nil }
  rescue OpenSSL::Cipher::CipherError => e
    { out: out, error: e.message }
  end

  def digest(result)
    [Digest::SHA256.hexdigest(result[:out] || ""), result[:tag]&.unpack1("H*"), result[:error]]
  end

  # What a caller sees: every byte (update outputs joined; GCM decryption
  # releases its bytes at the final only), the tag, the error.
  def joined(result)
    [result["out"].join, result["tag"], result["error"]]
  end
end
