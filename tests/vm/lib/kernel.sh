# shellcheck shell=bash
# Sourced by tests/vm/*_test.sh. Fetches Debian's own kernel (the concrete
# linux-image-<abi>-amd64 that the linux-image-amd64 metapackage depends on) into a cache
# outside the source tree and unpacks it there. Nothing is installed into the host's
# /boot or /lib/modules.
#
# vm_kernel_fetch CACHE   sets VM_KVER, VM_VMLINUZ, VM_MODDIR (modules.dep generated there)
#                         and VM_KERNEL: what qemu boots (see vm_kernel_elf)

# Debian's bzImage is xz-compressed, and its decompressor takes ~10 s under TCG. The
# kernel has CONFIG_PVH, so qemu can boot the same kernel's ELF image directly: extract
# it once (as the kernel's own scripts/extract-vmlinux does) and keep it in the cache.
# Prints the ELF's path, or the bzImage's when extraction fails.
vm_kernel_elf() {
  local bz=$1 elf=${1%/boot/*}/vmlinux off
  if [[ ! -s $elf ]] && grep -q '^CONFIG_PVH=y' "${bz/vmlinuz-/config-}" 2>/dev/null; then
    off=$(LC_ALL=C grep -abo $'\xfd\x37\x7a\x58\x5a\x00' "$bz" | head -1 | cut -d: -f1)
    # xz stops with "trailing garbage" after the stream: the image is whole by then.
    [[ -n $off ]] && tail -c +$((off + 1)) "$bz" | xz -dc 2>/dev/null > "$elf.tmp"
    if [[ $(head -c 4 "$elf.tmp" 2>/dev/null | od -An -tx1 | tr -d ' ') == 7f454c46 ]]; then
      mv "$elf.tmp" "$elf"
    else
      rm -f "$elf.tmp"
    fi
  fi
  if [[ -s $elf ]]; then echo "$elf"; else echo "$bz"; fi
}

vm_kernel_pkg() {
  apt-cache depends linux-image-amd64 2>/dev/null |
    awk '/Depends: linux-image-[0-9]/ { print $2; exit }'
}

vm_kernel_fetch() {
  local cache=$1 lock rc
  mkdir -p "$cache"
  # Two test runs (two build dirs) may share the cache: one fetches, the other waits.
  exec {lock}>"$cache/.lock"
  flock "$lock"
  vm_kernel_fetch_locked "$cache"; rc=$?
  exec {lock}>&-
  return $rc
}

vm_kernel_fetch_locked() {
  local cache=$1 pkg deb dir
  pkg=$(vm_kernel_pkg)
  if [[ -z "$pkg" && $(id -u) -eq 0 ]]; then
    echo "vm: apt lists have no linux-image-amd64; running apt-get update" >&2
    apt-get update -qq >&2 || true
    pkg=$(vm_kernel_pkg)
  fi
  if [[ -z "$pkg" ]]; then
    # Offline and no lists: fall back to the newest kernel already in the cache.
    pkg=$(ls -d "$cache"/linux-image-*-amd64 2>/dev/null | sort -V | tail -1)
    pkg=${pkg##*/}
    [[ -n "$pkg" ]] || { echo "vm: cannot resolve linux-image-amd64 (no apt lists, empty cache $cache)" >&2; return 1; }
    echo "vm: apt cannot resolve linux-image-amd64; using cached $pkg" >&2
  fi
  dir=$cache/$pkg
  # A newer ABI replaces the old one: keep only the kernel in use.
  local old
  for old in "$cache"/linux-image-*; do
    [[ -e $old && ${old##*/} != "$pkg" && ${old##*/} != "$pkg"_* ]] && rm -rf "$old"
  done
  if [[ ! -f "$dir/.unpacked" ]]; then
    deb=$(ls "$cache"/"${pkg}"_*.deb 2>/dev/null | sort -V | tail -1)
    if [[ -z "$deb" ]]; then
      echo "vm: downloading $pkg into $cache" >&2
      # -o APT::Sandbox::User=root: the cache dir is root's, _apt cannot write there.
      (cd "$cache" && apt-get download -q -o APT::Sandbox::User=root "$pkg" >&2) || return 1
      deb=$(ls "$cache"/"${pkg}"_*.deb 2>/dev/null | sort -V | tail -1)
      [[ -n "$deb" ]] || { echo "vm: apt-get download $pkg left no .deb in $cache" >&2; return 1; }
    fi
    rm -rf "$dir" && mkdir -p "$dir"
    dpkg -x "$deb" "$dir" || return 1
    touch "$dir/.unpacked"
  fi
  VM_KVER=$(ls "$dir/lib/modules" | sort -V | tail -1)
  VM_VMLINUZ=$dir/boot/vmlinuz-$VM_KVER
  VM_MODDIR=$dir/lib/modules/$VM_KVER
  [[ -f "$VM_VMLINUZ" && -d "$VM_MODDIR" ]] ||
    { echo "vm: $dir lacks boot/vmlinuz-$VM_KVER or lib/modules/$VM_KVER" >&2; return 1; }
  VM_KERNEL=$(vm_kernel_elf "$VM_VMLINUZ")
  # The .deb ships no modules.dep (the postinst's depmod makes it); make ours in the cache.
  if [[ ! -s "$VM_MODDIR/modules.dep" ]]; then
    depmod -b "$dir" "$VM_KVER" || { echo "vm: depmod -b $dir $VM_KVER failed" >&2; return 1; }
  fi
}
