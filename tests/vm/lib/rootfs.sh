# shellcheck shell=bash
# Sourced by tests/vm/systemd_test.sh. A Debian 12 root with systemd as init and Debian's
# tuned, for the scenarios that need real units and a reboot: debootstrap'd once into
# the cache (minbase, plus systemd-sysv, tuned and the shared libraries tuner links),
# then copied per run, filled, and made an ext4 image with mkfs.ext4 -d; booted from a
# small initramfs that loads virtio_blk and ext4 and switch_roots into it.

# vm_rootfs_fetch CACHE TUNER   sets VM_ROOTFS (the cached tree; read only for callers)
vm_rootfs_fetch() {
  local cache=$1/systemd-guest tuner=$2 lock rc pkgs
  mkdir -p "$cache"
  exec {lock}>"$cache/.lock"
  flock "$lock"
  VM_ROOTFS=$cache/tree
  rc=0
  if [[ ! -f $VM_ROOTFS/.done ]]; then
    # The packages of the libraries tuner links, as this machine (Debian 12 too) names them.
    # libpam-systemd provides logind, which polkitd (a dependency of tuned) needs: as an
    # alternative (default-logind | logind) debootstrap's resolver does not pick it.
    pkgs=$(ldd "$tuner" | awk '/=> \// { print $3 }' | xargs -r -n1 readlink -f |
      xargs -r dpkg -S 2>/dev/null | cut -d: -f1 | sort -u | paste -sd, -)
    echo "vm: debootstrap bookworm into $cache (once; a few minutes)" >&2
    rm -rf "$cache/tree.tmp" "$VM_ROOTFS"
    if debootstrap --variant=minbase \
      --include="systemd-sysv,libpam-systemd,udev,kmod,procps,jq,tuned${pkgs:+,$pkgs}" \
      bookworm "$cache/tree.tmp" "${TUNER_VM_MIRROR:-http://deb.debian.org/debian}" \
      >"$cache/debootstrap.log" 2>&1; then
      rm -rf "$cache/tree.tmp/var/cache/apt/archives/"*.deb
      touch "$cache/tree.tmp/.done"
      mv "$cache/tree.tmp" "$VM_ROOTFS"
    else
      echo "vm: debootstrap failed; see $cache/debootstrap.log" >&2
      rc=1
    fi
  fi
  exec {lock}>&-
  return $rc
}

# vm_boot_initramfs OUT MODDIR   an initramfs that mounts /dev/vda (ext4) and switch_roots
vm_boot_initramfs() {
  local out=$1 moddir=$2 stage m
  stage=$(mktemp -d "${out%/*}/initrd.XXXXXX")
  mkdir -p "$stage"/{bin,dev,proc,sys,newroot,lib/modules}
  cp /bin/busybox "$stage/bin/busybox"
  ln -s busybox "$stage/bin/sh"
  : >"$stage/lib/modules/load-order"
  # crc32c_generic: ext4's metadata checksums ask the crypto API for crc32c at mount.
  for m in $(vm_module_closure "$moddir" virtio_pci virtio_blk crc32c_generic ext4); do
    mkdir -p "$stage/lib/modules/$(dirname "$m")"
    case $m in
      *.ko.xz) xz -dc "$moddir/$m" >"$stage/lib/modules/${m%.xz}"; m=${m%.xz} ;;
      *.ko.zst) zstd -qdc "$moddir/$m" >"$stage/lib/modules/${m%.zst}"; m=${m%.zst} ;;
      *) cp "$moddir/$m" "$stage/lib/modules/$m" ;;
    esac
    echo "$m" >>"$stage/lib/modules/load-order"
  done
  cat >"$stage/init" <<'INIT'
#!/bin/sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
while read -r m; do insmod "/lib/modules/$m" 2>/dev/null; done </lib/modules/load-order
i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
mount -t ext4 -o rw /dev/vda /newroot || { echo "TUNER-RESULT fail vm.mount-root"; poweroff -f; }
umount /proc /sys
mount --move /dev /newroot/dev
exec switch_root /newroot /sbin/init
INIT
  chmod 755 "$stage/init"
  (cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"
  rm -rf "$stage"
}

# vm_systemd_image ROOT IMG   the filled guest root as a 2 GiB ext4 image, with no login
# prompt on the serial console the results go to
vm_systemd_image() {
  local root=$1 img=$2
  systemctl --root="$root" mask serial-getty@ttyS0.service >/dev/null 2>&1
  rm -f "$root/.done"
  truncate -s 2G "$img"
  mkfs.ext4 -q -F -L tuner-root -d "$root" "$img"
}

# vm_systemd_accel   sets VM_ACCEL (qemu's accelerator and CPU) and VM_BOOT_LIMIT (s)
# TCG, as lib/qemu.sh: KVM is not there on every test machine, and where it is nested it
# may refuse the host's CPU model (qemu aborts: "failed to set MSR 0x10a").
# TUNER_VM_KVM=1 asks for it.
vm_systemd_accel() {
  VM_ACCEL=(-accel tcg -cpu max) VM_BOOT_LIMIT=540
  if [[ ${TUNER_VM_KVM:-0} == 1 && -w /dev/kvm ]]; then
    VM_ACCEL=(-accel kvm -cpu host) VM_BOOT_LIMIT=180
  fi
}

# vm_systemd_boot IMG INITRD LOG   boots the image once, until the guest powers off or
# VM_BOOT_LIMIT passes; returns qemu's status (124: timed out)
vm_systemd_boot() {
  timeout -k 5 "$VM_BOOT_LIMIT" qemu-system-x86_64 -machine q35 "${VM_ACCEL[@]}" -m 1024 -smp 2 \
    -kernel "$VM_KERNEL" -initrd "$2" \
    -append "console=ttyS0 panic=-1 loglevel=3 rdinit=/init systemd.show_status=false" \
    -drive "file=$1,if=virtio,format=raw" \
    -display none -no-reboot -nodefaults -serial stdio </dev/null >"$3" 2>&1
}
