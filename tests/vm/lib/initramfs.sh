# shellcheck shell=bash
# Sourced by tests/vm/*_test.sh. Builds the guest's initramfs (newc cpio, zstd or gzip):
# busybox-static, jq, the real tuner binary with every shared library it links (and
# hwloc's PCI plugin, which libhwloc dlopens), the NIC kernel modules in dependency order,
# and the guest scripts from tests/vm/guest.

# Prints the module files (relative to MODDIR) that NAME needs, dependencies first,
# each once, resolved through MODDIR/modules.dep. A module built into the kernel
# (modules.builtin: virtio and virtio_pci are in Debian 13's 6.12) needs no file.
vm_module_closure() {
  local moddir=$1; shift
  awk -v want="$*" '
    FILENAME ~ /modules\.builtin$/ { n = split($1, p, "/"); m = p[n]; sub(/\.ko$/, "", m)
      gsub("-", "_", m); builtin[m] = 1; next }
    { sub(":", "", $1); path = $1; n = split(path, p, "/"); m = p[n]; sub(/\.ko(\..*)?$/, "", m)
      gsub("-", "_", m); file[m] = path; deps[m] = ""
      for (i = 2; i <= NF; i++) { d = $i; k = split(d, q, "/"); dm = q[k]; sub(/\.ko(\..*)?$/, "", dm)
        gsub("-", "_", dm); deps[m] = deps[m] " " dm } }
    function visit(m,   n, d, i) {
      if (m in seen) return; seen[m] = 1
      if (!(m in file)) { if (!(m in builtin)) missing = missing " " m; return }
      n = split(deps[m], d, " "); for (i = 1; i <= n; i++) visit(d[i])
      print file[m] }
    END { n = split(want, w, " "); for (i = 1; i <= n; i++) { x = w[i]; gsub("-", "_", x); visit(x) }
          if (missing != "") { print "vm: modules neither in modules.dep nor built in:" missing > "/dev/stderr" } }
  ' "$moddir/modules.builtin" "$moddir/modules.dep"
}

# Copies FILE and the shared libraries ldd resolves for it into STAGE at their own paths.
vm_copy_with_libs() {
  local stage=$1 file=$2 dest=${3:-$2} lib
  mkdir -p "$stage$(dirname "$dest")"
  cp -L "$file" "$stage$dest"
  for lib in $(ldd "$file" 2>/dev/null | awk '/=> \// { print $3 } /^\t\/[^ ]+ \(/ { print $1 }'); do
    [[ -e "$stage$lib" ]] && continue
    mkdir -p "$stage$(dirname "$lib")"
    cp -L "$lib" "$stage$lib"
  done
}

# vm_initramfs_build OUT.cpio.gz TUNER MODDIR GUESTDIR MODULE...
vm_initramfs_build() {
  local out=$1 tuner=$2 moddir=$3 guest=$4; shift 4
  local stage m plugdir compress="gzip -1"
  # zstd decompresses several times faster than gzip, which counts under TCG.
  command -v zstd >/dev/null && grep -q '^CONFIG_RD_ZSTD=y' "$moddir/../../../boot/config-${moddir##*/}" 2>/dev/null &&
    compress="zstd -q -T0 -10"
  stage=$(mktemp -d "${out%/*}/stage.XXXXXX")
  mkdir -p "$stage"/{bin,sbin,dev,proc,sys,tmp,run,etc/tuner,var/lib,usr/bin,lib/modules}
  cp /bin/busybox "$stage/bin/busybox"
  ln -s busybox "$stage/bin/sh"
  ldd /bin/busybox >/dev/null 2>&1 &&
    { echo "vm: /bin/busybox is dynamic; install busybox-static" >&2; rm -rf "$stage"; return 1; }
  if [[ -n ${VM_FAKE_TUNER:-} ]]; then   # harness self-test: see selftest/fake-tuner.sh
    vm_copy_with_libs "$stage" "$tuner" /usr/bin/tuner.real
    install -m 755 "$VM_FAKE_TUNER" "$stage/usr/bin/tuner"
  else
    vm_copy_with_libs "$stage" "$tuner" /usr/bin/tuner
  fi
  vm_copy_with_libs "$stage" "$(command -v jq)" /usr/bin/jq
  # libhwloc finds devices through its PCI plugin, dlopened from its compile-time dir.
  if ldd "$tuner" | grep -q libhwloc; then
    plugdir=/usr/lib/x86_64-linux-gnu/hwloc
    [[ -f $plugdir/hwloc_pci.so ]] && vm_copy_with_libs "$stage" "$plugdir/hwloc_pci.so"
  fi
  : > "$stage/lib/modules/load-order"
  for m in $(vm_module_closure "$moddir" "$@"); do
    mkdir -p "$stage/lib/modules/$(dirname "$m")"
    case $m in
      *.ko.xz) xz -dc "$moddir/$m" > "$stage/lib/modules/${m%.xz}"; m=${m%.xz} ;;
      *.ko.zst) zstd -qdc "$moddir/$m" > "$stage/lib/modules/${m%.zst}"; m=${m%.zst} ;;
      *) cp "$moddir/$m" "$stage/lib/modules/$m" ;;
    esac
    echo "$m" >> "$stage/lib/modules/load-order"
  done
  # ethtool reads autoneg, which sysfs does not show (tests may use it; tuner never does).
  local et; et=$(PATH=$PATH:/usr/sbin:/sbin command -v ethtool || true)
  [[ -n $et ]] && vm_copy_with_libs "$stage" "$et" /usr/bin/ethtool
  cp "$guest/init" "$stage/init"
  cp "$guest"/*.sh "$stage/"
  cp "$guest"/*.toml.in "$stage/etc/tuner/"
  # The shipped profiles, for scenario-ports.sh (--profile-path /etc/tuner/shipped).
  mkdir -p "$stage/etc/tuner/shipped"
  cp "$guest"/../../../profiles/*.toml "$stage/etc/tuner/shipped/"
  chmod 755 "$stage/init" "$stage"/*.sh
  (cd "$stage" && find . -print0 | LC_ALL=C sort -z |
     cpio --null -o -H newc --quiet --owner=0:0) | $compress > "$out.tmp" &&
    mv "$out.tmp" "$out"
  local rc=$?
  rm -rf "$stage"
  return $rc
}
