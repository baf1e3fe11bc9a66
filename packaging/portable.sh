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
# Root (debootstrap, chroot). The chroot is made once with debootstrap into
# $TUNER_CHROOT_CACHE/bullseye (default /var/cache/tuner-chroots) and kept, as
# packaging/distro_test.sh makes its own; the build packages are installed there
# (packaging/install-deps.sh). The source is copied in fresh to /src-rpm (git's tracked
# and untracked files, as a clone has them), the build directory /b-rpm is kept between
# runs. /proc, /sys and /dev are bound in while it builds and unbound on exit.
# TUNER_DEBIAN_MIRROR picks the mirror. Exit 77 (skip) without root or debootstrap.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$src/build-portable}")
cache=${TUNER_CHROOT_CACHE:-/var/cache/tuner-chroots}
mirror=${TUNER_DEBIAN_MIRROR:-http://deb.debian.org/debian}
root=$cache/bullseye

[[ $(id -u) -eq 0 ]] || { echo "portable: needs root (debootstrap, chroot)"; exit 77; }
command -v debootstrap >/dev/null ||
  { echo "portable: no debootstrap (packaging/install-deps.sh --test)"; exit 77; }

mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
  mounted=()
}
trap cleanup EXIT
bind() {  # bind DIR ROOT: DIR of the host at ROOT/DIR
  mkdir -p "$2$1"
  mount --bind "$1" "$2$1"
  mounted+=("$2$1")
}
in_root() {
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive bash -c "$1"
}

if [[ ! -x "$root/usr/bin/apt-get" ]]; then
  rm -rf "$root.tmp"
  mkdir -p "$cache"
  echo "portable: debootstrap bullseye (minbase) from $mirror"
  debootstrap --variant=minbase bullseye "$root.tmp" "$mirror" >"$root.log" 2>&1 ||
    { tail -20 "$root.log"; echo "portable: debootstrap failed (log: $root.log)"; exit 1; }
  mv "$root.tmp" "$root"
fi

t0=$SECONDS
rm -rf "$root/src-rpm"
mkdir -p "$root/src-rpm"
git -C "$src" ls-files -co --exclude-standard -z |
  (cd "$src" && tar --null -cf - -T -) | tar -xf - -C "$root/src-rpm"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
for d in /proc /sys /dev; do bind "$d" "$root"; done
in_root 'bash /src-rpm/packaging/install-deps.sh' ||
  { echo "portable: installing the build packages in the chroot failed"; exit 1; }
# -O2, warnings as errors (packaging/build.sh); ccache where the chroot has one.
launcher=$(in_root 'command -v ccache' || true)
echo "portable: building in $root (/b-rpm)"
in_root "bash /src-rpm/packaging/build.sh --target tuner --target tuner_man \
  --target tuner_changelog /b-rpm -DTUNER_PORTABLE=ON -DBUILD_TESTING=OFF \
  ${launcher:+-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher} >/b-rpm.log 2>&1" ||
  { tail -40 "$root/b-rpm.log"; echo "portable: the build failed (log: $root/b-rpm.log)"; exit 1; }
in_root 'rm -rf /b-rpm/root && DESTDIR=/b-rpm/root cmake --install /b-rpm --strip >/dev/null'
cleanup

rm -rf "$out"
mkdir -p "$out"
cp -a "$root/b-rpm/root" "$out/root"
cp -p "$root/b-rpm/tuner" "$out/tuner"
cp -p "$src/LICENSE" "$out/LICENSE"
echo "portable: $out/tuner, built in $((SECONDS - t0)) s"
bash "$src/packaging/portable_check.sh" "$out/tuner"
