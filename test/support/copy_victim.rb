# frozen_string_literal: true

# The victim of test/integration/library_copy_test.rb, a JRuby whose
# fast_random.native.dir is the path under attack: it has LibraryCopy make
# and load private copies of a harmless library, ITERATIONS times, and
# reports as JSON where each copy handed to the loader was and why the
# others were refused. The loader waits PAUSE seconds before System.load:
# a pause between the check and the load (a busy machine, a GC) that a
# copy must survive.
#   jruby copy_victim.rb LIBRARY ITERATIONS PAUSE
require "json"

library, iterations, pause = ARGV[0], Integer(ARGV[1]), Float(ARGV[2])
copy = Java::FastrandomJni::LibraryCopy
bytes = File.binread(library).to_java_bytes
digest = copy.sha256(bytes)
loaded = []
refused = Hash.new(0)
loader = lambda do |path|
  loaded << path.to_s
  sleep pause
  java.lang.System.load(path.to_s)
end
iterations.times do
  copy.load(bytes, digest, File.basename(library), loader)
rescue copy::Failure => e
  refused[e.why] += 1
end
puts({ loaded: loaded, refused: refused }.to_json)
