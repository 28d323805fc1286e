# frozen_string_literal: true

# Plays someone who has a heap dump of a running process and wants output
# the calling thread's generator already handed out (test/random/heap_exposure_test.rb
# runs it in a child JRuby whose JVM opens the JDK's crypto packages to
# reflection, as a heap dump would show them).
#
# It hands out whole refills, then reads every array reachable from the
# generator object (its DRBG, the JCE cipher inside it, the JDK's key
# schedule and counter blocks, ...), takes each 32-byte run as a possible AES
# key and each 16-byte run as a possible counter block, and runs AES-CTR from
# a whole refill before to a little after each counter. Prints JSON: which
# (key, counter) pairs rebuilt handed-out blocks (must be none), whether the
# same search predicts the generator's next output (it must: the current key
# is there, as documented, so the search is known to work) and which JDK
# objects it could read.
require "fast_random"
require "json"
require "set"

module HeapAttacker
  Modifier = java.lang.reflect.Modifier
  BLOCK = 16
  # Counters from a whole 64 KiB refill (4096 blocks) behind a candidate to a few blocks past it.
  BEHIND = 4096 + 16
  AHEAD = 16
  SKIPPED = %w[java.lang.Class java.lang.ClassLoader java.lang.Thread java.security.Provider java.lang.String
               java.lang.ref.Reference java.lang.Module].map { |name| java.lang.Class.forName(name) }.freeze

  module_function

  # Every primitive array reachable from +root+ through instance fields,
  # with where it was found; and the classes whose fields could not be read.
  def arrays_reachable_from(root)
    seen = java.util.IdentityHashMap.new
    found = []
    unreadable = Set.new
    read_classes = Set.new
    stack = [[root, "generator"]]
    until stack.empty?
      object, path = stack.pop
      next if !object.respond_to?(:getClass) || seen.containsKey(object)

      seen.put(object, true)
      type = object.getClass
      next if SKIPPED.any? { |skipped| skipped.isAssignableFrom(type) }

      if type.isArray
        component = type.getComponentType
        if component.isPrimitive
          found << [path, object]
        else
          length = java.lang.reflect.Array.getLength(object)
          length.times { |i| stack << [java.lang.reflect.Array.get(object, i), "#{path}[#{i}]"] }
        end
        next
      end

      klass = type
      while klass
        klass.getDeclaredFields.each do |field|
          next if Modifier.isStatic(field.getModifiers) || field.getType.isPrimitive

          begin
            field.setAccessible(true)
          rescue java.lang.RuntimeException
            unreadable << klass.getName
            next
          end
          read_classes << klass.getName
          stack << [field.get(object), "#{path}.#{field.getName}"]
        end
        klass = klass.getSuperclass
      end
    end
    [found, unreadable.to_a, read_classes.to_a]
  end

  def bytes_of(array)
    case array
    when Java::byte[] then String.from_java_bytes(array)
    when Java::int[] then array.to_a.pack("N*")
    else ""
    end
  end

  # Possible keys (32-byte runs) and counter blocks (16-byte runs, both
  # at every multiple of 16 bytes) in the arrays, by where they were found.
  def candidates(arrays)
    keys = {}
    counters = {}
    arrays.each do |path, array|
      bytes = bytes_of(array)
      next if bytes.empty? || bytes.bytesize > 4096 || bytes.count("\0") == bytes.bytesize

      0.step(bytes.bytesize - 32, BLOCK) { |at| keys[bytes.byteslice(at, 32)] ||= "#{path}@#{at}" }
      0.step(bytes.bytesize - BLOCK, BLOCK) { |at| counters[bytes.byteslice(at, BLOCK)] ||= "#{path}@#{at}" }
    end
    [keys, counters]
  end

  def add(counter, n)
    value = (counter.unpack1("H*").to_i(16) + n) % (1 << 128)
    [value.to_s(16).rjust(32, "0")].pack("H*")
  end

  # AES(key, counter + n) for n in -BEHIND..AHEAD, as [n, block] pairs.
  def keystream_around(key, counter)
    cipher = javax.crypto.Cipher.getInstance("AES/ECB/NoPadding")
    cipher.init(javax.crypto.Cipher::ENCRYPT_MODE, javax.crypto.spec.SecretKeySpec.new(key.to_java_bytes, "AES"))
    start = add(counter, -BEHIND)
    first = start.unpack1("H*").to_i(16)
    plain = (0..BEHIND + AHEAD).map { |i| [((first + i) % (1 << 128)).to_s(16).rjust(32, "0")].pack("H*") }.join
    out = String.from_java_bytes(cipher.doFinal(plain.to_java_bytes))
    (0..BEHIND + AHEAD).map { |i| [i - BEHIND, out.byteslice(i * BLOCK, BLOCK)] }
  end

  def blocks(string)
    (0...string.bytesize / BLOCK).map { |i| string.byteslice(i * BLOCK, BLOCK) }
  end

  def run
    FastRandom.backend = :drbg
    Thread.new do
      Java::FastrandomRandom::ThreadGenerators.own # this thread's own generator from the first call
      SecureRandom.uuid
      SecureRandom.random_bytes(FastRandom::Generator.thread_state[:buffered])
      # Whole refills, each starting on a fresh counter: 2, 4, ... up to 64 KiB.
      handed_out = Set.new
      8.times do
        refill = SecureRandom.random_bytes(1)
        refill << SecureRandom.random_bytes(FastRandom::Generator.thread_state[:buffered])
        handed_out.merge(blocks(refill))
      end
      generator = Java::FastrandomRandom::ThreadGenerators.own
      arrays, unreadable, read_classes = arrays_reachable_from(generator)
      keys, counters = candidates(arrays) # copies, taken now
      upcoming = SecureRandom.random_bytes(BLOCK)

      recovered = []
      predictions = []
      keys.each do |key, key_at|
        counters.each do |counter, counter_at|
          keystream_around(key, counter).each do |n, block|
            recovered << "key #{key_at}, counter #{counter_at} #{n}" if handed_out.include?(block)
            predictions << block if n.between?(1, 4)
          end
        end
      end
      { "recovered" => recovered.first(5), "recovered_count" => recovered.size,
        "predicts_next_output" => predictions.include?(upcoming),
        "keys" => keys.size, "counters" => counters.size, "handed_out_blocks" => handed_out.size,
        "jdk_crypto_classes_read" => read_classes.grep(/\A(com\.sun\.crypto\.provider|javax\.crypto)\./).sort,
        "unreadable" => unreadable.sort }
    end.value
  end
end

puts JSON.generate(HeapAttacker.run) if $PROGRAM_NAME == __FILE__
