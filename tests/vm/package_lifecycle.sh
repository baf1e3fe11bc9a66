#!/usr/bin/env bash
# The Debian package's lifecycle with systemd as init: install, purge, reinstall, remove,
# reinstall, upgrade, each checked for what an operator expects of the units (enabled,
# unmasked, masked or disabled as docs/operators.md says, the admin's own choices kept;
# the status timer running), then a reboot that must restore the setting kept since
# before the removal, and each service's failure in its journal. In the systemd guest of systemd_test.sh (the cached Debian 12
# root, lib/rootfs.sh), which gets nothing of tuner but the packages: cpack's .deb of
# BUILD_DIR and the same package versioned lower with dpkg-deb ("the previous build":
# the same files and maintainer scripts, so the upgrade runs this tree's scripts on both
# sides). The guest's part is systemd/lifecycle.sh; the guest boots twice.
#   package_lifecycle.sh BUILD_DIR   (root; CTest package/lifecycle)
set -uo pipefail
build=$(readlink -f "${1:?usage: package_lifecycle.sh BUILD_DIR}")
here=$(cd "$(dirname "$0")" && pwd)
skip() { echo "SKIP: package/lifecycle: $*"; exit 77; }
fail() { echo "FAIL: package/lifecycle: $*"; exit 1; }
[[ $(id -u) -eq 0 ]] || skip "needs root (debootstrap, a root-owned tree for mkfs.ext4 -d)"
for t in debootstrap mkfs.ext4 qemu-system-x86_64 cpio depmod; do
  PATH=$PATH:/usr/sbin:/sbin command -v "$t" >/dev/null || skip "no $t"
done
if [[ ! -x /bin/busybox ]] || ldd /bin/busybox >/dev/null 2>&1; then
  skip "needs busybox-static"
fi
for t in cpack dpkg-shlibdeps dpkg-deb; do
  command -v "$t" >/dev/null || fail "$t is not installed (packaging/install-deps.sh --test)"
done
[[ -x $build/tuner ]] || fail "no $build/tuner: build it first"
cache=${TUNER_VM_CACHE:-/var/cache/tuner-vm}
# shellcheck source=lib/kernel.sh
source "$here/lib/kernel.sh"
# shellcheck source=lib/initramfs.sh
source "$here/lib/initramfs.sh"
# shellcheck source=lib/rootfs.sh
source "$here/lib/rootfs.sh"
vm_kernel_fetch "$cache" bookworm || skip "cannot fetch Debian 12's kernel"
vm_rootfs_fetch "$cache" "$build/tuner" || skip "no Debian 12 root (debootstrap failed: offline?)"

work=$(mktemp -d /tmp/tuner-vm-lifecycle.XXXXXX)
trap 'rm -rf "$work"' EXIT
# The package, built where deb_test.sh's is not (cpack -B), so that the two may share a
# build directory.
(cd "$build" && cpack -G DEB -B "$work/cpack" >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; fail "cpack"; }
deb=$(ls "$work"/cpack/tuner_*.deb) || fail "cpack made no .deb"
# The previous build: the same package, its version one step lower (~prev sorts before).
dpkg-deb -R "$deb" "$work/prev" || fail "dpkg-deb -R"
version=$(dpkg-deb -f "$deb" Version)
sed -i "s/^Version: .*/Version: $version~prev/" "$work/prev/DEBIAN/control"
dpkg-deb -Zgzip -b "$work/prev" "$work/prev.deb" >/dev/null || fail "dpkg-deb -b"
echo "package/lifecycle: $(basename "$deb") and $version~prev at $SECONDS s"

root=$work/root
cp -a "$VM_ROOTFS" "$root"
install -d -m 700 "$root/root/debs"
install -m 644 "$deb" "$root/root/debs/build.deb"
install -m 644 "$work/prev.deb" "$root/root/debs/prev.deb"
install -m 644 "$here/systemd/vm-swappiness.toml" "$root/root/vm-swappiness.toml"
install -m 755 "$here/systemd/lifecycle.sh" "$root/usr/local/bin/tuner-vm-scenario"
install -m 644 "$here/systemd/tuner-vm-scenario.service" "$root/lib/systemd/system/"
systemctl --root="$root" enable tuner-vm-scenario.service >/dev/null 2>&1 ||
  fail "systemctl --root enable"
# Without tuned, vm.swappiness is the kernel's until tuner restores it.
systemctl --root="$root" disable tuned.service >/dev/null 2>&1
echo tuner-lifecycle >"$root/etc/hostname"
vm_systemd_image "$root" "$work/root.img" || fail "mkfs.ext4 -d"
vm_boot_initramfs "$work/initrd.gz" "$VM_MODDIR" || fail "initramfs"
vm_systemd_accel
echo "package/lifecycle: ${VM_ACCEL[1]}, kernel $VM_KVER"

for boot in 1 2; do
  log=$work/boot$boot.log
  t=$SECONDS
  vm_systemd_boot "$work/root.img" "$work/initrd.gz" "$log"
  rc=$?
  tr -d '\r' <"$log" | grep -a '^TUNER-\|^  ' | sed "s/^/  boot $boot: /"
  echo "  boot $boot: $((SECONDS - t)) s"
  [[ $rc -eq 124 ]] && { tail -30 "$log"; fail "boot $boot timed out after ${VM_BOOT_LIMIT}s"; }
  grep -aq "^TUNER-BOOT $boot" "$log" || { tail -40 "$log"; fail "boot $boot: the scenario did not run"; }
done
cat "$work"/boot*.log | tr -d '\r' | grep -aq '^TUNER-RESULT fail' && fail "a check failed"
grep -aq '^TUNER-DONE' "$work/boot2.log" || fail "the scenario did not finish"
passes=$(cat "$work"/boot*.log | tr -d '\r' | grep -ac '^TUNER-RESULT pass')
[[ $passes -eq 62 ]] || fail "$passes checks passed, expected 62"
echo "ok: package/lifecycle ($passes checks, $SECONDS s)"
