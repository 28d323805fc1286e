# frozen_string_literal: true

# Passes 10.1: LibraryCopy is fastrandom's Java on the JDK's files and System.load, the same under every JRuby; the packaged app's runs are this pass's too.

require_relative "../test_helper"
require "etc"
require "fileutils"
require "json"
require "open3"
require "tmpdir"

# The private copies of the native libraries (fastrandom.jni.LibraryCopy)
# against another user of the same host, as the third review attacked
# them: a copy directory named through a symbolic link that the other user
# can replace. That user (uid 65534, by setpriv: the suite runs as root on
# CI) flips the link between the victim's directory and its own, and puts a
# library of its own in place of each copy written in its directory; the
# victim (a child JRuby) makes and loads copies of a harmless library.
class LibraryCopyTest < Minitest::Test
  OTHER_UID = 65_534
  HARMLESS = "int fast_random_copy_test_harmless(void) { return 1; }\n"
  # The other user's library: its constructor leaves a mark, as whoever loads it.
  EVIL = <<~C
    #include <fcntl.h>
    #include <stdio.h>
    #include <unistd.h>
    __attribute__((constructor)) static void mark(void) {
      int fd = open(MARK, O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (fd >= 0) { dprintf(fd, "ran as uid %d\\n", (int)getuid()); close(fd); }
    }
  C

  def setup
    skip "needs a second uid to play the other user: setpriv runs as root only (CI runs the suite as root)" unless Process.uid.zero?
    skip "needs setpriv (util-linux) and a C compiler" unless TestHelper.executable("setpriv") && TestHelper.executable("cc")

    @dir = Dir.mktmpdir("fast_random-copies")
    File.chmod(0o755, @dir) # the other user reaches its own directories here
    @mine = File.join(@dir, "mine")
    Dir.mkdir(@mine, 0o700)
    @theirs = File.join(@dir, "theirs")
    Dir.mkdir(@theirs, 0o755)
    Dir.mkdir(File.join(@theirs, "native"), 0o777)
    File.chown(OTHER_UID, OTHER_UID, @theirs, File.join(@theirs, "native"))
    @mark = File.join(@dir, "mark")
    @harmless = self.class.compile(@dir, "libharmless.so", HARMLESS)
    @evil = self.class.compile(@dir, "libevil.so", EVIL, "-DMARK=\"#{@mark}\"")
    File.chmod(0o644, @evil)
  end

  def teardown
    FileUtils.rm_rf(@dir) if @dir
  end

  # Compiles C +source+ into the library +name+ in +dir+.
  def self.compile(dir, name, source, *flags)
    File.join(dir, name).tap do |library|
      out, status = Open3.capture2e("cc", "-shared", "-fPIC", *flags, "-o", library, "-x", "c", "-", stdin_data: source)
      raise "cc failed: #{out}" unless status.success?
    end
  end

  # Runs the victim with its copy directory at +directory+ while the other
  # user attacks +link+; returns the victim's report, with "attacks": the
  # attacker's [rounds, times it re-pointed the link] by the victim's end.
  def attacked(directory, link, iterations:, pause:)
    attacks = File.join(@theirs, "attacks")
    attacker = spawn("setpriv", "--reuid=#{OTHER_UID}", "--regid=#{OTHER_UID}", "--clear-groups",
                     "ruby", "-e", File.read(File.expand_path("../support/copy_attack.rb", __dir__)), "--",
                     link, @mine, @theirs, File.join(@theirs, "native"), @evil, "libharmless.so",
                     out: File::NULL, err: (log = File.join(@dir, "attacker.log")))
    deadline = Time.now + 30
    sleep 0.05 until File.exist?(attacks) || Time.now > deadline # under way before the first copy
    assert File.exist?(attacks), "the other user's attack did not start: #{File.read(log)}"
    out, err, status = Open3.capture3({ "FAST_RANDOM_JAVA_OPTS" => "-Dfast_random.native.dir=#{directory}" },
                                      *TestHelper.jruby_command, "-rfast_random",
                                      File.expand_path("../support/copy_victim.rb", __dir__), @harmless, iterations.to_s, pause.to_s)
    assert status.success?, "the victim failed:\n#{err}"
    JSON.parse(out.lines.last).merge("attacks" => File.read(attacks).split.map(&:to_i))
  ensure
    if attacker
      Process.kill(:KILL, attacker)
      Process.wait(attacker)
    end
  end

  # DIR/link, a symbolic link of +owner+'s to the victim's directory, in a
  # new directory DIR of mode +mode+.
  def link_to_mine(name, mode, owner: 0)
    holder = File.join(@dir, name)
    Dir.mkdir(holder)
    File.chmod(mode, holder)
    File.join(holder, "link").tap do |link|
      File.symlink(@mine, link)
      File.lchown(owner, owner, link)
    end
  end

  def refute_other_users_library_ran(report)
    refute File.exist?(@mark), "the other user's library ran in the victim's process: #{File.exist?(@mark) && File.read(@mark)}"
    outside = report["loaded"].reject { |path| path.start_with?("#{@mine}/") }
    assert_empty outside, "copies handed to System.load outside the checked directory #{@mine}"
  end

  # A link in a directory others may write to (no sticky bit), flipped
  # between the victim's directory and the other user's: no copy is ever
  # written or loaded in the other user's directory, and the setting is
  # refused, naming the link. 200 copies: today's second resolution of the
  # path sent about one in four there (984 of 4,235 in the review).
  def test_a_link_others_may_replace_never_redirects_a_copy
    link = link_to_mine("open", 0o777)
    report = attacked(File.join(link, "native"), link, iterations: 200, pause: 0.002)
    refute_other_users_library_ran(report)
    assert_operator report["attacks"].last, :>, 0, "the other user re-pointed the link"
    assert_equal [], report["loaded"], "refused, link or no link at this moment"
    assert_equal({ "the symbolic link #{link} on the way to it is in #{@dir}/open, which is writable by others" => 200 }, report["refused"])
  end

  # The other user's own link in a sticky directory (as in /tmp): theirs
  # to re-point, so refused. (With fs.protected_symlinks=1 the kernel would
  # not follow it either; many hosts and containers run with 0.)
  def test_another_users_link_in_a_sticky_directory_is_refused
    link = link_to_mine("sticky", 0o1777, owner: OTHER_UID)
    report = attacked(File.join(link, "native"), link, iterations: 50, pause: 0.002)
    refute_other_users_library_ran(report)
    assert_operator report["attacks"].last, :>, 0, "the other user re-pointed its link"
    assert_equal({ "the symbolic link #{link} on the way to it belongs to another user (nobody)" => 50 }, report["refused"])
  end

  # A link no one else can replace is followed, once: every copy is
  # written, checked and loaded in the victim's directory while the other
  # user does all it can (its own directory stays untouched).
  def test_a_link_only_this_user_may_replace_is_followed
    link = link_to_mine("safe", 0o755)
    report = attacked(File.join(link, "native"), link, iterations: 20, pause: 0.002)
    refute_other_users_library_ran(report)
    rounds, flips = report["attacks"]
    assert_operator rounds, :>, 0, "the other user was at it"
    assert_equal 0, flips, "and could not re-point the link"
    assert_equal({}, report["refused"])
    assert_equal 20, report["loaded"].size
    assert report["loaded"].all? { |path| path.start_with?("#{@mine}/native/libfast_random-") }, report["loaded"].first
    assert_equal [], Dir.children(File.join(@mine, "native")), "each copy deleted once loaded"
    assert_equal [], Dir.children(File.join(@theirs, "native")), "nothing went to the other user's directory"
  end
end

# What PrivateDirectory makes of each shape of path (through the test
# build's CopyDirectories, in this process): where it goes, and why it is
# refused, naming the step.
class CopyDirectoryTest < Minitest::Test
  OTHER_UID = LibraryCopyTest::OTHER_UID

  def setup
    skip "needs root to give files to another uid (CI runs the suite as root)" unless Process.uid.zero?

    @dir = File.realpath(Dir.mktmpdir("fast_random-copy-dirs"))
  end

  def teardown
    FileUtils.rm_rf(@dir) if @dir
  end

  def resolve(*names) = Java::FastrandomJni::CopyDirectories.resolve(File.join(@dir, *names))

  def directory(name, mode, owner: 0)
    File.join(@dir, name).tap do |path|
      Dir.mkdir(path)
      File.chmod(mode, path)
      File.chown(owner, owner, path)
    end
  end

  def test_where_each_path_goes
    directory("mine", 0o700)
    File.symlink("mine", File.join(@dir, "relative"))
    File.symlink(File.join(@dir, "mine"), File.join(@dir, "absolute"))
    File.symlink("relative/../absolute", File.join(@dir, "chain"))
    assert_equal File.join(@dir, "mine"), resolve("mine")
    assert_equal File.join(@dir, "mine/native"), resolve("relative/native"), "a relative link, the directory made"
    assert_equal File.join(@dir, "mine/native"), resolve("absolute/native")
    assert_equal File.join(@dir, "mine"), resolve("chain"), "links through links, .. where the link's target is"
    assert_equal File.join(@dir, "mine"), resolve("absolute"), "a link as the last step"
    made = File.join(@dir, "mine/a/b")
    old_umask = File.umask(0o002) # a login's usual umask: what it makes must not fail the rule next time
    begin
      assert_equal made, resolve("mine/a/b")
      assert_equal File.join(@dir, "mine/c"), resolve("mine/c/.")
    ensure
      File.umask(old_umask)
    end
    assert_equal made, resolve("mine/a/b"), "and again"
    assert_equal 0o755, File.stat(File.join(@dir, "mine/a")).mode & 0o7777, "a directory on the way made mode 0755"
    assert_equal 0o700, File.stat(made).mode & 0o7777, "the directory itself made mode 0700"
    assert_equal 0o700, File.stat(File.join(@dir, "mine/c")).mode & 0o7777, "a trailing . is still the directory itself"
    assert_equal File.join(@dir, "mine/a"), resolve("mine/./a/b/.."), ". and .."
    sticky = directory("sticky", 0o1777)
    assert_equal File.join(sticky, "mine"), resolve("sticky/mine"), "a directory of ours in a sticky one"
  end

  def test_what_is_refused
    directory("open", 0o777)
    File.symlink(@dir, File.join(@dir, "open/link"))
    directory("sticky", 0o1777)
    File.symlink(@dir, File.join(@dir, "sticky/link"))
    File.lchown(OTHER_UID, OTHER_UID, File.join(@dir, "sticky/link"))
    directory("theirs", 0o755, owner: OTHER_UID)
    directory("group", 0o770)
    File.write(File.join(@dir, "file"), "")
    File.symlink("loop", File.join(@dir, "loop"))
    {
      "open/link/x" => "the symbolic link #{@dir}/open/link on the way to it is in #{@dir}/open, which is writable by others",
      "sticky/link/x" => "the symbolic link #{@dir}/sticky/link on the way to it belongs to another user (nobody)",
      "open/x" => "#{@dir}/open on the way to it is writable by others",
      "theirs/x" => "#{@dir}/theirs on the way to it belongs to another user (nobody)",
      "theirs" => "it belongs to nobody",
      "group" => "others may write to it (rwxrwx---)",
      "open" => "others may write to it (rwxrwxrwx)",
      "file" => "it is not a directory",
      "file/x" => "#{@dir}/file on the way to it is not a directory",
      "loop/x" => "too many symbolic links on the way to it"
    }.each do |path, why|
      assert_equal "refused: #{why}", resolve(path), path
    end
    assert_raises(Java::JavaNioFile::NoSuchFileException, "no way through a directory that is not there") { resolve("nothere/../x") }
    refute File.exist?(File.join(@dir, "nothere"))
    assert_equal %w[link], Dir.children(File.join(@dir, "open")), "nothing made where others may write"
    assert_equal "refused: not an absolute path", Java::FastrandomJni::CopyDirectories.resolve("relative/dir")
  end
end

# The copy's own failure paths, in this process (the test build's injector,
# site "copy:checked"): a copy replaced between its check and its load
# (what only this user or root could do, in the directory it checks) is
# refused; a fault there leaves nothing behind; the next copy loads.
class LibraryCopyFaultsTest < Minitest::Test
  COPY = Java::FastrandomJni::LibraryCopy

  def setup
    skip "needs a C compiler for the libraries it copies" unless TestHelper.executable("cc")

    @dir = Dir.mktmpdir("fast_random-copy-faults")
    @mark = File.join(@dir, "mark")
    @harmless = LibraryCopyTest.compile(@dir, "libharmless.so", LibraryCopyTest::HARMLESS)
    @evil = LibraryCopyTest.compile(@dir, "libevil.so", LibraryCopyTest::EVIL, "-DMARK=\"#{@mark}\"")
    @bytes = File.binread(@harmless).to_java_bytes
    @loaded = []
    @loader = ->(path) { @loaded << path.to_s; java.lang.System.load(path.to_s) }
  end

  def teardown
    Java::Fastrandom::TestFaultInjector.set("copy", nil)
    FileUtils.rm_rf(@dir) if @dir
  end

  # The directory copies go to, as LibraryCopy resolves it.
  def copies = COPY.directory.to_real_path.to_s

  def copy!
    COPY.load(@bytes, COPY.sha256(@bytes), "libharmless.so", @loader)
  end

  def assert_refused(why)
    error = assert_raises(COPY::Failure) { copy! }
    assert_includes error.why, why
    assert_empty @loaded, "nothing handed to System.load"
    assert_equal [], Dir.children(copies).grep(/\Alibfast_random-/), "the refused copy deleted"
  end

  def test_a_copy_replaced_after_its_check_is_refused_and_the_next_one_loads
    Java::Fastrandom::TestFaultInjector.set("copy", lambda do |_site|
      Dir.glob(File.join(copies, "libfast_random-*", "libharmless.so")).each do |file|
        FileUtils.cp(@evil, "#{file}.new")
        File.rename("#{file}.new", file)
      end
    end)
    assert_refused "the copy there was replaced after it was checked"
    refute File.exist?(@mark), "the replacement never ran"

    Java::Fastrandom::TestFaultInjector.set("copy", nil)
    copy!
    assert_equal 1, @loaded.size
  end

  def test_a_fault_between_check_and_load_leaves_nothing_behind
    Java::Fastrandom::TestFaultInjector.set("copy", ->(_site) { raise java.io.IOException.new("injected") })
    assert_refused "injected"
    Java::Fastrandom::TestFaultInjector.set("copy", nil)
    copy!
    assert_equal 1, @loaded.size
  end

  def test_bytes_that_do_not_match_their_sha256_are_refused
    error = assert_raises(COPY::Failure) { COPY.load(@bytes, COPY.sha256("other".to_java_bytes), "libharmless.so", @loader) }
    assert_equal "the copy written there does not match its SHA-256", error.why
    assert_empty @loaded
  end
end
