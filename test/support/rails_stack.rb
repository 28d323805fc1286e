# frozen_string_literal: true

require_relative "../../script/env_sh"

# The Rails code the RequestId and MessageEncryptor tests
# (test/integration/request_id_test.rb, message_encryptor_test.rb) run under
# JRuby: Debian's packages of actionpack and activesupport 6.1, rack 2.2 and
# WEBrick (bin/setup installs them), unmodified, plus concurrent-ruby with its
# JRuby extension.
#
# What is adapted, and why:
# * The libraries go on the load path by directory (-I) instead of being
#   activated as gems. Debian's actionpack gemspec depends, through
#   rails-html-sanitizer and loofah, on nokogiri, which Debian builds for MRI
#   only, so gem activation fails on JRuby; ActionDispatch::RequestId,
#   ActionDispatch::Request and ActiveSupport's KeyGenerator and
#   MessageEncryptor never load those libraries.
# * concurrent-ruby is not Debian's: Debian's ruby-concurrent is built without
#   concurrent_ruby.jar, the Java extension that concurrent-ruby requires on
#   JRuby ("Java extensions are required for JRuby"), and RubyGems is out of
#   reach. bin/setup takes the concurrent-ruby gem (1.1.7, jar included, as
#   released) out of asciidoctorj-pdf on Maven Central, which bundles it. So
#   activesupport runs on concurrent-ruby's real JRuby code paths.
module RailsStack
  ROOT = File.expand_path("../..", __dir__)
  DEBIAN_GEMS = "/usr/share/rubygems-integration/all/gems"
  LIBRARIES = %w[actionpack activesupport rack i18n tzinfo webrick].freeze

  module_function

  def concurrent_ruby_dir
    @concurrent_ruby_dir ||= EnvSh.call("fr_concurrent_ruby_dir") or raise "script/env.sh has no fr_concurrent_ruby_dir"
  end

  # Why the stack cannot run here, or nil.
  def problem
    missing = LIBRARIES.reject { |name| library_dir(name) }
    return "Debian's #{missing.join(', ')} missing from #{DEBIAN_GEMS}: bin/setup installs them" unless missing.empty?
    return "concurrent-ruby is missing from #{concurrent_ruby_dir}: bin/setup puts it there" unless File.file?(concurrent_ruby_jar)

    nil
  end

  def concurrent_ruby_jar
    File.join(concurrent_ruby_dir, "lib/concurrent-ruby/concurrent/concurrent_ruby.jar")
  end

  # The newest Debian copy of +name+'s lib directory.
  def library_dir(name)
    Dir[File.join(DEBIAN_GEMS, "#{name}-[0-9]*/lib")].max_by { |dir| Gem::Version.new(dir[%r{-([\d.]+)/lib\z}, 1]) }
  end

  # -I options that put the stack on a JRuby's load path.
  def load_path_args
    dirs = LIBRARIES.map { |name| library_dir(name) } << File.join(concurrent_ruby_dir, "lib/concurrent-ruby")
    dirs.flat_map { |dir| ["-I", dir] }
  end
end
