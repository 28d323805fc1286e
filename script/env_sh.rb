# frozen_string_literal: true

# script/env.sh, asked from Ruby (bin/test's runner, bin/bench, the suite):
# its functions' answers and its variables, so that every path and version
# it knows is written there alone.
module EnvSh
  PATH = File.expand_path("env.sh", __dir__)

  module_function

  # What env.sh's +function+ prints for +args+, stripped; nil when it fails.
  # Its messages (a download's, say) go to +err+.
  def call(function, *args, err: File::NULL)
    out = IO.popen(["bash", "-c", 'source "$0" && "$@"', PATH, function, *args], err: err, &:read)
    $?.success? ? out.strip : nil
  end

  # The value env.sh gives +name+ (a plain NAME="..." line), or "".
  def variable(name) = File.read(PATH)[/^#{name}="([^"]*)"/, 1].to_s
end
