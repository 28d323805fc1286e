# frozen_string_literal: true

# Several JRuby runtimes in this one JVM, each loading fast_random through
# its own class loader, as embedding (org.jruby.embed.ScriptingContainer),
# jruby-rack's pool and redeploys do. Run by test/integration/multi_runtime_test.rb in a
# JRuby of its own (this runtime loads nothing of fast_random's):
#   bin/jruby test/support/runtimes.rb SCENARIO [ARGS]
# and prints one JSON object on its last line.
#   together N      N runtimes alive at once: engines, stats, provider ownership
#   in_flight       one runtime torn down while another's threads are mid-call
#   teardown N [own_thread]
#                   N runtimes, each torn down without uninstalling anything
#                   (every other one installs the JVM-wide provider first,
#                   every third makes a TLS connection on the OpenSSL engine)
#   copy_faults DIR runtimes whose private copy of the native library cannot
#                   be made (DIR writable by others, a file, a link), then one
#                   whose can
require "java"
require "json"

LIB = File.expand_path("../../lib", __dir__)
java_import "org.jruby.embed.ScriptingContainer"
java_import "org.jruby.embed.LocalContextScope"
java_import "org.jruby.embed.LocalVariableBehavior"

# A fresh runtime with fast_random on its load path and its $stderr captured.
def runtime
  container = ScriptingContainer.new(LocalContextScope::SINGLETHREAD, LocalVariableBehavior::TRANSIENT)
  container.load_paths = [LIB]
  errors = java.io.StringWriter.new
  container.error = errors
  [container, errors]
end

# What a runtime reports about itself, as a JSON string (only JDK strings
# cross between runtimes).
REPORT = <<~RUBY
  require "json"
  {
    ec_engine: FastRandom::EC.engine,
    rsa_engine: FastRandom::RSA.engine,
    rdrand: FastRandom.rdrand_available?,
    rdrand_problem: FastRandom.rdrand_problem,
    ec_problem: FastRandom::EC.engine_problem(:openssl),
    private_copy: Java::FastrandomJni::NativeLibrary.private_copy,
    loader: Java::FastrandomJni::NativeLibrary.java_class.class_loader.to_s,
    provider_installed: FastRandom.jca_provider_installed?
  }.to_json
RUBY

# Work a Rails request does: uuids, an RSA signature, an EC verification,
# an AES-GCM round trip (whose JDK cipher the thread keeps for its next one).
WORK = <<~RUBY
  require "fast_random"
  require "openssl"
  uuids = Array.new(50) { SecureRandom.uuid }
  raise "bad uuid" unless uuids.all? { |u| u.match?(/\\A\\h{8}-\\h{4}-4\\h{3}-[89ab]\\h{3}-\\h{12}\\z/) } && uuids.uniq.size == 50
  rsa = OpenSSL::PKey::RSA.new(RSA_PEM)
  raise "RSA signature does not verify" unless rsa.public_key.verify("SHA256", rsa.sign("SHA256", "message"), "message")
  ec = (@ec ||= OpenSSL::PKey::EC.generate("prime256v1")) # each runtime its own: older jruby-openssl reads no EC key back whole
  raise "EC signature does not verify" unless ec.dsa_verify_asn1("d" * 32, ec.dsa_sign_asn1("d" * 32))
  aes = OpenSSL::Cipher.new("aes-256-gcm").encrypt
  aes.key = key = aes.random_key
  aes.iv = iv = aes.random_iv
  sealed = aes.update("cookie") + aes.final
  opened = OpenSSL::Cipher.new("aes-256-gcm").decrypt.tap { |c| c.key = key; c.iv = iv; c.auth_tag = aes.auth_tag }
  raise "AES-GCM round trip" unless opened.update(sealed) + opened.final == "cookie"
RUBY

# A TLS connection over loopback with both ends on the OpenSSL engine
# (BoringSSL, netty's classes in a class loader of fast_random's, its JNI
# library a private copy in every runtime but the first): what a runtime
# leaves of those behind is what the teardown loop measures.
TLS_WORK = <<~RUBY
  require #{File.expand_path("packaged/tls_loopback.rb", __dir__).inspect}
  FastRandom::TLS.engine = :openssl
  result = TlsLoopback.round_trip(OpenSSL::PKey::RSA.new(RSA_PEM), "ping")
  raise "TLS on the OpenSSL engine: \#{result.inspect}" unless result == ["gnip", :openssl, :openssl]
RUBY

def keys_prelude
  require "openssl"
  @keys_prelude ||= "RSA_PEM = #{OpenSSL::PKey::RSA.new(2048).to_pem.inspect}\n"
end

def provider_registered
  java.security.Security.get_provider("FastRandom")&.java_class&.name
end

def gc_until_collected(refs, seconds: 60)
  deadline = Time.now + seconds
  loop do
    java.lang.System.gc
    alive = refs.count { |ref| !ref.refers_to(nil) }
    return alive if alive.zero? || Time.now > deadline

    garbage = Array.new(2000) { "x" * 1000 } # some allocation helps a stubborn collector
    garbage.clear
    sleep 0.2
  end
end

def rss_mb
  File.read("/proc/self/status")[/VmRSS:\s+(\d+)/, 1].to_i / 1024
end

def loader_of(container)
  container.provider.runtime.jruby_class_loader
end

scenario = ARGV.fetch(0)
result = {}
case scenario
when "together"
  count = Integer(ARGV.fetch(1))
  runtimes = Array.new(count) { runtime }
  result[:reports] = runtimes.each_with_index.map do |(container, errors), i|
    container.run_scriptlet(keys_prelude)
    container.run_scriptlet(WORK)
    # Each runtime its own number of uuids: its stats count its own calls only.
    container.run_scriptlet("#{10 * (i + 1)}.times { SecureRandom.uuid }")
    report = JSON.parse(container.run_scriptlet(REPORT))
    report["uuid_calls"] = container.run_scriptlet("FastRandom.stats[:calls].values.sum { |c| c[:uuid] }")
    report["errors"] = errors.to_s
    report
  end
  # One owner at a time for the JVM-wide provider.
  first, second = runtimes
  ownership = {}
  ownership[:first_install] = first[0].run_scriptlet("FastRandom.install_jca_provider")
  ownership[:second_install] = second[0].run_scriptlet("FastRandom.install_jca_provider")
  ownership[:second_installed] = second[0].run_scriptlet("FastRandom.jca_provider_installed?")
  ownership[:first_installed] = first[0].run_scriptlet("FastRandom.jca_provider_installed?")
  ownership[:second_warnings] = second[1].to_s.lines.grep(/already installed by another JRuby runtime/).size
  ownership[:default_secure_random] = java.security.SecureRandom.new.algorithm
  first[0].terminate
  ownership[:after_first_teardown] = provider_registered
  ownership[:default_after_teardown] = java.security.SecureRandom.new.algorithm
  ownership[:second_install_after] = second[0].run_scriptlet("FastRandom.install_jca_provider")
  ownership[:second_installed_after] = second[0].run_scriptlet("FastRandom.jca_provider_installed?")
  runtimes.drop(1).each { |container, _| container.terminate }
  ownership[:after_all_teardowns] = provider_registered
  result[:ownership] = ownership
when "in_flight"
  (victim, _), (survivor, survivor_errors) = runtime, runtime
  [victim, survivor].each { |c| c.run_scriptlet(keys_prelude) && c.run_scriptlet(WORK) }
  victim.run_scriptlet("FastRandom.install_jca_provider")
  # The survivor's threads keep working (uuids, RSA signing, EC verifying,
  # Java's SecureRandom) while the victim is torn down.
  survivor.run_scriptlet(<<~RUBY)
    $stop = false
    $progress = [0, 0]
    $workers = Array.new(2) do |i|
      Thread.new do
        rounds = 0
        rsa = OpenSSL::PKey::RSA.new(RSA_PEM)
        ec = OpenSSL::PKey::EC.generate("prime256v1") # older jruby-openssl reads no EC key back whole
        signature = ec.dsa_sign_asn1("d" * 32)
        until $stop
          raise "bad uuid" unless SecureRandom.uuid.match?(/\\A\\h{8}-\\h{4}-4\\h{3}-[89ab]\\h{3}-\\h{12}\\z/)
          raise "RSA" unless rsa.public_key.verify("SHA256", rsa.sign("SHA256", "m\#{rounds}"), "m\#{rounds}")
          raise "EC" unless ec.dsa_verify_asn1("d" * 32, signature)
          java.security.SecureRandom.new.next_bytes(Java::byte[16].new)
          rounds += 1
          $progress[i] = rounds
        end
        rounds
      end
    end
  RUBY
  # Until each worker has done +more+ rounds since +from+ (or one died, or
  # a minute is up); their rounds then.
  progressed = lambda do |from, more|
    deadline = Time.now + 60
    loop do
      now = survivor.run_scriptlet("$progress").to_a
      done = now.zip(from).all? { |n, f| n >= f + more }
      return now if done || Time.now > deadline || !survivor.run_scriptlet("$workers.all?(&:alive?)")

      sleep 0.05
    end
  end
  at_teardown = progressed.([0, 0], 1)
  before = survivor.run_scriptlet("$workers.map(&:alive?)")
  victim.terminate
  progressed.(at_teardown, 3) # and go on working after it
  rounds = survivor.run_scriptlet("$stop = true; $workers.map(&:value)")
  result[:rounds_at_teardown] = at_teardown
  result[:alive_before] = before.to_a
  result[:rounds] = rounds.to_a
  result[:survivor] = JSON.parse(survivor.run_scriptlet(REPORT))
  result[:survivor_errors] = survivor_errors.to_s
  result[:provider_after] = provider_registered
  survivor.terminate
when "teardown"
  count = Integer(ARGV.fetch(1))
  refs = []
  engines = Hash.new(0)
  providers_left = 0
  rss = {}
  # With "own_thread", each runtime lives and dies on a thread of its own
  # (JRuby 9.4 itself leaves thread-locals that hold a runtime on every
  # thread that ran its Ruby code); without, all on this long-lived thread.
  own_thread = ARGV.include?("own_thread")
  count.times do |i|
    lifetime = lambda do
    container, errors = runtime
    container.run_scriptlet(keys_prelude)
    container.run_scriptlet(WORK)
    container.run_scriptlet(TLS_WORK) if (i % 3).zero? # a third of them: a leak shows all the same
    if i.odd?
      container.run_scriptlet("FastRandom.install_jca_provider or raise 'not installed'")
      # The JDK keeps a SecureRandom made now for good (UUID.randomUUID's).
      container.run_scriptlet("java.util.UUID.randomUUID; java.security.SecureRandom.new.next_int")
    end
    engines[JSON.parse(container.run_scriptlet(REPORT)).values_at("ec_engine", "rsa_engine").join("/")] += 1
    raise "runtime #{i} warned: #{errors}" unless errors.to_s.empty? || ENV["FAST_RANDOM_NATIVE_LIBRARY"].to_s.start_with?("/nonexistent")

    refs << java.lang.ref.WeakReference.new(loader_of(container))
    container.terminate
    providers_left += 1 if provider_registered
    container = nil
    end
    own_thread ? Thread.new(&lifetime).join : lifetime.call
    if [count / 2 - 1, count - 1].include?(i)
      gc_until_collected(refs, seconds: 20)
      rss[i + 1] = rss_mb
    end
  end
  result[:engines] = engines
  result[:providers_left] = providers_left
  result[:alive] = gc_until_collected(refs)
  result[:alive_indexes] = refs.each_index.reject { |i| refs[i].refers_to(nil) }
  if ENV["FAST_RANDOM_HEAP_DUMP"]
    java.lang.management.ManagementFactory.get_platform_mx_bean(com.sun.management.HotSpotDiagnosticMXBean.java_class)
        .dump_heap(ENV["FAST_RANDOM_HEAP_DUMP"], true)
  end
  result[:rss_mb] = rss
  # A SecureRandom the JDK kept from a torn-down runtime still works (on the JDK's generator).
  result[:uuid_after] = java.util.UUID.randomUUID.to_s
when "copy_faults"
  require "fileutils"
  dir = ARGV.fetch(1)
  first, = runtime
  first.run_scriptlet("require 'fast_random'; FastRandom::EC.engine")
  private_dir = "#{dir}/private"
  FileUtils.mkdir_p(private_dir)
  File.chmod(0o700, private_dir)
  cases = {
    "writable_by_others" => -> { FileUtils.mkdir_p("#{dir}/open"); File.chmod(0o777, "#{dir}/open"); "#{dir}/open" },
    "a_file" => -> { File.write("#{dir}/file", ""); "#{dir}/file" },
    "a_link_others_may_replace" => lambda {
      FileUtils.mkdir_p("#{dir}/open")
      File.chmod(0o777, "#{dir}/open")
      File.symlink(private_dir, "#{dir}/open/link") unless File.symlink?("#{dir}/open/link")
      "#{dir}/open/link"
    },
    "private" => -> { private_dir }
  }
  result[:cases] = cases.to_h do |name, make|
    java.lang.System.set_property("fast_random.native.dir", make.call)
    container, errors = runtime
    report = JSON.parse(container.run_scriptlet("require 'fast_random'; require 'openssl'\n#{REPORT}"))
    report["errors"] = errors.to_s
    container.terminate
    [name, report]
  end
  result[:left_in_private_dir] = Dir.children(private_dir)
  result[:first] = JSON.parse(first.run_scriptlet("require 'openssl'\n#{REPORT}"))
  first.terminate
else
  abort "unknown scenario #{scenario}"
end
puts result.to_json
