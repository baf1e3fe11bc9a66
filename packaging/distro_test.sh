#!/usr/bin/env bash
# The oldest and the newest Debian tuner builds on, in fresh chroots: Debian 11
# (bullseye: GCC 10, CMake 3.18, hwloc 2.4, fmt 7, no toml++ package, glibc 2.31, Linux
# 5.10 headers: the floor RHEL 8/9 and Ubuntu 22.04 sit on or above) and Debian 13
# (trixie: GCC 14, CMake 3.31, hwloc 2.12, RE2 2024 with Abseil). In each, as a new user
# would: the README's first command (packaging/quickstart.sh: packages, the binary, a
# dry-run plan), then the unit tests built there and run, and the binary's probe.
#
#   distro_test.sh [SUITE...]     default: bullseye trixie
#
# Root (debootstrap, chroot). Each chroot is made once with debootstrap into
# $TUNER_CHROOT_CACHE (/var/cache/tuner-chroots) and kept; the source is copied in fresh
# (git's tracked and untracked files, as a clone has them). /proc, /sys and /dev are
# bound in for the unit tests and unbound on exit. TUNER_DEBIAN_MIRROR picks the mirror.
# Exit 77 (skip) without root or debootstrap.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
suites=("$@")
((${#suites[@]})) || suites=(bullseye trixie)
cache=${TUNER_CHROOT_CACHE:-/var/cache/tuner-chroots}
mirror=${TUNER_DEBIAN_MIRROR:-http://deb.debian.org/debian}

[[ $(id -u) -eq 0 ]] || { echo "distro_test: needs root (debootstrap, chroot)"; exit 77; }
command -v debootstrap >/dev/null ||
  { echo "distro_test: no debootstrap (packaging/install-deps.sh --test)"; exit 77; }

mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
}
trap cleanup EXIT

bind() {  # bind DIR ROOT: DIR of the host at ROOT/DIR
  mkdir -p "$2$1"
  mount --bind "$1" "$2$1"
  mounted+=("$2$1")
}

make_root() {  # make_root SUITE DIR: debootstrap once, into DIR.tmp, then moved
  local suite=$1 dir=$2
  [[ -x "$dir/usr/bin/apt-get" ]] && return 0
  rm -rf "$dir.tmp"
  mkdir -p "$(dirname "$dir")"
  echo "  debootstrap $suite (minbase) from $mirror"
  if ! debootstrap --variant=minbase "$suite" "$dir.tmp" "$mirror" >"$dir.log" 2>&1; then
    tail -20 "$dir.log"
    echo "distro_test: debootstrap $suite failed (log: $dir.log)"
    return 1
  fi
  mv "$dir.tmp" "$dir"
}

run_suite() {
  local suite=$1 root=$cache/$1 t0
  t0=$(date +%s)
  echo "== $suite"
  make_root "$suite" "$root"
  rm -rf "$root/src"
  mkdir -p "$root/src"
  # What a clone holds: tracked files and untracked ones git does not ignore.
  git -C "$src" ls-files -co --exclude-standard -z |
    (cd "$src" && tar --null -cf - -T -) | tar -xf - -C "$root/src"
  cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
  for d in /proc /sys /dev; do bind "$d" "$root"; done
  # The README's first command, as a new user runs it on a fresh machine.
  echo "  packaging/quickstart.sh"
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    bash -c 'cd /src && bash packaging/quickstart.sh >/tmp/plan.txt' ||
    { echo "distro_test: $suite: packaging/quickstart.sh failed"; return 1; }
  tail -3 "$root/tmp/plan.txt" | sed 's/^/    | /'
  # The unit tests: unoptimised (half the compile time of -O2), warnings still errors.
  echo "  unit tests (-O0)"
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    bash -c 'cd /src && bash packaging/build.sh --target tuner --target tuner_tests /build-tests \
      -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 >/tmp/build.log 2>&1 ||
      { tail -60 /tmp/build.log; exit 1; }
      cd /build-tests && ./tuner_tests --no-intro=true --minimal=true' ||
    { echo "distro_test: $suite: the unit tests failed"; return 1; }
  chroot "$root" /src/build/tuner probe --json >"$root/tmp/probe.json" ||
    { echo "distro_test: $suite: tuner probe failed"; return 1; }
  chroot "$root" /src/build/tuner --version | sed 's/^/    | /'
  cleanup
  mounted=()
  echo "  $suite: passed in $(($(date +%s) - t0)) s"
}

for s in "${suites[@]}"; do run_suite "$s"; done
