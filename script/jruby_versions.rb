# frozen_string_literal: true

# The JRuby releases script/env.sh names, for the Ruby of bin/test, bin/bench
# and the suite: its lists (FR_JRUBY_VERSIONS, FR_JRUBY_OLDER) and its
# fr_jruby_version, which maps "10.0", "9.4.8" and the like to a release,
# asked of env.sh itself, so that the versions are written in one place.
require_relative "env_sh"

module JRubyVersions
  module_function

  # The releases bin/test runs every pass on, newest first.
  def pinned = list("FR_JRUBY_VERSIONS")

  # The other supported releases (bin/test --all-jrubies).
  def older = list("FR_JRUBY_OLDER")

  # The release bin/jruby's --jruby runs for +name+ ("10.0" is 10.0.0.0), or nil.
  def full(name)
    @full ||= {}
    @full.fetch(name) { @full[name] = EnvSh.call("fr_jruby_version", name) }
  end

  # The jruby-complete jar of release +version+, downloaded first if it is
  # not there (saying so on stderr); nil when the download failed.
  def jar(version)
    EnvSh.call("fr_fetch_jruby", version, err: $stderr) && EnvSh.call("fr_jruby_jar", version)
  end

  def list(variable) = EnvSh.variable(variable).split
end
