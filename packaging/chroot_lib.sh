# Debian chroots for the scripts that build and run tuner on other Debian releases
# (packaging/distro_test.sh, portable.sh, rpm_test.sh). Sourced, not run. Each chroot is
# made once with debootstrap (minbase) into $TUNER_CHROOT_CACHE/SUITE (default
# /var/cache/tuner-chroots) and kept between runs; TUNER_DEBIAN_MIRROR picks the mirror.
# The caller sets `chroot_tag` (its name in messages) and calls chroot_unbind on exit.
chroot_cache=${TUNER_CHROOT_CACHE:-/var/cache/tuner-chroots}
chroot_mirror=${TUNER_DEBIAN_MIRROR:-http://deb.debian.org/debian}
chroot_mounted=()

# chroot_require: exit 77 (skip) without root or debootstrap.
chroot_require() {
  [[ $(id -u) -eq 0 ]] || { echo "SKIP: ${chroot_tag:-chroot}: needs root (debootstrap, chroot)"; exit 77; }
  command -v debootstrap >/dev/null ||
    { echo "SKIP: ${chroot_tag:-chroot}: no debootstrap (packaging/install-deps.sh --test)"; exit 77; }
}

# chroot_make SUITE: debootstrap once into the cache (into DIR.tmp, moved when complete);
# prints the chroot's directory.
chroot_make() {
  local dir=$chroot_cache/$1
  if [[ ! -x "$dir/usr/bin/apt-get" ]]; then
    rm -rf "$dir.tmp"
    mkdir -p "$chroot_cache"
    echo "  debootstrap $1 (minbase) from $chroot_mirror" >&2
    if ! debootstrap --variant=minbase "$1" "$dir.tmp" "$chroot_mirror" >"$dir.log" 2>&1; then
      tail -20 "$dir.log" >&2
      echo "${chroot_tag:-chroot}: debootstrap $1 failed (log: $dir.log)" >&2
      return 1
    fi
    mv "$dir.tmp" "$dir"
  fi
  cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
  echo "$dir"
}

# chroot_copy_source SRC ROOT DIR: what a clone of SRC holds (git's tracked files and the
# untracked ones it does not ignore) at ROOT/DIR, fresh.
chroot_copy_source() {
  rm -rf "${2:?}${3:?}"
  mkdir -p "$2$3"
  git -C "$1" ls-files -co --exclude-standard -z |
    (cd "$1" && tar --null -cf - -T -) | tar -xf - -C "$2$3"
}

# chroot_bind ROOT: the host's /proc, /sys, /dev and /dev/pts (script(1) and apt open
# pseudo-terminals) in ROOT, until chroot_unbind.
chroot_bind() {
  local d
  for d in /proc /sys /dev /dev/pts; do
    mkdir -p "$1$d"
    mount --bind "$d" "$1$d" || return 1
    chroot_mounted+=("$1$d")
  done
}

chroot_unbind() {
  local i
  for ((i = ${#chroot_mounted[@]} - 1; i >= 0; i--)); do
    umount -l "${chroot_mounted[i]}" 2>/dev/null || true
  done
  chroot_mounted=()
}

# in_root ROOT COMMAND: COMMAND by bash in ROOT, with a clean environment.
in_root() {
  chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive bash -c "$2"
}
