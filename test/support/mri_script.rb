# frozen_string_literal: true

# What the files MRI runs for the JRuby tests share (mri_rsa.rb, mri_ec.rb):
# each is a module that extends this one and a script whose first argument
# names what to compute; the JRuby side calls the module's run, which starts
# MRI on the file and reads its JSON.
require "json"
require "open3"

module MriScript
  def hex(bytes) = bytes.unpack1("H*")
  def unhex(text) = [text].pack("H*")

  # Runs +script+ with MRI (Debian's ruby, installed by bin/setup, or
  # FAST_RANDOM_MRI) and +command+; returns what it printed, parsed as JSON.
  # A command without input (the reference keys and results: MRI's RSA keys
  # up to 4096 bits take some 8 s) is made once per bin/test run, whose
  # runner names a fresh FAST_RANDOM_MRI_CACHE directory, and shared by its
  # passes; every run makes new keys.
  def run_script(script, command, input = "")
    cache = ENV["FAST_RANDOM_MRI_CACHE"].to_s
    return spawn_mri(script, command, input) if cache.empty? || !input.empty?

    path = File.join(cache, "#{File.basename(script, ".rb")}-#{command}.json")
    return JSON.parse(File.read(path)) if File.file?(path)

    spawn_mri(script, command, input).tap do |result|
      require "fileutils"
      FileUtils.mkdir_p(cache)
      File.write("#{path}.#{Process.pid}", JSON.generate(result))
      File.rename("#{path}.#{Process.pid}", path) # whole, whichever job writes last
    end
  end

  def spawn_mri(script, command, input)
    ruby = ENV.fetch("FAST_RANDOM_MRI", "/usr/bin/ruby")
    raise "MRI (#{ruby}) is missing: bin/setup installs Debian's ruby" unless File.executable?(ruby)

    out, err, status = Open3.capture3(ruby, script, command, stdin_data: input)
    raise "MRI failed (#{command}): #{err}" unless status.success?

    JSON.parse(out)
  end
end
