#!/usr/bin/env bash
# Builds the portable binary (-DTUNER_PORTABLE=ON: cmake/Portable.cmake) in a Debian 11
# chroot, against glibc 2.31, the oldest supported, and installs it into OUT:
#   OUT/tuner      the binary, unstripped
#   OUT/root/      what 'cmake --install --strip' puts there (DESTDIR): binary, profiles, man
#                  page, units, ... as the packages ship them (packaging/rpm/tuner.spec
#                  takes this tree with --define "tuner_prebuilt OUT")
#   OUT/LICENSE
# then checks what the binary needs of the system (packaging/portable_check.sh).
#
#   portable.sh [OUT]        default OUT: build-portable in the source tree
#
# Root (debootstrap, chroot). The Debian 11 chroot is packaging/chroot_lib.sh's, made
# once and kept (TUNER_CHROOT_CACHE, TUNER_DEBIAN_MIRROR); the build packages are installed there
# (packaging/install-deps.sh). The source is copied in fresh to /src-rpm (git's tracked
# and untracked files, as a clone has them), the build directory /b-rpm is kept between
# runs. /proc, /sys and /dev are bound in while it builds and unbound on exit.
# Exit 77 (skip) without root or debootstrap.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$src/build-portable}")
chroot_tag=portable
source "$src/packaging/chroot_lib.sh"
chroot_require
trap chroot_unbind EXIT
root=$(chroot_make bullseye)

t0=$SECONDS
chroot_copy_source "$src" "$root" /src-rpm
chroot_bind "$root"
in_root "$root" 'bash /src-rpm/packaging/install-deps.sh' ||
  { echo "portable: installing the build packages in the chroot failed"; exit 1; }
# -O2, warnings as errors (packaging/build.sh); ccache where the chroot has one.
launcher=$(in_root "$root" 'command -v ccache' || true)
echo "portable: building in $root (/b-rpm)"
in_root "$root" "bash /src-rpm/packaging/build.sh --target tuner --target tuner_man \
  --target tuner_changelog /b-rpm -DTUNER_PORTABLE=ON -DBUILD_TESTING=OFF \
  ${launcher:+-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher} >/b-rpm.log 2>&1" ||
  { tail -40 "$root/b-rpm.log"; echo "portable: the build failed (log: $root/b-rpm.log)"; exit 1; }
in_root "$root" 'rm -rf /b-rpm/root && DESTDIR=/b-rpm/root cmake --install /b-rpm --strip >/dev/null'
chroot_unbind

rm -rf "$out"
mkdir -p "$out"
cp -a "$root/b-rpm/root" "$out/root"
cp -p "$root/b-rpm/tuner" "$out/tuner"
cp -p "$src/LICENSE" "$out/LICENSE"
echo "portable: $out/tuner, built in $((SECONDS - t0)) s"
bash "$src/packaging/portable_check.sh" "$out/tuner"
