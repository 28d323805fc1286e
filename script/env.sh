# Shared settings for bin/setup, bin/jruby, bin/test and bin/bench.
# Sourced, never run: it only defines variables and functions.

FR_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# The JRuby versions bin/test runs every pass on, newest first.
FR_JRUBY_VERSIONS="10.1.1.0 9.4.15.0"
FR_JRUBY_DEFAULT="10.1.1.0"
# The other releases the suite runs on (README, "Supported versions"), one
# for each jruby-openssl a JRuby bundles that the two above do not: 0.15.6
# (10.1.0.0), 0.15.3 (10.0.0.0, the oldest JRuby 10), 0.15.4 (10.0.2.0 and
# 9.4.14.0), 0.15.5 (10.0.4.0) and 0.15.0 (9.4.8.0, the oldest supported).
# bin/test runs the hook files on the oldest 10.0 in every run (bin/setup
# fetches it); --all-jrubies runs the suite on all of them. bin/jruby and
# bin/bench take these and any other release on Maven Central, fetched on
# first use.
FR_JRUBY_OLDER="10.1.0.0 10.0.0.0 10.0.2.0 10.0.4.0 9.4.14.0 9.4.8.0"

# Downloads live in Maven's local repository, outside the git tree.
FR_M2_REPO="${FR_M2_REPO:-$HOME/.m2/repository}"

# Debian packages the scripts need (MRI and its gems for the comparison runs;
# libgmp10, the system GMP that the :gmp RSA engine prefers to jnagmp's copy;
# zip and unzip, with which the build moves that copy out of jnagmp's jar;
# Rails 6.1's actionpack with rack, WEBrick and wrk for bench/request_id.rb
# and the RequestId tests; valgrind for the constant-time test; the cross
# compiler for the linux-aarch64 library, and debootstrap, qemu-user-static
# and binfmt-support for the Debian roots of the test beds, fr_make_debian_root).
FR_DEBIAN_PACKAGES="ruby rake rake-compiler ruby-benchmark-ips ruby-minitest libgmp10 zip unzip
  ruby-actionpack ruby-rack ruby-webrick wrk valgrind
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross debootstrap qemu-user-static binfmt-support"

# Java libraries from Maven Central (group:artifact:version), kept in the
# local Maven repository like the JRuby jars.
# Compiled against only: BouncyCastle (its provider, and the PKIX and util
# jars with the certificate builder) comes with jruby-openssl at run time
# (1.83 in JRuby 10.1, 1.84 in 9.4.15), and the gem must use that copy, so
# we compile against the oldest of them and never ship it.
FR_COMPILE_JARS="org.bouncycastle:bcprov-jdk18on:1.83 org.bouncycastle:bcpkix-jdk18on:1.83 org.bouncycastle:bcutil-jdk18on:1.83"
# Shipped in the gem, in lib/fast_random/vendor/ (the Rakefile copies them
# there), in the order they are to be loaded: JNA, then jnagmp (GMP through
# JNA; its own libgmp goes to vendor/gmp/), then its BouncyCastle RSA engine.
# jnagmp 3.0.0 declares JNA 5.5.0.
FR_VENDORED_JARS="net.java.dev.jna:jna:5.5.0 com.squareup.jnagmp:jnagmp:3.0.0 com.squareup.jnagmp:bouncycastle-rsa:3.0.0"
# The OpenSSL TLS engine (FAST_RANDOM_TLS=openssl, docs/tls.md): netty's
# OpenSslEngine on netty-tcnative's static BoringSSL. Compiled against and
# shipped in lib/fast_random/vendor/netty/, never required: a class loader
# of fast_random's own loads them (fastrandom.tls.openssl), so that an
# application's own netty, or none, is unaffected. Their JNI library for each
# platform the gem ships goes beside fast_random's (the jar without it).
FR_TLS_ENGINE_JARS="io.netty:netty-common:4.2.18.Final io.netty:netty-buffer:4.2.18.Final
  io.netty:netty-codec-base:4.2.18.Final io.netty:netty-handler:4.2.18.Final
  io.netty:netty-tcnative-classes:2.0.84.Final"
FR_TLS_ENGINE_NATIVES="io.netty:netty-tcnative-boringssl-static:2.0.84.Final:linux-x86_64
  io.netty:netty-tcnative-boringssl-static:2.0.84.Final:linux-aarch_64"

# For the tests only: concurrent-ruby with its JRuby extension, which Rails'
# activesupport needs on JRuby. Debian's ruby-concurrent has no
# concurrent_ruby.jar and RubyGems is out of reach; asciidoctorj-pdf on Maven
# Central bundles the concurrent-ruby gem, jar included, and bin/setup takes
# that gem out of it into the cache (fr_concurrent_ruby_dir).
FR_CONCURRENT_RUBY_CARRIER="org.asciidoctor:asciidoctorj-pdf:2.3.19"
FR_CONCURRENT_RUBY_VERSION="1.1.7"

fr_concurrent_ruby_dir() {
  echo "${XDG_CACHE_HOME:-$HOME/.cache}/fast_random/concurrent-ruby-$FR_CONCURRENT_RUBY_VERSION"
}

# For test/integration/servlet_deploy_test.rb only: jruby-rack and an embedded servlet
# container to deploy a Rack app into, again and again in one JVM.
# jruby-rack 1.2.6 is the newest that resolves from Maven Central (1.2.7 is
# tagged in its git but does not resolve) and the first to fix RubyGems'
# early start on JRuby 9.4+ (on JRuby 10 it cannot write a body by #each:
# test/support/servlet/config.ru says how the app avoids that); 1.2.x is
# written to the javax.servlet API (Servlet 3.0), so the container is Tomcat
# 9, the last javax one (10 and later are jakarta.*), with the annotations
# API that tomcat-embed-core 9 declares.
FR_SERVLET_TEST_JARS="org.jruby.rack:jruby-rack:1.2.6 org.apache.tomcat.embed:tomcat-embed-core:9.0.112
  org.apache.tomcat:tomcat-annotations-api:9.0.112"

# What `rake quality` (bin/quality) adds: the dieharder battery and rngtest.
FR_QUALITY_PACKAGES="dieharder rng-tools5"

# Map a name to a JRuby release: "10.1", "10.0" and "9.4" to the pinned
# 10.1, the oldest 10.0 and the newest 9.4; a release of three numbers to
# its first build ("9.4.8" is 9.4.8.0); a release of four numbers to
# itself, listed here or not (fr_fetch_jruby downloads it on first use).
fr_jruby_version() {
  local v
  case "$1" in
    10.1|9.4) # the pinned one of that line
      for v in $FR_JRUBY_VERSIONS; do [[ "$v" == "$1".* ]] && { echo "$v"; return 0; }; done ;;
    10.0) # the oldest the suite runs on
      for v in $FR_JRUBY_OLDER; do [[ "$v" == 10.0.0.* ]] && { echo "$v"; return 0; }; done ;;
  esac
  if [[ "$1" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then echo "$1.0"; return 0; fi
  if [[ "$1" =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$ ]]; then echo "$1"; return 0; fi
  echo "unknown JRuby version '$1' (use 10.1, 10.0, 9.4, or a release such as 9.4.12.0 or 10.0.3)" >&2
  return 1
}

# Downloads jruby-complete VERSION from Maven Central unless it is there;
# says which, when Maven Central has no such release.
fr_fetch_jruby() {
  local jar log; jar="$(fr_jruby_jar "$1")"
  [ -s "$jar" ] && return 0
  echo "fast_random: downloading jruby-complete $1 from Maven Central" >&2
  log="$(mvn -B dependency:get -Dartifact="org.jruby:jruby-complete:$1" -Dtransitive=false 2>&1)" || true
  [ -s "$jar" ] && return 0
  # Maven's words for it, the first time and once the miss is cached.
  if grep -Eq "Could not find artifact org.jruby:jruby-complete|org.jruby:jruby-complete:jar:$1 was not found" <<<"$log"; then
    echo "fast_random: JRuby $1 is not a release on Maven Central (no org.jruby:jruby-complete:$1)" >&2
  else
    echo "fast_random: the download of jruby-complete $1 failed:" >&2
    { grep "ERROR" <<<"$log" || tail -n 3 <<<"${log:-(mvn printed nothing)}"; } | head -5 >&2
  fi
  return 1
}

fr_jruby_jar() {
  echo "$FR_M2_REPO/org/jruby/jruby-complete/$1/jruby-complete-$1.jar"
}

# group:artifact:version[:classifier] -> the jar's path in the local Maven repository.
fr_maven_jar() {
  local group="${1%%:*}" rest="${1#*:}"
  local artifact="${rest%%:*}" version="${rest#*:}" classifier=""
  case "$version" in *:*) classifier="-${version#*:}" version="${version%%:*}" ;; esac
  echo "$FR_M2_REPO/${group//.//}/$artifact/$version/$artifact-$version$classifier.jar"
}

# group:artifact:version[:classifier] -> what `mvn dependency:get -Dartifact=` takes.
fr_maven_artifact() {
  case "$1" in
    *:*:*:*) echo "${1%:*}:jar:${1##*:}" ;;
    *) echo "$1" ;;
  esac
}

# group:artifact:version -> the jar's name in lib/fast_random/vendor/.
fr_vendored_name() {
  local rest="${1#*:}"
  echo "${rest%%:*}-${rest#*:}.jar"
}

# Whether a release is JRuby 10 or later: those need Java 21+, and run on
# Temurin 25 here; JRuby 9 runs on the distribution's Java 17.
fr_jruby_on_jdk25() {
  [ "${1%%.*}" -ge 10 ] 2>/dev/null
}

# The JDK each JRuby runs on (fr_jruby_on_jdk25).
fr_java_home() {
  local candidates
  if fr_jruby_on_jdk25 "$1"; then
    candidates="/usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/temurin-25-jdk /usr/lib/jvm/temurin-25*"
  else
    candidates="/usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/java-17-openjdk*"
  fi
  local dir
  for dir in $candidates; do
    if [ -x "$dir/bin/java" ]; then echo "$dir"; return 0; fi
  done
  echo "no JDK found for JRuby $1 (looked in: $candidates)" >&2
  return 1
}

# The JDK's class-data archive for a JRuby (bin/jruby --quick-start): the
# classes of the JDK and jruby-complete that starting JRuby and requiring
# openssl, json and open3 load, parsed and laid out once, so that a JVM
# maps them instead of loading them again. JDK 25 calls it an AOT cache
# (JEP 483), JDK 17 a dynamic CDS archive; either is valid for one JDK
# build and one jar, so the name carries both. Kept with the downloads,
# outside the git tree; bin/setup makes it.
fr_start_archive() {
  local java_home release suffix=jsa
  java_home="$(fr_java_home "$1")" || return 1
  release="$(sed -n 's/^JAVA_RUNTIME_VERSION="\(.*\)"$/\1/p' "$java_home/release")"
  if fr_jruby_on_jdk25 "$1"; then suffix=aot; fi
  echo "${XDG_CACHE_HOME:-$HOME/.cache}/fast_random/start-archive/jruby-$1-java-${release:-unknown}.$suffix"
}

# The JVM options that use (or, with "write", make) that archive. A
# missing or unusable archive is no error: the JVM then starts without it,
# silently (its cds and aot logs are off, so that no test sees a line of
# them on stderr).
fr_start_archive_options() { # version, archive, [write]
  if fr_jruby_on_jdk25 "$1"; then
    if [ "${3:-}" = write ]; then echo "-XX:AOTCacheOutput=$2"; else echo "-XX:AOTCache=$2 -Xlog:aot*=off,cds*=off"; fi
  else
    if [ "${3:-}" = write ]; then echo "-XX:ArchiveClassesAtExit=$2"; else echo "-XX:SharedArchiveFile=$2 -Xlog:cds*=off"; fi
  fi
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
  local coordinate
  for coordinate in $FR_VENDORED_JARS; do
    [ -f "$FR_ROOT/lib/fast_random/vendor/$(fr_vendored_name "$coordinate")" ] || return 0
  done
  [ -f "$FR_ROOT/lib/fast_random/vendor/gmp/.extracted" ] || return 0
  if [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ]; then
    # As the Rakefile rebuilds each library: after any change to a source
    # of either architecture, not to test_hooks.c (the test builds').
    local arch so
    for arch in x86_64 aarch64; do
      so="$FR_ROOT/lib/fast_random/linux-$arch/libfast_random.so"
      [ -f "$so" ] || return 0
      [ -z "$(find "$FR_ROOT/ext" -name '*.[ch]' ! -name test_hooks.c -newer "$so" -print -quit)" ] || return 0
    done
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

# The Debian roots of the test beds, made by debootstrap and kept with the
# downloads, outside the git tree (script/debian_root.rb runs programs
# in them with chroot). bin/setup makes each once.
#   arm64 bookworm   the ARM test bed (test/native/aarch64_test.rb, bin/test
#                    --aarch64-jruby): Debian 12 on arm64, run through
#                    qemu-user and the kernel's binfmt_misc (about 7 minutes)
#   amd64 bullseye   Debian 11 (glibc 2.31, OpenSSL 1.1.1, OpenJDK 17 and 11,
#                    MRI 2.7): test/integration/debian11_test.rb and
#                    bin/bench --root bullseye; native, no emulation (a minute)
#   arm64 bullseye   the same Linux on arm64 under qemu, for the aarch64
#                    library on glibc 2.31 and OpenSSL 1.1.1 (aarch64_test.rb)
FR_DEBIAN_ROOTS="arm64:bookworm amd64:bullseye arm64:bullseye"

# The packages debootstrap adds to root ARCH SUITE's minimal base.
fr_root_packages() {
  case "$1:$2" in
    arm64:bookworm) echo "openjdk-17-jre-headless libssl3" ;;
    amd64:bullseye) echo "openjdk-17-jre-headless openjdk-11-jre-headless libssl1.1 ruby ruby-benchmark-ips" ;;
    arm64:bullseye) echo "openjdk-17-jre-headless libssl1.1" ;;
    *) echo "no Debian root $1 $2 (FR_DEBIAN_ROOTS)" >&2; return 1 ;;
  esac
}

# The java of root ARCH's OpenJDK VERSION (17 unless given; a path inside the root).
fr_root_java() {
  echo "/usr/lib/jvm/java-${2:-17}-openjdk-$1/bin/java"
}

# Where root ARCH SUITE is.
fr_debian_root() {
  echo "${XDG_CACHE_HOME:-$HOME/.cache}/fast_random/$1-root-$2"
}

# Lets the kernel run arm64 programs through qemu-user-static: mounts
# binfmt_misc where it is not mounted, and enables Debian's qemu-aarch64
# entry, which must have flag F (the interpreter is opened at registration,
# so it works in a chroot). This is the kernel's setting, shared with the
# host where this runs in a container.
fr_enable_arm64_binfmt() {
  local dir=/proc/sys/fs/binfmt_misc entry=/proc/sys/fs/binfmt_misc/qemu-aarch64
  [ -f "$dir/register" ] || mount -t binfmt_misc binfmt_misc "$dir" || return 1
  grep -q '^enabled' "$dir/status" || echo 1 >"$dir/status" || return 1
  [ -f "$entry" ] || update-binfmts --enable qemu-aarch64 >/dev/null || return 1
  grep -q '^enabled' "$entry" || echo 1 >"$entry" || return 1
  grep -q '^flags: .*F' "$entry" || { echo "setup: binfmt_misc's qemu-aarch64 entry lacks flag F (not Debian's qemu-user-static?)" >&2; return 1; }
}

# Unmounts what debootstrap left mounted under a directory (its /proc).
fr_unmount_under() {
  local mountpoint
  for mountpoint in $(awk -v dir="$1/" 'index($2, dir) == 1 { print $2 }' /proc/mounts | sort -r); do
    umount "$mountpoint" || umount -l "$mountpoint" || true
  done
}

# Makes root ARCH SUITE unless it is complete (its stamp file is written
# last). Built under a temporary name and moved, so an interrupted run
# leaves nothing that looks complete.
fr_make_debian_root() {
  local arch="$1" suite="$2" root packages java
  root="$(fr_debian_root "$arch" "$suite")"
  packages="$(fr_root_packages "$arch" "$suite")" || return 1
  java="$(fr_root_java "$arch")"
  [ "$(id -u)" -eq 0 ] || { echo "setup: the Debian roots need root (debootstrap, binfmt_misc, chroot)" >&2; return 1; }
  if [ "$arch" = arm64 ]; then
    fr_enable_arm64_binfmt || { echo "setup: binfmt_misc cannot run arm64 programs" >&2; return 1; }
  fi
  [ -f "$root/.fast_random-complete" ] && return 0
  local partial="$root.partial"
  fr_unmount_under "$partial" # what an interrupted run left mounted
  rm -rf --one-file-system "$partial" || return 1
  mkdir -p "$(dirname "$root")" || return 1
  echo "setup: making a Debian $suite $arch root in $root (debootstrap)" >&2
  # Twice at most: under qemu the configuration of a package that runs Java
  # (ca-certificates-java) has been seen to fail.
  local attempt
  for attempt in 1 2; do
    debootstrap --arch="$arch" --variant=minbase --include="${packages// /,}" \
      "$suite" "$partial" http://deb.debian.org/debian >"$partial.log" 2>&1 && break
    fr_unmount_under "$partial"
    [ "$attempt" -eq 2 ] && { echo "setup: debootstrap failed (log: $partial.log)" >&2; return 1; }
    echo "setup: debootstrap failed (log: $partial.log); once more" >&2
    rm -rf --one-file-system "$partial" || return 1
  done
  fr_unmount_under "$partial" # debootstrap has been seen to leave its /proc there
  [ -x "$partial$java" ] || { echo "setup: the $suite $arch root has no $java" >&2; return 1; }
  rm -rf --one-file-system "$root" "$partial/var/cache/apt/archives/"*.deb || return 1
  mv "$partial.log" "$partial/debootstrap.log" || return 1
  touch "$partial/.fast_random-complete" || return 1
  mv -T "$partial" "$root"
}
