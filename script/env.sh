# Shared settings for bin/setup, bin/jruby, bin/test and bin/bench.
# Sourced, never run: it only defines variables and functions.

FR_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# The JRuby versions we support and test, newest first.
FR_JRUBY_VERSIONS="10.1.0.0 9.4.15.0"
FR_JRUBY_DEFAULT="10.1.0.0"

# Downloads live in Maven's local repository, outside the git tree.
FR_M2_REPO="${FR_M2_REPO:-$HOME/.m2/repository}"

# Debian packages the scripts need (MRI and its gems for the comparison runs).
FR_DEBIAN_PACKAGES="ruby rake rake-compiler ruby-benchmark-ips ruby-minitest"
# What `rake quality` (bin/quality) adds: the dieharder battery and rngtest.
FR_QUALITY_PACKAGES="dieharder rng-tools5"

# Map "10.1", "9.4" or a full version to the full version.
fr_jruby_version() {
  case "$1" in
    10.1|10.1.0.0) echo 10.1.0.0 ;;
    9.4|9.4.15.0) echo 9.4.15.0 ;;
    *) echo "unknown JRuby version '$1' (use 10.1 or 9.4)" >&2; return 1 ;;
  esac
}

fr_jruby_jar() {
  echo "$FR_M2_REPO/org/jruby/jruby-complete/$1/jruby-complete-$1.jar"
}

# The JDK each JRuby runs on: JRuby 10 needs Java 21+, we use Temurin 25;
# JRuby 9.4 runs on the distribution's Java 17.
fr_java_home() {
  local candidates
  case "$1" in
    10.*) candidates="/usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/temurin-25-jdk /usr/lib/jvm/temurin-25*" ;;
    9.4*) candidates="/usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/java-17-openjdk*" ;;
  esac
  local dir
  for dir in $candidates; do
    if [ -x "$dir/bin/java" ]; then echo "$dir"; return 0; fi
  done
  echo "no JDK found for JRuby $1 (looked in: $candidates)" >&2
  return 1
}

# Where rake-compiler looks for jruby.jar (JRUBY_HOME/lib/jruby.jar): a small
# directory of links to the cached jruby-complete jar, outside the git tree.
fr_jruby_home() {
  local home="${XDG_CACHE_HOME:-$HOME/.cache}/fast_random/jruby-home-$1"
  mkdir -p "$home/lib"
  ln -sf "$(fr_jruby_jar "$1")" "$home/lib/jruby.jar"
  echo "$home"
}

# True when the jar or the native library is missing or older than its sources.
fr_build_stale() {
  local jar="$FR_ROOT/lib/fast_random/fast_random.jar"
  [ -f "$jar" ] || return 0
  [ -z "$(find "$FR_ROOT/src/main/java" -name '*.java' -newer "$jar" -print -quit)" ] || return 0
  if [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ]; then
    local so="$FR_ROOT/lib/fast_random/linux-x86_64/libfast_random.so"
    [ -f "$so" ] || return 0
    [ -z "$(find "$FR_ROOT/ext" -name '*.[ch]' -newer "$so" -print -quit)" ] || return 0
  fi
  return 1
}

# Installs the Debian packages given that are not installed yet (apt-get,
# with sudo when not root); does nothing when all are there.
fr_install_debian_packages() {
  local missing=() pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "setup: installing Debian packages: ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
