# frozen_string_literal: true

module Bench
  # Debian installs Ruby gems (ruby-actionpack, ruby-rack, ...) for its MRI,
  # under rubygems-integration. MRI's RubyGems finds them by itself; JRuby's
  # RubyGems would find them with GEM_PATH but then activates every declared
  # dependency, and actionpack's reach nokogiri, which Debian builds for MRI
  # only. So for JRuby this puts the require paths of a gem and of its
  # dependencies straight on the load path, skipping any Debian lacks.
  module DebianGems
    SPECIFICATIONS = "/usr/share/rubygems-integration/all/specifications"

    module_function

    # Adds +name+'s and its runtime dependencies' require paths to
    # $LOAD_PATH; returns the names of the dependencies not found.
    def add_to_load_path(name)
      specs = Dir[File.join(SPECIFICATIONS, "*.gemspec")].map { |path| Gem::Specification.load(path) }.compact.to_h { |s| [s.name, s] }
      found = {}
      missing = []
      pending = [name]
      while (gem_name = pending.shift)
        next if found.key?(gem_name) || missing.include?(gem_name)

        spec = specs[gem_name] or (missing << gem_name; next)
        found[gem_name] = spec
        pending.concat(spec.runtime_dependencies.map(&:name))
      end
      found.each_value { |spec| spec.full_require_paths.each { |dir| $LOAD_PATH.push(dir) unless $LOAD_PATH.include?(dir) } }
      missing
    end
  end
end
