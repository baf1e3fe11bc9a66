#!/usr/bin/env bash
# tuner beside Debian's tuned, with systemd as init and real reboots: "a kept sysctl
# survives a reboot with tuned enabled, or check says why not". A Debian 12 root
# (lib/rootfs.sh: debootstrap once into the cache, with tuned and systemd-sysv) gets the
# tuner binary, its units as the package installs and enables them
# (packaging/systemd/, tuner-restore.service and tuner-after-tuned.service enabled),
# tuned's throughput-performance (vm.swappiness = 10) and the scenario
# (systemd/scenario.sh, one step a boot); it becomes an ext4 image booted three times
# on Debian's kernel under TCG (TUNER_VM_KVM=1: KVM).
#   systemd_test.sh PATH/TO/tuner   (root; CTest vm/systemd_test)
set -uo pipefail
tuner=$(readlink -f "${1:?usage: systemd_test.sh PATH/TO/tuner}")
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
skip() { echo "SKIP: vm/systemd: $*"; exit 77; }
fail() { echo "FAIL: vm/systemd: $*"; exit 1; }
[[ $(id -u) -eq 0 ]] || skip "needs root (debootstrap, a root-owned tree for mkfs.ext4 -d)"
for t in debootstrap mkfs.ext4 debugfs qemu-system-x86_64 cpio jq depmod; do
  PATH=$PATH:/usr/sbin:/sbin command -v "$t" >/dev/null || skip "no $t"
done
if [[ ! -x /bin/busybox ]] || ldd /bin/busybox >/dev/null 2>&1; then
  skip "needs busybox-static"
fi
cache=${TUNER_VM_CACHE:-/var/cache/tuner-vm}
# shellcheck source=lib/kernel.sh
source "$here/lib/kernel.sh"
# shellcheck source=lib/initramfs.sh
source "$here/lib/initramfs.sh"
# shellcheck source=lib/rootfs.sh
source "$here/lib/rootfs.sh"
# The guest root is Debian 12: its kernel too (lib/kernel.sh keeps one per suite).
vm_kernel_fetch "$cache" bookworm || skip "cannot fetch Debian 12's kernel"
vm_rootfs_fetch "$cache" "$tuner" || skip "no Debian 12 root (debootstrap failed: offline?)"

work=$(mktemp -d /tmp/tuner-vm-systemd.XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/root
cp -a "$VM_ROOTFS" "$root"
# As the package installs it (packaging/Install.cmake, debian/postinst).
install -m 755 "$tuner" "$root/usr/bin/tuner"
chroot "$root" /usr/bin/tuner --version >/dev/null || fail "tuner does not run in the Debian 12 root (libraries?)"
for u in tuner-restore.service tuner-after-tuned.service tuner-provision.service \
  tuner-status.service tuner-status.timer; do
  install -m 644 "$src/packaging/systemd/$u" "$root/lib/systemd/system/$u"
done
install -d -m 700 "$root/var/lib/tuner"
install -D -m 644 "$here/systemd/vm-swappiness.toml" "$root/etc/tuner/profiles/vm-swappiness.toml"
install -m 755 "$here/systemd/scenario.sh" "$root/usr/local/bin/tuner-vm-scenario"
install -m 644 "$here/systemd/tuner-vm-scenario.service" "$root/lib/systemd/system/"
systemctl --root="$root" enable tuner-restore.service tuner-after-tuned.service \
  tuner-vm-scenario.service tuned.service >/dev/null 2>&1 || fail "systemctl --root enable"
[[ -L $root/etc/systemd/system/tuned.service.wants/tuner-after-tuned.service ]] ||
  fail "tuner-after-tuned.service is not wanted by tuned.service"
echo throughput-performance >"$root/etc/tuned/active_profile"
echo manual >"$root/etc/tuned/profile_mode"
echo tuner-systemd >"$root/etc/hostname"

vm_systemd_image "$root" "$work/root.img" || fail "mkfs.ext4 -d"
vm_boot_initramfs "$work/initrd.gz" "$VM_MODDIR" || fail "initramfs"
vm_systemd_accel
echo "vm/systemd: ${VM_ACCEL[1]}, kernel $VM_KVER"

for boot in 1 2 3; do
  log=$work/boot$boot.log
  vm_systemd_boot "$work/root.img" "$work/initrd.gz" "$log"
  rc=$?
  tr -d '\r' <"$log" | grep -a '^TUNER-' | sed "s/^/  boot $boot: /"
  [[ $rc -eq 124 ]] && { tail -30 "$log"; fail "boot $boot timed out after ${VM_BOOT_LIMIT}s"; }
  grep -aq "^TUNER-BOOT $boot" "$log" || { tail -40 "$log"; fail "boot $boot: the scenario did not run"; }
done
# What check said, for the record.
for f in check1.json check3.json; do
  debugfs -R "cat /var/lib/tuner-vm/$f" "$work/root.img" 2>/dev/null |
    jq -c '.findings[] | select(.rule == "tuned.overrides") | {severity, subject, summary}' |
    sed "s/^/  $f: /"
done
cat "$work"/boot*.log | tr -d '\r' | grep -aq '^TUNER-RESULT fail' && fail "a check failed"
grep -aq '^TUNER-DONE' "$work/boot3.log" || fail "the scenario did not finish"
passes=$(cat "$work"/boot*.log | tr -d '\r' | grep -ac '^TUNER-RESULT pass')
[[ $passes -eq 19 ]] || fail "$passes checks passed, expected 19"
echo "ok: vm/systemd ($passes checks)"
