# frozen_string_literal: true

require "open3"
require "shellwords"
require "tmpdir"
require_relative "../../script/env_sh"

# The ARM test bed: programs of the arm64 Debian root that bin/setup makes
# (script/env.sh, fr_make_arm64_root), run on this x86-64 machine by
# qemu-user through the kernel's binfmt_misc.
#
# Each run has a mount namespace of its own (unshare), in which the root is
# seen through an overlay whose writable half is a tmpfs of that namespace:
# what a run writes or deletes (the JVM's files in /tmp, the libcrypto a
# test takes away) never reaches the cached root or the disk, and goes with
# the namespace. The checkout is mounted read-only at /fast_random, other
# host directories (read-only) where the caller asks, the host's /dev
# devices the JVM reads, and /proc. QEMU_CPU picks the emulated CPU: "max"
# has FEAT_RNG (RNDR), "cortex-a72" does not. A run that outlives TIMEOUT
# seconds is killed.
module Arm64Root
  ROOT_CHECKOUT = File.expand_path("../..", __dir__)
  CHECKOUT = "/fast_random"
  JAVA = "/usr/lib/jvm/java-17-openjdk-arm64/bin/java"
  LIBCRYPTO = "/usr/lib/aarch64-linux-gnu/libcrypto.so.3"
  BINFMT = "/proc/sys/fs/binfmt_misc/qemu-aarch64"
  TIMEOUT = 600
  DEVICES = %w[/dev/null /dev/zero /dev/random /dev/urandom].freeze
  # All a run sees of this process's environment: no FAST_RANDOM_* setting
  # of the pass (whose library is an x86-64 build) reaches the root.
  ENVIRONMENT = { "PATH" => "/usr/sbin:/usr/bin:/sbin:/bin", "HOME" => "/root", "LANG" => "C.UTF-8" }.freeze

  module_function

  # Where the root is (script/env.sh decides).
  def path
    @path ||= EnvSh.call("fr_arm64_root") or raise "script/env.sh gave no arm64 root"
  end

  # Why arm64 programs cannot run here (a sentence naming the fix), or nil.
  def problem
    return "no arm64 root at #{path}: bin/setup makes it" unless File.file?(File.join(path, ".fast_random-complete"))
    return "the root has no #{JAVA}" unless File.executable?(File.join(path, JAVA))
    return "running the root needs root (mount namespaces, chroot); this is uid #{Process.uid}" unless Process.uid.zero?

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

  # Runs +command+ (absolute paths of the root) on the emulated +cpu+, the
  # host directories +mounts+ ({host => path in the root}) bound in
  # read-only, the root's files +remove+ taken away for this run:
  # [stdout, stderr, status].
  def run(*command, cpu: "max", mounts: {}, remove: [])
    raise problem if problem

    Dir.mktmpdir("fr-arm64-") do |scratch| # only a mount point: the tmpfs lives in the namespace
      upper, work, merged = %w[upper work merged].map { |name| File.join(scratch, name) }
      steps = ["mount -t tmpfs -o mode=0700 tmpfs #{scratch.shellescape}",
               "mkdir #{[upper, work, merged].shelljoin}",
               "mount -t overlay overlay -o #{["lowerdir=#{path}", "upperdir=#{upper}", "workdir=#{work}"].join(",").shellescape} #{merged.shellescape}"]
      { ROOT_CHECKOUT => CHECKOUT }.merge(mounts).each do |host, inside|
        target = File.join(merged, inside).shellescape
        steps << "mkdir -p #{target}" << "mount --bind #{host.shellescape} #{target}" << "mount -o remount,bind,ro #{target}"
      end
      DEVICES.each do |device|
        target = File.join(merged, device).shellescape
        steps << "rm -f #{target}" << "touch #{target}" << "mount --bind #{device} #{target}"
      end
      steps << "mount -t proc proc #{File.join(merged, "proc").shellescape}"
      remove.each { |file| steps << "rm -f #{File.join(merged, file).shellescape}" }
      steps << "exec timeout --kill-after=10 #{TIMEOUT} chroot #{merged.shellescape} #{command.shelljoin}"
      Open3.capture3(ENVIRONMENT.merge("QEMU_CPU" => cpu), "unshare", "--mount", "--propagation", "private",
                     "sh", "-ec", steps.join("\n"), unsetenv_others: true)
    end
  end
end
