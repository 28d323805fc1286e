# frozen_string_literal: true

require "open3"
require "shellwords"
require "tmpdir"

# The ARM test bed: programs of the arm64 Debian root that bin/setup makes
# (script/env.sh, fr_make_arm64_root), run on this x86-64 machine by
# qemu-user through the kernel's binfmt_misc.
#
# Each run has a mount namespace of its own (unshare), in which the root is
# seen through an overlay: what a run writes or deletes (the JVM's files in
# /tmp, the libcrypto a test takes away) lands in a scratch directory and
# never reaches the cached root. The checkout is mounted read-only at
# /fast_random, other host directories where the caller asks, and /proc
# for the JVM. QEMU_CPU picks the emulated CPU: "max" has FEAT_RNG (RNDR),
# "cortex-a72" does not.
module Arm64Root
  ROOT_CHECKOUT = File.expand_path("../..", __dir__)
  CHECKOUT = "/fast_random"
  JAVA = "/usr/lib/jvm/java-17-openjdk-arm64/bin/java"
  LIBCRYPTO = "/usr/lib/aarch64-linux-gnu/libcrypto.so.3"
  BINFMT = "/proc/sys/fs/binfmt_misc/qemu-aarch64"
  # All a run sees of this process's environment: no FAST_RANDOM_* setting
  # of the pass (whose library is an x86-64 build) reaches the root.
  ENVIRONMENT = { "PATH" => "/usr/sbin:/usr/bin:/sbin:/bin", "HOME" => "/root", "LANG" => "C.UTF-8" }.freeze

  module_function

  # Where the root is (script/env.sh decides).
  def path
    @path ||= begin
      out, status = Open3.capture2("bash", "-c", '. "$1/script/env.sh" && fr_arm64_root', "env", ROOT_CHECKOUT)
      raise "script/env.sh gave no arm64 root" unless status.success?

      out.strip
    end
  end

  # Why arm64 programs cannot run here (a sentence naming the fix), or nil.
  def problem
    return "no arm64 root at #{path}: bin/setup makes it" unless File.file?(File.join(path, ".fast_random-complete"))
    return "binfmt_misc runs no arm64 programs (#{BINFMT} is missing or disabled): bin/setup enables it" unless
      File.file?(BINFMT) && File.read(BINFMT).start_with?("enabled")
    return "the root has no #{JAVA}" unless File.executable?(File.join(path, JAVA))

    nil
  end

  # Runs +command+ (absolute paths of the root) on the emulated +cpu+, the
  # host directories +mounts+ ({host => path in the root}) bound in, the
  # root's files +remove+ taken away for this run: [stdout, stderr, status].
  def run(*command, cpu: "max", mounts: {}, remove: [])
    raise problem if problem

    Dir.mktmpdir("fr-arm64-") do |scratch|
      upper, work, merged = %w[upper work merged].map { |name| File.join(scratch, name).tap { |dir| Dir.mkdir(dir) } }
      binds = { ROOT_CHECKOUT => [CHECKOUT, "ro"] }.merge(mounts.transform_values { |dir| [dir, "rw"] })
      steps = ["mount -t overlay overlay -o #{["lowerdir=#{path}", "upperdir=#{upper}", "workdir=#{work}"].join(",").shellescape} #{merged.shellescape}"]
      binds.each do |host, (inside, mode)|
        target = File.join(merged, inside).shellescape
        steps << "mkdir -p #{target}" << "mount --bind #{host.shellescape} #{target}"
        steps << "mount -o remount,bind,ro #{target}" if mode == "ro"
      end
      steps << "mount -t proc proc #{File.join(merged, "proc").shellescape}"
      remove.each { |file| steps << "rm -f #{File.join(merged, file).shellescape}" }
      steps << "exec chroot #{merged.shellescape} #{command.shelljoin}"
      Open3.capture3(ENVIRONMENT.merge("QEMU_CPU" => cpu), "unshare", "--mount", "--propagation", "private",
                     "sh", "-ec", steps.join("\n"), unsetenv_others: true)
    end
  end
end
