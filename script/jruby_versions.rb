# frozen_string_literal: true

# The JRuby releases script/env.sh names, for the Ruby of bin/test, bin/bench
# and the suite: its lists (FR_JRUBY_VERSIONS, FR_JRUBY_OLDER) and its
# fr_jruby_version, which maps "10.0", "9.4.8" and the like to a release,
# asked of env.sh itself, so that the versions are written in one place.
module JRubyVersions
  ENV_SH = File.expand_path("env.sh", __dir__)

  module_function

  # The releases bin/test runs every pass on, newest first.
  def pinned = list("FR_JRUBY_VERSIONS")

  # The other supported releases (bin/test --all-jrubies).
  def older = list("FR_JRUBY_OLDER")

  # The release bin/jruby's --jruby runs for +name+ ("10.0" is 10.0.0.0), or nil.
  def full(name)
    @full ||= {}
    @full.fetch(name) do
      out = IO.popen(["bash", "-c", 'source "$0" && fr_jruby_version "$1"', ENV_SH, name], err: File::NULL, &:read)
      @full[name] = $?.success? ? out.strip : nil
    end
  end

  def list(variable) = File.read(ENV_SH)[/^#{variable}="([^"]*)"/, 1].to_s.split
end
