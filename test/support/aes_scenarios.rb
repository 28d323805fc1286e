# frozen_string_literal: true

# The AES parity tests' scenarios (test/cipher/aes_test.rb): each one a Hash
# of data, { name:, steps: [[op, *args], ...] } and a few flags, that
# AesScenarios.run plays through OpenSSL::Cipher step by step, recording
# what each step gave (a value, or an exception's class and message), so
# that two runs, stock jruby-openssl's and fast_random's, can be compared
# step by step and the first difference named.
#
# Steps (args are binary Strings unless said):
#   [:new, name]                 OpenSSL::Cipher.new(name) (every scenario starts so)
#   [:new_aes, bits, mode]       OpenSSL::Cipher::AES.new(bits, mode)
#   [:new_aes_bits, bits, mode]  OpenSSL::Cipher::AES128/192/256.new(mode)
#   [:encrypt], [:decrypt], [:reset], [:final]
#   [:key, bytes], [:iv, bytes], [:key_len, n], [:iv_len, n], [:padding, n]
#   [:auth_data, bytes], [:auth_tag_len, n], [:set_auth_tag, bytes]
#   [:auth_tag] / [:auth_tag, n] the tag (getter)
#   [:update, bytes]             update(bytes)
#   [:update_buffer, bytes, buf] update(bytes, buf.dup): the buffer, and whether update returned it
#   [:random_key], [:random_iv]  their lengths only
#   [:pkcs5_keyivgen, pass, salt]
#   [:info]                      name, key_len, iv_len, block_size, authenticated?
# Also in the Hash: group: (the Builder method that made it), index:, and
# flags: gcm: (a GCM cipher: its decryption is compared per message, see
# normalize), core: (plain parameters, one message that succeeds: the fast
# path's whole job; with its plaintext:), lengths_only: (random keys or
# IVs: outputs are compared by their lengths).
module AesScenarios
  BITS = [128, 192, 256].freeze
  MODES = %w[gcm cbc ctr].freeze
  SIZES = [0, 1, 15, 16, 17, 31, 32, 200, 4096, 65_536 + 7].freeze
  # Update sizes, cycled: around the block size, and a few more.
  PATTERN = [1, 15, 16, 17, 31, 32, 7].freeze

  module_function

  # -- building ----------------------------------------------------------

  # Every scenario, built once per process (the same Strings on both runs).
  def all
    @all ||= Builder.new.build.freeze
  end

  # Splits +size+ bytes into update sizes: :whole (one update; none for 0),
  # :pattern (PATTERN cycled), :random (1 to a third of the size, seeded).
  def chunks(size, split, random)
    return [] if size.zero?

    case split
    when :whole then [size]
    when :pattern then take(size, PATTERN.cycle)
    when :random then take(size, Enumerator.new { |y| loop { y << random.rand(1..[size / 3, 1].max) } })
    end
  end

  def take(size, sizes)
    out = []
    left = size
    sizes.each do |n|
      break if left.zero?

      n = [n, left].min
      out << n
      left -= n
    end
    out
  end

  # The ciphertext (and for GCM the 16-byte tag) of SunJCE, the JDK's own
  # provider, straight through the JCA: decryption scenarios' inputs, made
  # by neither side under test.
  def reference(mode, key, iv, data, aad: nil, padding: true)
    transformation = { "gcm" => "AES/GCM/NoPadding", "ctr" => "AES/CTR/NoPadding",
                       "cbc" => padding ? "AES/CBC/PKCS5Padding" : "AES/CBC/NoPadding" }.fetch(mode)
    cipher = javax.crypto.Cipher.getInstance(transformation, "SunJCE")
    spec = if mode == "gcm"
             javax.crypto.spec.GCMParameterSpec.new(128, iv.to_java_bytes)
           else
             javax.crypto.spec.IvParameterSpec.new(iv.to_java_bytes)
           end
    cipher.init(javax.crypto.Cipher::ENCRYPT_MODE, javax.crypto.spec.SecretKeySpec.new(key.to_java_bytes, "AES"), spec)
    cipher.updateAAD(aad.to_java_bytes) if aad && !aad.empty?
    out = String.from_java_bytes(cipher.doFinal(data.to_java_bytes)).b
    mode == "gcm" ? [out[0...-16], out[-16..]] : [out, nil]
  end

  # Builds the list; seeded, so every run has the same scenarios.
  class Builder
    def initialize
      @random = Random.new(2026_11_29)
      @scenarios = []
    end

    def bytes(n) = @random.bytes(n)

    # Each scenario's :group is the method that made it (a test per group).
    GROUPS = %i[core_messages cbc_without_padding gcm_additional_data gcm_tag_lengths gcm_iv_lengths
                gcm_decryption_failures key_and_iv_errors reuse_after_final resets random_keys_and_ivs
                key_and_iv_order update_buffers constructors_and_odd_calls].freeze

    def build
      GROUPS.each do |group|
        @group = group
        send(group)
      end
      @scenarios.each_with_index { |scenario, i| scenario[:index] = i }
    end

    private

    # Yields each cipher's name ("aes-128-gcm"), key size and mode.
    def each_cipher(modes = MODES)
      BITS.each do |bits|
        modes.each { |mode| yield "aes-#{bits}-#{mode}", bits, mode }
      end
    end

    def add(name, steps, **flags)
      cipher = steps.first
      gcm = cipher.first == :new ? cipher[1].downcase.include?("gcm") : cipher.last.to_s.casecmp?("gcm")
      @scenarios << { name: name, group: @group, steps: steps, gcm: gcm }.merge(flags)
    end

    def key(bits) = bytes(bits / 8)
    def iv(mode) = bytes(mode == "gcm" ? 12 : 16)

    def updates(data, sizes)
      at = 0
      sizes.map do |n|
        step = [:update, data.byteslice(at, n)]
        at += n
        step
      end
    end

    # One message of +size+ random bytes, encrypted or decrypted in the usual
    # order (direction, key, IV, tag, AAD, updates, final): [steps, plaintext].
    def message(bits, mode, dir, size, split, aad: nil, info: false)
      k = key(bits)
      i = iv(mode)
      data = bytes(size)
      name = "aes-#{bits}-#{mode}"
      steps = [[:new, name], [dir], [:key, k], [:iv, i]]
      if dir == :decrypt
        input, tag = AesScenarios.reference(mode, k, i, data, aad: aad)
        steps << [:set_auth_tag, tag] if mode == "gcm"
      else
        input = data
      end
      steps << [:auth_data, aad] if aad
      steps += updates(input, AesScenarios.chunks(input.bytesize, split, @random))
      steps << [:final]
      steps << [:auth_tag] if mode == "gcm" && dir == :encrypt
      steps << [:info] if info
      [steps, data]
    end

    # aes-128/192/256 x gcm/cbc/ctr x encrypt/decrypt x every size x
    # every split; GCM with 13 bytes of AAD set first. The fast path's
    # whole job: each is one message that succeeds.
    def core_messages
      BITS.each do |bits|
        MODES.each do |mode|
          %i[encrypt decrypt].each do |dir|
            SIZES.each do |size|
              %i[whole pattern random].each do |split|
                aad = mode == "gcm" ? bytes(13) : nil
                steps, plaintext = message(bits, mode, dir, size, split, aad: aad, info: split == :whole && size == 1)
                add("aes-#{bits}-#{mode} #{dir} #{size} B, #{split} updates#{aad ? ", AAD first" : ""}", steps,
                    core: true, plaintext: plaintext)
              end
            end
          end
        end
      end
    end

    # padding = 0: aligned messages go through, misaligned ones fail at final.
    def cbc_without_padding
      BITS.each do |bits|
        [0, 16, 32, 4096, 1, 15, 17, 200].each do |size|
          %i[whole pattern].each do |split|
            k = key(bits)
            i = iv("cbc")
            data = bytes(size)
            sizes = AesScenarios.chunks(size, split, @random)
            %i[encrypt decrypt].each do |dir|
              steps = [[:new, "aes-#{bits}-cbc"], [dir], [:padding, 0], [:key, k], [:iv, i]] + updates(data, sizes) + [[:final]]
              add("aes-#{bits}-cbc #{dir} padding = 0, #{size} B, #{split} updates", steps)
            end
          end
        end
        # padding = 0 set after the key and IV, and padding = 1 (PKCS#5 again).
        k = key(bits)
        i = iv("cbc")
        add("aes-#{bits}-cbc padding = 0 after key and iv",
            [[:new, "aes-#{bits}-cbc"], [:encrypt], [:key, k], [:iv, i], [:padding, 0], [:update, bytes(32)], [:final]])
        add("aes-#{bits}-cbc padding = 1",
            [[:new, "aes-#{bits}-cbc"], [:decrypt], [:padding, 1], [:key, k], [:iv, i],
             [:update, AesScenarios.reference("cbc", k, i, bytes(20)).first], [:final]])
      end
    end

    def gcm_start(bits, dir, k, i)
      [[:new, "aes-#{bits}-gcm"], [dir], [:key, k], [:iv, i]]
    end

    # auth_data before the first update, twice, empty, alone, long. (AAD
    # after data, which stock takes and MRI refuses, fast_random refuses as
    # MRI does: test/cipher/aes_faults_test.rb.)
    def gcm_additional_data
      BITS.each do |bits|
        k = key(bits)
        i = iv("gcm")
        aad = bytes(20)
        data = bytes(40)
        _, tag_with = AesScenarios.reference("gcm", k, i, data, aad: aad)
        ct, tag_without = AesScenarios.reference("gcm", k, i, data)
        cases = {
          "no AAD" => [[:update, data], [:final]],
          "empty AAD" => [[:auth_data, ""], [:update, data], [:final]],
          "AAD first" => [[:auth_data, aad], [:update, data], [:final]],
          "AAD in two calls" => [[:auth_data, aad[0, 7]], [:auth_data, aad[7..]], [:update, data], [:final]],
          "AAD only" => [[:auth_data, aad], [:final]],
          "long AAD" => [[:auth_data, bytes(5000)], [:update, data], [:final]],
        }
        cases.each do |label, steps|
          add("aes-#{bits}-gcm encrypt, #{label}", gcm_start(bits, :encrypt, k, i) + steps + [[:auth_tag]])
        end
        decrypt = {
          "AAD first" => [[:set_auth_tag, tag_with], [:auth_data, aad], [:update, ct], [:final]],
          "empty AAD" => [[:set_auth_tag, tag_without], [:auth_data, ""], [:update, ct], [:final]],
          "no AAD, but the tag needs it" => [[:set_auth_tag, tag_with], [:update, ct], [:final]],
          "AAD, but the tag has none" => [[:set_auth_tag, tag_without], [:auth_data, aad], [:update, ct], [:final]],
          "tag set after the updates" => [[:auth_data, aad], [:update, ct], [:set_auth_tag, tag_with], [:final]],
        }
        decrypt.each do |label, steps|
          add("aes-#{bits}-gcm decrypt, #{label}", gcm_start(bits, :decrypt, k, i) + steps)
        end
      end
    end

    # auth_tag_len = 16, 12, 8, 4 and odd or invalid values (stock takes the
    # smaller of it and the key's length), and auth_tag(n).
    def gcm_tag_lengths
      BITS.each do |bits|
        k = key(bits)
        i = iv("gcm")
        data = bytes(33)
        ct, tag = AesScenarios.reference("gcm", k, i, data)
        [16, 15, 13, 12, 8, 4, 17, 24, 32, 33, 3, 0, -1].each do |len|
          add("aes-#{bits}-gcm encrypt, auth_tag_len = #{len}",
              gcm_start(bits, :encrypt, k, i).insert(2, [:auth_tag_len, len]) + [[:update, data], [:final], [:auth_tag]])
          add("aes-#{bits}-gcm decrypt, auth_tag_len = #{len}, a tag that long",
              gcm_start(bits, :decrypt, k, i).insert(2, [:auth_tag_len, len]) +
                [[:set_auth_tag, tag[0, len.clamp(0, 16)]], [:update, ct], [:final]])
        end
        [12, 4, 16, 20, 0].each do |len|
          add("aes-#{bits}-gcm encrypt, auth_tag(#{len})",
              gcm_start(bits, :encrypt, k, i) + [[:update, data], [:final], [:auth_tag, len], [:auth_tag]])
        end
        add("aes-#{bits}-gcm decrypt, auth_tag_len = 12, the whole tag",
            gcm_start(bits, :decrypt, k, i).insert(2, [:auth_tag_len, 12]) + [[:set_auth_tag, tag], [:update, ct], [:final]])
        add("aes-#{bits}-gcm encrypt, auth_tag before final", gcm_start(bits, :encrypt, k, i) + [[:auth_tag], [:update, data], [:auth_tag]])
      end
    end

    # iv_len = with IVs of that length (12 and 16 bytes, and others), IVs
    # longer (the leading bytes are used) and shorter (an error) than it.
    def gcm_iv_lengths
      BITS.each do |bits|
        k = key(bits)
        data = bytes(50)
        aad = bytes(9)
        [12, 16, 1, 8, 60, 257].each do |len|
          i = bytes(len)
          ct, tag = AesScenarios.reference("gcm", k, i, data, aad: aad)
          add("aes-#{bits}-gcm encrypt, iv_len = #{len}",
              [[:new, "aes-#{bits}-gcm"], [:encrypt], [:iv_len, len], [:key, k], [:iv, i], [:auth_data, aad],
               [:update, data], [:final], [:auth_tag], [:info]])
          add("aes-#{bits}-gcm decrypt, iv_len = #{len}",
              [[:new, "aes-#{bits}-gcm"], [:decrypt], [:iv_len, len], [:key, k], [:iv, i], [:set_auth_tag, tag],
               [:auth_data, aad], [:update, ct], [:final]])
        end
        add("aes-#{bits}-gcm encrypt, iv_len = 0",
            [[:new, "aes-#{bits}-gcm"], [:encrypt], [:iv_len, 0], [:key, k], [:iv, ""], [:update, data], [:final], [:auth_tag]])
        add("aes-#{bits}-gcm encrypt, a 16-byte IV with iv_len 12",
            [[:new, "aes-#{bits}-gcm"], [:encrypt], [:key, k], [:iv, bytes(16)], [:update, data], [:final], [:auth_tag]])
        add("aes-#{bits}-gcm encrypt, a 12-byte IV with iv_len 16",
            [[:new, "aes-#{bits}-gcm"], [:encrypt], [:iv_len, 16], [:key, k], [:iv, bytes(12)], [:update, data], [:final]])
        add("aes-#{bits}-gcm encrypt, iv_len = 16 after the IV",
            [[:new, "aes-#{bits}-gcm"], [:encrypt], [:key, k], [:iv, bytes(12)], [:iv_len, 16], [:update, data], [:final]])
        add("aes-#{bits}-gcm encrypt, no IV", [[:new, "aes-#{bits}-gcm"], [:encrypt], [:key, k], [:update, data], [:final], [:auth_tag]])
      end
    end

    # Wrong, truncated, missing tags; tampered ciphertext; empty messages.
    def gcm_decryption_failures
      BITS.each do |bits|
        k = key(bits)
        i = iv("gcm")
        aad = bytes(11)
        [0, 1, 16, 17, 200, 4096].each do |size|
          data = bytes(size)
          ct, tag = AesScenarios.reference("gcm", k, i, data, aad: aad)
          sizes = AesScenarios.chunks(size, :pattern, @random)
          start = gcm_start(bits, :decrypt, k, i)
          body = [[:auth_data, aad]] + updates(ct, sizes) + [[:final]]
          flipped_last = tag.dup.tap { |t| t.setbyte(15, t.getbyte(15) ^ 1) }
          flipped_first = tag.dup.tap { |t| t.setbyte(0, t.getbyte(0) ^ 0x80) }
          add("aes-#{bits}-gcm decrypt #{size} B, right tag", start + [[:set_auth_tag, tag]] + body)
          add("aes-#{bits}-gcm decrypt #{size} B, tag's last bit flipped", start + [[:set_auth_tag, flipped_last]] + body)
          add("aes-#{bits}-gcm decrypt #{size} B, tag's first bit flipped", start + [[:set_auth_tag, flipped_first]] + body)
          add("aes-#{bits}-gcm decrypt #{size} B, 12-byte tag", start + [[:set_auth_tag, tag[0, 12]]] + body)
          add("aes-#{bits}-gcm decrypt #{size} B, empty tag", start + [[:set_auth_tag, ""]] + body)
          add("aes-#{bits}-gcm decrypt #{size} B, no tag", start + body)
          add("aes-#{bits}-gcm decrypt #{size} B, 17-byte tag", start + [[:set_auth_tag, tag + "\0"]] + body)
          next if size.zero?

          tampered = ct.dup.tap { |c| c.setbyte(size / 2, c.getbyte(size / 2) ^ 4) }
          add("aes-#{bits}-gcm decrypt #{size} B, ciphertext tampered",
              start + [[:set_auth_tag, tag], [:auth_data, aad]] + updates(tampered, sizes) + [[:final]])
          add("aes-#{bits}-gcm decrypt #{size} B, no final", start + [[:set_auth_tag, tag]] + body[0...-1])
        end
      end
    end

    # What key=, iv=, key_len= and iv_len= raise, or quietly do.
    def key_and_iv_errors
      each_cipher do |name, bits, mode|
        k = key(bits)
        i = iv(mode)
        data = bytes(40)
        tail = [[:update, data], [:final]]
        tail << [:auth_tag] if mode == "gcm"
        add("#{name} key one byte short", [[:new, name], [:encrypt], [:key, k[0...-1]], [:iv, i]] + tail)
        add("#{name} key one byte long", [[:new, name], [:encrypt], [:key, k + "x"], [:iv, i]] + tail)
        add("#{name} empty key", [[:new, name], [:encrypt], [:key, ""], [:iv, i]] + tail)
        add("#{name} IV one byte short", [[:new, name], [:encrypt], [:key, k], [:iv, i[0...-1]]] + tail)
        add("#{name} IV one byte long", [[:new, name], [:encrypt], [:key, k], [:iv, i + "x"]] + tail)
        add("#{name} no key", [[:new, name], [:encrypt], [:iv, i]] + tail)
        add("#{name} no key, final only", [[:new, name], [:decrypt], [:iv, i], [:final]])
        add("#{name} no IV", [[:new, name], [:encrypt], [:key, k]] + tail)
        add("#{name} update with empty data", [[:new, name], [:encrypt], [:key, k], [:iv, i], [:update, ""], [:final]])
        add("#{name} update with nil", [[:new, name], [:encrypt], [:key, k], [:iv, i], [:update, nil], [:final]])
        add("#{name} key nil", [[:new, name], [:encrypt], [:key, nil]])
        [16, 24, 32, 17, 8, 0].each do |len|
          add("#{name} key_len = #{len}", [[:new, name], [:encrypt], [:key_len, len], [:key, bytes([len, 0].max)], [:iv, i], [:info]] + tail)
        end
        next if mode == "gcm"

        [8, 12, 15, 17, 0].each do |len|
          add("#{name} iv_len = #{len}", [[:new, name], [:decrypt], [:iv_len, len], [:key, k], [:iv, bytes(len)], [:info]] + tail)
        end
        add("#{name} auth_data =", [[:new, name], [:encrypt], [:key, k], [:iv, i], [:auth_data, "x"]] + tail)
        add("#{name} auth_tag", [[:new, name], [:encrypt], [:key, k], [:iv, i]] + tail + [[:auth_tag]])
        add("#{name} auth_tag =", [[:new, name], [:decrypt], [:key, k], [:iv, i], [:set_auth_tag, bytes(16)]] + tail)
        add("#{name} auth_tag_len =", [[:new, name], [:encrypt], [:auth_tag_len, 12], [:key, k], [:iv, i]] + tail)
      end
    end

    # The same object for further messages after final: CBC and CTR go on
    # from the IV jruby-openssl keeps (the last block it saw), or a new one;
    # GCM encryption refuses ("authentication tag already generated").
    def reuse_after_final
      BITS.each do |bits|
        %w[cbc ctr].each do |mode|
          name = "aes-#{bits}-#{mode}"
          [[5, 40], [40, 5], [16, 16], [33, 0], [0, 33], [4096, 17]].each do |first, second|
            %i[encrypt decrypt].each do |dir|
              k = key(bits)
              i = iv(mode)
              one = dir == :decrypt && mode == "cbc" ? AesScenarios.reference(mode, k, i, bytes(first)).first : bytes(first)
              two = dir == :decrypt && mode == "cbc" ? AesScenarios.reference(mode, k, i, bytes(second)).first : bytes(second)
              start = [[:new, name], [dir], [:key, k], [:iv, i]]
              msg = ->(data) { updates(data, AesScenarios.chunks(data.bytesize, :pattern, @random)) + [[:final]] }
              add("#{name} #{dir} #{first} B then #{second} B on the same object", start + msg.(one) + msg.(two) + msg.(one))
              add("#{name} #{dir} #{first} B then #{second} B with a new IV", start + msg.(one) + [[:iv, iv(mode)]] + msg.(two))
              add("#{name} #{dir} #{first} B then #{second} B after #{dir} again",
                  start + msg.(one) + [[dir]] + msg.(two))
            end
          end
          # padding = 0: jruby-openssl's next IV is the last block final returned.
          k = key(bits)
          i = iv(mode)
          %i[encrypt decrypt].each do |dir|
            add("#{name} #{dir} padding = 0, 48 B twice on the same object",
                [[:new, name], [dir], [:padding, 0], [:key, k], [:iv, i], [:update, bytes(48)], [:final], [:update, bytes(48)], [:final]])
          end
        end
        k = key(bits)
        i = iv("gcm")
        data = bytes(40)
        ct, tag = AesScenarios.reference("gcm", k, i, data)
        start = gcm_start(bits, :encrypt, k, i)
        add("aes-#{bits}-gcm encrypt twice on the same object", start + [[:update, data], [:final], [:auth_tag], [:update, data], [:final]])
        add("aes-#{bits}-gcm encrypt, then encrypt with a new IV",
            start + [[:update, data], [:final], [:encrypt], [:iv, iv("gcm")], [:update, data], [:final], [:auth_tag]])
        add("aes-#{bits}-gcm encrypt, then decrypt its output on the same object",
            start + [[:update, data], [:final], [:decrypt], [:iv, i], [:update, ct], [:final]])
        add("aes-#{bits}-gcm decrypt twice on the same object",
            gcm_start(bits, :decrypt, k, i) + [[:set_auth_tag, tag], [:update, ct], [:final], [:update, ct], [:final]])
        add("aes-#{bits}-gcm decrypt twice, IV and tag set again",
            gcm_start(bits, :decrypt, k, i) + [[:set_auth_tag, tag], [:update, ct], [:final], [:iv, i], [:set_auth_tag, tag],
                                               [:update, ct], [:final]])
        add("aes-#{bits}-gcm encrypt, a short message, all-zero IV",
            gcm_start(bits, :encrypt, k, "\0" * 12) + [[:update, "hello"], [:final], [:auth_tag]])
        add("aes-#{bits}-gcm encrypt, an empty message, all-zero IV",
            gcm_start(bits, :encrypt, k, "\0" * 12) + [[:final], [:auth_tag]])
      end
    end

    def resets
      each_cipher do |name, bits, mode|
        k = key(bits)
        i = iv(mode)
        data = bytes(50)
        %i[encrypt decrypt].each do |dir|
          input = if dir == :decrypt && mode != "ctr"
                    AesScenarios.reference(mode, k, i, data).first
                  else
                    data
                  end
          steps = [[:new, name], [dir], [:key, k], [:iv, i]]
          steps << [:set_auth_tag, AesScenarios.reference(mode, k, i, data).last] if dir == :decrypt && mode == "gcm"
          steps += [[:update, input[0, 20]], [:reset], [:update, input], [:final]]
          steps << [:auth_tag] if dir == :encrypt && mode == "gcm"
          add("#{name} #{dir}, reset after an update", steps)
          tag = steps[4] if steps[4][0] == :set_auth_tag
          add("#{name} #{dir}, reset after final",
              [[:new, name], [dir], [:key, k], [:iv, i], tag, [:update, input], [:final], [:reset], [:update, input], [:final]].compact)
        end
        add("#{name} reset before the key", [[:new, name], [:encrypt], [:reset], [:key, k], [:iv, i], [:update, data], [:final]])
        add("#{name} reset before the IV", [[:new, name], [:encrypt], [:key, k], [:reset], [:iv, i], [:update, data], [:final]])
      end
    end

    # random_key and random_iv: only lengths can be compared.
    def random_keys_and_ivs
      each_cipher do |name, bits, mode|
        add("#{name} random_key, random_iv",
            [[:new, name], [:encrypt], [:random_key], [:random_iv], [:update, bytes(100)], [:final], [:info]], lengths_only: true)
        # CBC without padding: under a random key, random bytes end in valid
        # padding about once in 256, so padding's outcome would be chance.
        unpadded = mode == "cbc" ? [[:padding, 0]] : []
        add("#{name} random_iv before random_key, then decrypt",
            [[:new, name], [:decrypt], *unpadded, [:random_iv], [:random_key], [:update, bytes(64)], [:final]], lengths_only: true)
      end
    end

    # Key and IV before encrypt/decrypt, changed in the middle of a message,
    # and pkcs5_keyivgen.
    def key_and_iv_order
      each_cipher do |name, bits, mode|
        k = key(bits)
        i = iv(mode)
        data = bytes(40)
        tag = mode == "gcm" ? [[:auth_tag]] : []
        add("#{name} key and IV before encrypt", [[:new, name], [:key, k], [:iv, i], [:encrypt], [:update, data], [:final]] + tag)
        add("#{name} key and IV before decrypt, then encrypt",
            [[:new, name], [:key, k], [:iv, i], [:decrypt], [:encrypt], [:update, data], [:final]] + tag)
        add("#{name} no encrypt or decrypt call", [[:new, name], [:key, k], [:iv, i], [:update, data], [:final]] + tag)
        add("#{name} new key in the middle of a message",
            [[:new, name], [:encrypt], [:key, k], [:iv, i], [:update, data], [:key, key(bits)], [:update, data], [:final]] + tag)
        add("#{name} new IV in the middle of a message",
            [[:new, name], [:encrypt], [:key, k], [:iv, i], [:update, data], [:iv, iv(mode)], [:update, data], [:final]] + tag)
        add("#{name} new key after a message",
            [[:new, name], [:encrypt], [:key, k], [:iv, i], [:update, data], [:final], [:key, key(bits)], [:iv, i],
             [:encrypt], [:update, data], [:final]])
        add("#{name} pkcs5_keyivgen", [[:new, name], [:encrypt], [:pkcs5_keyivgen, "password", "saltsalt"], [:update, data], [:final]] + tag)
        add("#{name} decrypt, pkcs5_keyivgen without salt",
            [[:new, name], [:decrypt], [:pkcs5_keyivgen, "password"], [:update, data], [:final]])
        add("#{name} padding = 0 in the middle of a message",
            [[:new, name], [:encrypt], [:key, k], [:iv, i], [:update, data], [:padding, 0], [:update, data], [:final]])
      end
    end

    # update(data, buffer): empty, holding bytes, frozen, not a String.
    def update_buffers
      each_cipher do |name, bits, mode|
        k = key(bits)
        i = iv(mode)
        data = bytes(70)
        %i[encrypt decrypt].each do |dir|
          input = dir == :decrypt && mode == "cbc" ? AesScenarios.reference(mode, k, i, data).first : data
          start = [[:new, name], [dir], [:key, k], [:iv, i]]
          start << [:set_auth_tag, AesScenarios.reference(mode, k, i, data).last] if dir == :decrypt && mode == "gcm"
          add("#{name} #{dir}, update with a buffer",
              start + [[:update_buffer, input[0, 5], +""], [:update_buffer, input[5, 30], "old contents".b],
                       [:update_buffer, input[35..], "x" * 100], [:final]])
        end
        add("#{name} update with a frozen buffer", [[:new, name], [:encrypt], [:key, k], [:iv, i], [:update_buffer, data, "".freeze]])
        add("#{name} update with a nil buffer", [[:new, name], [:encrypt], [:key, k], [:iv, i], [:update_buffer, data, nil]])
        add("#{name} update with a UTF-8 buffer",
            [[:new, name], [:encrypt], [:key, k], [:iv, i], [:update_buffer, data, "é".encode("UTF-8")], [:final]])
      end
    end

    def constructors_and_odd_calls
      BITS.each do |bits|
        MODES.each do |mode|
          k = key(bits)
          i = iv(mode)
          data = bytes(40)
          tail = [[:encrypt], [:key, k], [:iv, i], [:update, data], [:final], [:info]]
          add("OpenSSL::Cipher::AES.new(#{bits}, :#{mode})", [[:new_aes, bits, mode.to_sym]] + tail)
          add("OpenSSL::Cipher::AES#{bits}.new(#{mode.upcase.inspect})", [[:new_aes_bits, bits, mode.upcase]] + tail)
          add("OpenSSL::Cipher.new(\"AES-#{bits}-#{mode.upcase}\")", [[:new, "AES-#{bits}-#{mode.upcase}"]] + tail)
          add("aes-#{bits}-#{mode} info before a key", [[:new, "aes-#{bits}-#{mode}"], [:info], [:decrypt], [:info]])
          add("aes-#{bits}-#{mode} final twice",
              [[:new, "aes-#{bits}-#{mode}"], [:encrypt], [:key, k], [:iv, i], [:update, data], [:final], [:final]])
          add("aes-#{bits}-#{mode} update with a non-binary String",
              [[:new, "aes-#{bits}-#{mode}"], [:encrypt], [:key, k], [:iv, i], [:update, "ünïcödé text".encode("UTF-8")], [:final]])
        end
        add("aes#{bits} (CBC by default)", [[:new, "aes#{bits}"], [:encrypt], [:key, key(bits)], [:iv, iv("cbc")],
                                            [:update, bytes(40)], [:final], [:info]])
      end
    end
  end

  # -- running -----------------------------------------------------------

  # What each step of +scenario+ gave: [[op, outcome], ...], outcome
  # [:ok, value] or [:raise, class name, message].
  def run(scenario)
    cipher = nil
    lengths = scenario[:lengths_only]
    scenario[:steps].map do |op, *args|
      outcome = begin
        value = perform(op, args, cipher, lengths)
        cipher = value if %i[new new_aes new_aes_bits].include?(op)
        [:ok, recorded(op, value, lengths)]
      rescue StandardError => e
        [:raise, e.class.name, e.message]
      end
      [op, outcome]
    end
  end

  def perform(op, args, cipher, lengths)
    case op
    when :new then OpenSSL::Cipher.new(args[0])
    when :new_aes then OpenSSL::Cipher::AES.new(args[0], args[1])
    when :new_aes_bits then OpenSSL::Cipher.const_get("AES#{args[0]}").new(args[1])
    when :encrypt, :decrypt, :reset then cipher.public_send(op) && nil
    when :final then cipher.final
    when :key then cipher.key = args[0]
    when :iv then cipher.iv = args[0]
    when :key_len then cipher.key_len = args[0]
    when :iv_len then cipher.iv_len = args[0]
    when :padding then cipher.padding = args[0]
    when :auth_data then cipher.auth_data = args[0]
    when :auth_tag_len then cipher.auth_tag_len = args[0]
    when :set_auth_tag then cipher.auth_tag = args[0]
    when :auth_tag then cipher.auth_tag(*args)
    when :update then cipher.update(args[0])
    when :update_buffer
      buffer = args[1].frozen? || args[1].nil? ? args[1] : args[1].dup
      returned = cipher.update(args[0], buffer)
      [returned.equal?(buffer), lengths ? buffer.bytesize : buffer, buffer.encoding.name]
    when :random_key then cipher.random_key.bytesize
    when :random_iv then cipher.random_iv.bytesize
    when :pkcs5_keyivgen then cipher.pkcs5_keyivgen(*args)
    when :info then [cipher.name, cipher.key_len, cipher.iv_len, cipher.block_size, cipher.authenticated?]
    else raise ArgumentError, "unknown step #{op}"
    end
  end

  # Strings are kept with their encoding; setters' values are dropped (Ruby
  # returns the argument, whatever the method does).
  def recorded(op, value, lengths)
    case op
    when :new, :new_aes, :new_aes_bits, :key, :iv, :key_len, :iv_len, :padding, :auth_data, :auth_tag_len, :set_auth_tag,
         :pkcs5_keyivgen
      nil
    when :update, :final, :auth_tag
      return value unless value.is_a?(String)

      [lengths ? value.bytesize : value, value.encoding.name]
    else value
    end
  end

  # Steps after which jruby-openssl starts a message afresh (it initialises
  # its cipher again): what earlier updates returned belongs to no message.
  RESTARTS = %i[encrypt decrypt reset iv pkcs5_keyivgen padding].freeze

  # The outcomes to compare: every step's, except that in GCM decryption the
  # outputs of a message's updates and final are one value, at its final
  # (the fast path releases no plaintext before the tag is checked, where
  # BouncyCastle releases all but the last 16 bytes from update); a final
  # that raises gives its exception only, and a message never finished (or
  # started afresh) nothing. Each entry: [step index, op, outcome].
  def normalize(scenario, outcomes)
    return outcomes.each_with_index.map { |(op, outcome), i| [i, op, outcome] } unless scenario[:gcm]

    decrypting = false
    pending = nil
    out = []
    outcomes.each_with_index do |(op, outcome), i|
      case op
      when :encrypt then decrypting = false
      when :decrypt then decrypting = true
      end
      unless decrypting && %i[update update_buffer final].include?(op) && outcome[0] == :ok
        pending = nil if RESTARTS.include?(op) || (op == :final && decrypting)
        out << [i, op, outcome]
        next
      end
      value, encoding = outcome[1]
      if op == :update_buffer
        returned_buffer, value, encoding = outcome[1]
        out << [i, op, [:ok, [returned_buffer, :output_at_final, encoding]]]
      end
      value = value.b if value.is_a?(String) # lengths_only: Integers
      pending = pending.nil? ? value : pending + value
      next unless op == :final

      out << [i, :message, [:ok, [pending, encoding]]]
      pending = nil
    end
    out
  end

  # nil if the two runs agree, else a sentence naming the scenario and its
  # first differing step.
  def difference(scenario, stock, ours, ours_label)
    a = normalize(scenario, stock)
    b = normalize(scenario, ours)
    (0...[a.size, b.size].max).each do |n|
      next if a[n] == b[n]

      index = (a[n] || b[n])[0]
      step = scenario[:steps][index]
      return "#{scenario[:name]}: step #{index} #{describe_step(step)}#{a[n] && a[n][1] == :message ? " (the message)" : ""}: " \
             "stock #{describe(a[n]&.last)}, #{ours_label} #{describe(b[n]&.last)}\n  steps: " +
             scenario[:steps].map { |s| describe_step(s) }.join(", ")
    end
    nil
  end

  def describe_step(step)
    op, *args = step
    return op.to_s if args.empty?

    "#{op}(#{args.map { |a| describe_value(a) }.join(", ")})"
  end

  def describe(outcome)
    return "nothing" if outcome.nil?
    return "#{outcome[1]}: #{outcome[2].inspect}" if outcome[0] == :raise

    describe_value(outcome[1])
  end

  def describe_value(value)
    case value
    when String
      return value.inspect unless value.encoding == Encoding::BINARY
      return "0 B" if value.empty?

      value.bytesize <= 24 ? "#{value.bytesize} B #{value.unpack1("H*")}" : "#{value.bytesize} B #{value[0, 12].unpack1("H*")}..#{value[-4..].unpack1("H*")}"
    when Array then "[#{value.map { |v| describe_value(v) }.join(", ")}]"
    else value.inspect
    end
  end
end
