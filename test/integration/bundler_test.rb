# frozen_string_literal: true

# Passes main: end to end, in processes with a user's environment; each JRuby has its own Bundler and RubyGems.

require_relative "../test_helper"
require_relative "../support/packaging"

# Applications that get fast_random through Bundler, with no network: each
# Ruby's own Bundler (JRuby's bundled one, MRI's default gem) resolves the
# Gemfile and Bundler.require loads the gem. On JRuby that is the java gem,
# which replaces SecureRandom; on MRI the plain gem, which leaves it alone.
class BundlerTest < Minitest::Test
  include Packaging::EndToEnd

  BOOT = <<~'RUBY'
    require "bundler/setup"
    Bundler.require
    require "json"
    spec = Gem.loaded_specs.fetch("fast_random")
    puts JSON.generate(
      "gem_path" => spec.full_gem_path, "platform" => spec.platform.to_s,
      "feature" => $LOADED_FEATURES.find { |path| path.end_with?("/fast_random.rb") },
      "active" => FastRandom.active?, "uuid_owner" => SecureRandom.method(:uuid).owner.to_s,
      "uuid" => SecureRandom.uuid
    )
  RUBY

  # `bundle ARGS` run by the given Ruby's own Bundler.
  BUNDLE = 'load Gem.bin_path("bundler", "bundle")'

  UUID_V4 = TestHelper::UUID_V4

  def gemfile(text)
    File.write(File.join(@dir, "Gemfile"), text)
  end

  def bundler_env
    { "BUNDLE_GEMFILE" => File.join(@dir, "Gemfile"), "BUNDLE_APP_CONFIG" => File.join(@dir, ".bundle"),
      "BUNDLE_USER_HOME" => File.join(@dir, ".bundle-home"), "BUNDLE_PATH" => File.join(@dir, "vendor/bundle"),
      "BUNDLE_DISABLE_VERSION_CHECK" => "true", "BUNDLE_JOBS" => "1" }
  end

  def boot(ruby_command)
    result, = Packaging.report(ruby_command, BOOT, dir: @dir, env: bundler_env)
    result
  end

  def bundle(ruby_command, *args)
    out, err, status = Packaging.run([*ruby_command, "-e", BUNDLE, *args], dir: @dir, env: bundler_env)
    assert status.success?, "bundle #{args.join(' ')} with #{ruby_command.first} failed (#{status}):\n#{out}\n#{err}"
    out
  end

  def lockfile
    File.read(File.join(@dir, "Gemfile.lock"))
  end

  # The path: source reads fast_random.gemspec, which is the java gem when
  # JRuby reads it and the plain gem when MRI does; so each Ruby locks its own
  # platform (a lockfile shared between them needs both gems from a source:
  # see the next test).
  def test_a_path_gem_resolves_and_loads_on_jruby_and_on_mri
    gemfile(<<~GEMFILE)
      # A sample application's Gemfile: no source, so nothing is fetched.
      gem "fast_random", path: #{Packaging::ROOT.dump}
    GEMFILE

    jruby = boot(Packaging.jruby_command)
    assert_equal [Packaging::ROOT, "java", File.join(Packaging::ROOT, "lib/fast_random.rb")],
                 jruby.values_at("gem_path", "platform", "feature")
    assert_equal [true, "FastRandom::SecureRandomMethods"], jruby.values_at("active", "uuid_owner")
    assert_match UUID_V4, jruby["uuid"]
    assert_match(/^  specs:\n    fast_random \(#{Regexp.escape(FastRandom::VERSION)}-java\)$/, lockfile)

    File.delete(File.join(@dir, "Gemfile.lock"))
    mri = boot(Packaging.mri_command)
    assert_equal [Packaging::ROOT, "ruby", File.join(Packaging::ROOT, "lib/fast_random.rb")],
                 mri.values_at("gem_path", "platform", "feature")
    assert_equal [false, "Random::Formatter"], mri.values_at("active", "uuid_owner")
    assert_match UUID_V4, mri["uuid"]
  end

  # As an application sees the gems once published: one Gemfile line, both
  # gems in the source (here vendor/cache, installed with --local, so the
  # source is never contacted), one lockfile with both platforms.
  def test_one_gemfile_and_lockfile_serve_jruby_and_mri_from_a_gem_source
    cache = File.join(@dir, "vendor/cache")
    FileUtils.mkdir_p(cache)
    FileUtils.cp(Packaging.gems, cache)
    gemfile(<<~GEMFILE)
      source "https://rubygems.org"
      gem "fast_random"
    GEMFILE

    bundle(Packaging.jruby_command, "install", "--local")
    jruby = boot(Packaging.jruby_command)
    assert_equal [true, "java"], jruby.values_at("active", "platform")
    assert jruby["gem_path"].start_with?(File.join(@dir, "vendor/bundle")), jruby["gem_path"]

    bundle(Packaging.mri_command, "install", "--local")
    mri = boot(Packaging.mri_command)
    assert_equal [false, "ruby", "Random::Formatter"], mri.values_at("active", "platform", "uuid_owner")
    assert_match UUID_V4, mri["uuid"]

    version = Regexp.escape(FastRandom::VERSION)
    assert_match(/^    fast_random \(#{version}\)$/, lockfile)
    assert_match(/^    fast_random \(#{version}-java\)$/, lockfile)
    assert_equal [true, "java"], boot(Packaging.jruby_command).values_at("active", "platform"),
                 "JRuby with the lockfile that MRI extended"
  end
end
