# frozen_string_literal: true

require "open3"
require "shellwords"
require "tmpdir"
require_relative "env_sh"

# The Debian roots of the test beds, made by bin/setup (script/env.sh's
# FR_DEBIAN_ROOTS, fr_make_debian_root), for the suite and bin/bench
# --root: programs of another Linux run with chroot, arm64 ones on this
# x86-64 machine by qemu-user through the kernel's binfmt_misc, amd64 ones
# natively.
#
# Each run has a mount namespace of its own (unshare), in which the root is
# seen through an overlay whose writable half is a tmpfs of that namespace:
# what a run writes or deletes (the JVM's files in /tmp, a gem it installs,
# the libcrypto a test takes away) never reaches the cached root or the
# disk, and goes with the namespace. The checkout is mounted read-only at
# /fast_random, other host directories where the caller asks (read-only,
# or writable), the host's /dev devices the JVM reads, and /proc. On arm64,
# QEMU_CPU picks the emulated CPU: "max" has FEAT_RNG (RNDR), "cortex-a72"
# does not. A run that outlives TIMEOUT seconds is killed.
class DebianRoot
  ROOT_CHECKOUT = File.expand_path("..", __dir__)
  CHECKOUT = "/fast_random"
  BINFMT = "/proc/sys/fs/binfmt_misc/qemu-aarch64"
  TIMEOUT = 600
  DEVICES = %w[/dev/null /dev/zero /dev/random /dev/urandom].freeze
  # All a run sees of this process's environment: no FAST_RANDOM_* setting
  # of the pass (whose library is this machine's test build) reaches the root.
  ENVIRONMENT = { "PATH" => "/usr/sbin:/usr/bin:/sbin:/bin", "HOME" => "/root", "LANG" => "C.UTF-8" }.freeze
  TRIPLETS = { "arm64" => "aarch64-linux-gnu", "amd64" => "x86_64-linux-gnu" }.freeze

  attr_reader :arch, :suite

  def initialize(arch, suite)
    @arch = arch
    @suite = suite
  end

  # The ARM test bed: Debian 12 on arm64.
  ARM64 = new("arm64", "bookworm")
  # Debian 11 (glibc 2.31, OpenSSL 1.1.1) on x86-64 and on arm64.
  BULLSEYE = new("amd64", "bullseye")
  ARM64_BULLSEYE = new("arm64", "bullseye")

  def name = "Debian #{suite} #{arch} root"

  # Where the root is (script/env.sh decides).
  def path
    @path ||= EnvSh.call("fr_debian_root", arch, suite) or raise "script/env.sh gave no #{name}"
  end

  # The java of its OpenJDK +version+ (a path in the root; script/env.sh decides).
  def java(version = 17)
    @java ||= {}
    @java[version] ||= EnvSh.call("fr_root_java", arch, version.to_s) or raise "script/env.sh gave no java for the #{name}"
  end

  # Its libcrypto (a path in the root): libcrypto.so.3 on bookworm, .so.1.1 on bullseye.
  def libcrypto = "/usr/lib/#{TRIPLETS.fetch(arch)}/libcrypto.so.#{suite == "bullseye" ? "1.1" : "3"}"

  def arm64? = arch == "arm64"

  # Why this root's programs cannot run here (a sentence naming the fix), or nil.
  def problem
    return "no #{name} at #{path}: bin/setup makes it" unless File.file?(File.join(path, ".fast_random-complete"))
    return "the #{name} has no #{java}" unless File.executable?(File.join(path, java))
    return "running the #{name} needs root (mount namespaces, chroot); this is uid #{Process.uid}" unless Process.uid.zero?
    return unless arm64?

    status = File.join(File.dirname(BINFMT), "status")
    return "binfmt_misc is off (#{status}): bin/setup turns it on" unless File.file?(status) && File.read(status).start_with?("enabled")

    entry = File.file?(BINFMT) ? File.read(BINFMT) : ""
    return "binfmt_misc has no qemu-aarch64 entry (#{BINFMT}): bin/setup enables it" if entry.empty?
    return "binfmt_misc's qemu-aarch64 entry is disabled: bin/setup enables it" unless entry.start_with?("enabled")
    return "binfmt_misc's qemu-aarch64 entry lacks flag F, so it cannot run in a chroot: bin/setup registers it" unless
      entry[/^flags: (\w*)/, 1].to_s.include?("F")

    nil
  end

  # A run's exit status in words, a timeout's included.
  def describe(status)
    case status.exitstatus
    when 124, 137 then "#{status}: killed after #{TIMEOUT} s"
    else status.to_s
    end
  end

  # The roots bin/bench --root runs in, by name: the native ones (under
  # qemu a benchmark would measure the emulator).
  BENCH = { "bullseye" => BULLSEYE }.freeze

  # Runs +command+ (absolute paths of the root) with +env+ added to
  # ENVIRONMENT (a nil value: left out), on the emulated +cpu+ (arm64), the host directories
  # +mounts+ ({host => path in the root}) bound in read-only and +writable+
  # read-write, the root's files +remove+ taken away for this run:
  # [stdout, stderr, status].
  def run(*command, cpu: "max", env: {}, mounts: {}, writable: {}, remove: [])
    raise problem if problem

    Dir.mktmpdir("fr-root-") do |scratch| # only a mount point: the tmpfs lives in the namespace
      upper, work, merged = %w[upper work merged].map { |name| File.join(scratch, name) }
      steps = ["mount -t tmpfs -o mode=0700 tmpfs #{scratch.shellescape}",
               "mkdir #{[upper, work, merged].shelljoin}",
               "mount -t overlay overlay -o #{["lowerdir=#{path}", "upperdir=#{upper}", "workdir=#{work}"].join(",").shellescape} #{merged.shellescape}"]
      binds = { ROOT_CHECKOUT => CHECKOUT }.merge(mounts).map { |host, inside| [host, inside, true] } +
              writable.map { |host, inside| [host, inside, false] }
      binds.each do |host, inside, read_only|
        target = File.join(merged, inside).shellescape
        steps << "mkdir -p #{target}" << "mount --bind #{host.shellescape} #{target}"
        steps << "mount -o remount,bind,ro #{target}" if read_only
      end
      DEVICES.each do |device|
        target = File.join(merged, device).shellescape
        steps << "rm -f #{target}" << "touch #{target}" << "mount --bind #{device} #{target}"
      end
      steps << "mount -t proc proc #{File.join(merged, "proc").shellescape}"
      remove.each { |file| steps << "rm -f #{File.join(merged, file).shellescape}" }
      steps << "exec timeout --kill-after=10 #{TIMEOUT} chroot #{merged.shellescape} #{command.shelljoin}"
      Open3.capture3(ENVIRONMENT.merge(env.compact).merge("QEMU_CPU" => cpu), "unshare", "--mount", "--propagation", "private",
                     "sh", "-ec", steps.join("\n"), unsetenv_others: true)
    end
  end
end
