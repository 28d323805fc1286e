# frozen_string_literal: true

# Passes 10.1: end to end, in a copy of the checkout, with bin/jruby's JRuby, the one CONTRIBUTING.md builds with.

require_relative "../test_helper"
require_relative "../support/packaging"
require "shellwords"

# The Rakefile's tasks under JRuby's own rake (`jruby -S rake compile`, as
# rake-compiler asks), not only MRI's: in a copy of the checkout's files,
# JRuby's rake builds the jar (with its generated populators and invokers),
# the JNI library and both gems.
class RakeUnderJRubyTest < Minitest::Test
  include Packaging::EndToEnd

  def test_jruby_rake_compiles_and_builds_the_gems
    copy = @dir
    files = `git -C #{Packaging::ROOT.shellescape} ls-files -z --cached --others --exclude-standard`.split("\0").select { |path| File.file?(File.join(Packaging::ROOT, path)) }
    files.each do |path|
      FileUtils.mkdir_p(File.join(copy, File.dirname(path)))
      FileUtils.cp(File.join(Packaging::ROOT, path), File.join(copy, path), preserve: true)
    end
    out, status = Open3.capture2e(File.join(copy, "bin/jruby"), "--bare", "-S", "rake", "compile", "gem", chdir: copy)
    assert status.success?, out
    jar = File.join(copy, "lib/fast_random/fast_random.jar")
    entries = `unzip -Z1 #{jar.shellescape}`.split("\n")
    assert_includes entries, "org/jruby/gen/org$jruby$ext$fastrandom$SecureRandomMethods$POPULATOR.class"
    refute_empty entries.grep(/SecureRandomMethods\$INVOKER\$/)
    assert File.file?(File.join(copy, "lib/fast_random", FastRandom::Generator::NATIVE_LIBRARY)), "no JNI library:\n#{out}"
    %w[fast_random-%s-java.gem fast_random-%s.gem].each do |gem|
      assert File.file?(File.join(copy, "pkg", format(gem, FastRandom::VERSION))), "#{gem} not built:\n#{out}"
    end
  end
end
