#!/usr/bin/env bash
# The oldest and the newest Debian tuner builds on, in fresh chroots: Debian 11
# (bullseye: GCC 10, CMake 3.18, hwloc 2.4, fmt 7, no toml++ package, glibc 2.31, Linux
# 5.10 headers: the floor RHEL 8/9 and Ubuntu 22.04 sit on or above) and Debian 13
# (trixie: GCC 14, CMake 3.31, hwloc 2.12, RE2 2024 with Abseil). In each, as a new user
# would: the README's first command (packaging/quickstart.sh: packages, the binary, a
# dry-run plan), then the unit tests built there (-O0, warnings still errors) and run,
# and the binary's probe. packaging/test.sh runs it (its last tier); rpm_test.sh, which
# uses the same chroots, is run by hand (docs/building.md).
#
#   distro_test.sh [SUITE...]     default: bullseye trixie
#
# Root (debootstrap, chroot). The chroots are packaging/chroot_lib.sh's: made once with
# debootstrap and kept (TUNER_CHROOT_CACHE, default /var/cache/tuner-chroots;
# TUNER_DEBIAN_MIRROR). The source is copied in fresh (git's tracked and untracked
# files, as a clone has them); /proc, /sys, /dev and /dev/pts are bound in and unbound
# on exit. What the unit tests run besides the build packages (bzip2 for the fixture
# tarballs, ip and sysctl for the namespace tests) comes from install-deps.sh --unit.
# Exit 77 (skip) without root or debootstrap.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
suites=("$@")
((${#suites[@]})) || suites=(bullseye trixie)
chroot_tag=distro_test
source "$src/packaging/chroot_lib.sh"
chroot_require
trap chroot_unbind EXIT

run_suite() {
  local suite=$1 root t0
  t0=$SECONDS
  echo "== $suite"
  root=$(chroot_make "$suite")
  chroot_copy_source "$src" "$root" /src
  chroot_bind "$root"
  # The README's first command, as a new user runs it on a fresh machine.
  echo "  packaging/quickstart.sh"
  in_root "$root" 'cd /src && bash packaging/quickstart.sh >/tmp/plan.txt 2>/tmp/quickstart.err' ||
    { tail -40 "$root/tmp/quickstart.err"; echo "distro_test: $suite: packaging/quickstart.sh failed"; return 1; }
  tail -3 "$root/tmp/plan.txt" | sed 's/^/    | /'
  echo "  unit tests (-O0; $((SECONDS - t0)) s so far)"
  in_root "$root" 'bash /src/packaging/install-deps.sh --unit >/tmp/deps-unit.log 2>&1' ||
    { tail -20 "$root/tmp/deps-unit.log"; echo "distro_test: $suite: install-deps.sh --unit failed"; return 1; }
  in_root "$root" 'cd /src && bash packaging/build.sh --target tuner --target tuner_tests /build-tests \
      -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 >/tmp/build.log 2>&1 ||
      { if grep -qi error /tmp/build.log; then grep -i -B2 -A12 error /tmp/build.log | head -80
        else tail -60 /tmp/build.log; fi; exit 1; }' ||
    { echo "distro_test: $suite: building the unit tests failed"; return 1; }
  in_root "$root" 'cd /build-tests && ./tuner_tests --no-intro=true --minimal=true' ||
    { echo "distro_test: $suite: the unit tests failed"; return 1; }
  in_root "$root" '/src/build/tuner probe --json >/tmp/probe.json' ||
    { echo "distro_test: $suite: tuner probe failed"; return 1; }
  in_root "$root" '/src/build/tuner --version; g++ --version | head -1; cmake --version | head -1' |
    sed 's/^/    | /'
  chroot_unbind
  echo "  $suite: passed in $((SECONDS - t0)) s"
}

for s in "${suites[@]}"; do run_suite "$s"; done
