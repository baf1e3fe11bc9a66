# shellcheck shell=bash
# Sourced by tests/vm/*_test.sh. Fetches Debian's own kernel for one Debian release (the
# concrete linux-image-<abi>-amd64 that the suite's linux-image-amd64 metapackage
# depends on) into a cache outside the source tree and unpacks it there. The suite's
# package lists come from deb.debian.org through a private apt configuration under the
# cache (vm_apt): the host's apt sources, lists and archives are not touched, and
# nothing is installed into the host's /boot or /lib/modules.
#
# vm_kernel_fetch CACHE SUITE   SUITE: bullseye (5.10), bookworm (6.1) or trixie (6.12).
#                               Sets VM_KVER, VM_VMLINUZ, VM_MODDIR (modules.dep generated
#                               there) and VM_KERNEL: what qemu boots (see vm_kernel_elf)

# Debian's bzImage is compressed (xz up to Debian 12, zstd in Debian 13's 6.12), and its
# decompressor takes ~10 s under TCG. The kernel has CONFIG_PVH, so qemu can boot the
# same kernel's ELF image directly: extract it once (as the kernel's own
# scripts/extract-vmlinux does) and keep it in the cache. Prints the ELF's path, or the
# bzImage's when extraction fails.
vm_kernel_elf() {
  local bz=$1 elf=${1%/boot/*}/vmlinux off magic tool
  if [[ ! -s $elf ]] && grep -q '^CONFIG_PVH=y' "${bz/vmlinuz-/config-}" 2>/dev/null; then
    for magic in $'\xfd\x37\x7a\x58\x5a\x00':xz $'\x28\xb5\x2f\xfd':zstd; do
      tool=${magic##*:}
      off=$(LC_ALL=C grep -abo "${magic%:*}" "$bz" | head -1 | cut -d: -f1)
      # The decompressor stops with "trailing garbage" after the stream: the image is
      # whole by then.
      [[ -n $off ]] && tail -c +$((off + 1)) "$bz" | $tool -dc 2>/dev/null > "$elf.tmp"
      if [[ $(head -c 4 "$elf.tmp" 2>/dev/null | od -An -tx1 | tr -d ' ') == 7f454c46 ]]; then
        mv "$elf.tmp" "$elf"; break
      fi
      rm -f "$elf.tmp"
    done
  fi
  if [[ -s $elf ]]; then echo "$elf"; else echo "$bz"; fi
}

# The kernel each suite ships: the test names (vm/smoke-5.10) and the docs use these.
vm_suite_kernel() {
  case $1 in bullseye) echo 5.10 ;; bookworm) echo 6.1 ;; trixie) echo 6.12 ;; *) return 1 ;; esac
}

# vm_apt DIR TOOL ARGS...: apt-get or apt-cache with DIR's own sources, lists and
# archives. The suite's kernel may be in SUITE-security or SUITE-updates, so both are
# listed; the Release files are checked against Debian's archive keyring as the host's
# own sources are.
vm_apt() {
  local d=$1 tool=$2; shift 2
  local -a o=(-o "Dir::Etc::SourceList=$d/sources.list" -o "Dir::Etc::SourceParts=$d/empty"
    -o "Dir::Etc::Preferences=$d/empty/preferences" -o "Dir::Etc::PreferencesParts=$d/empty"
    -o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache" -o "APT::Architectures::=amd64"
    -o "Acquire::Languages=none" -o "APT::Get::List-Cleanup=true")
  # The cache dir is root's (or the user's): apt's _apt sandbox user cannot write there.
  o+=(-o "APT::Sandbox::User=$(id -un)")
  "$tool" "${o[@]}" "$@"
}

vm_apt_init() {  # DIR SUITE
  local d=$1 suite=$2 mirror=${TUNER_VM_MIRROR:-http://deb.debian.org}
  local key=/usr/share/keyrings/debian-archive-keyring.gpg
  mkdir -p "$d/empty" "$d/lists/partial" "$d/cache/archives/partial"
  printf 'deb [signed-by=%s] %s %s main\n' \
    "$key" "$mirror/debian" "$suite" "$key" "$mirror/debian" "$suite-updates" \
    "$key" "$mirror/debian-security" "$suite-security" > "$d/sources.list"
}

vm_kernel_pkg() {  # APTDIR
  vm_apt "$1" apt-cache depends linux-image-amd64 2>/dev/null |
    awk '/Depends: linux-image-[0-9]/ { print $2; exit }'
}

vm_kernel_fetch() {
  local cache=$1 suite=$2 lock rc
  vm_suite_kernel "$suite" >/dev/null ||
    { echo "vm: unknown suite '$suite' (bullseye, bookworm or trixie)" >&2; return 1; }
  mkdir -p "$cache/$suite"
  # Two test runs (two build dirs) may share the cache: one fetches, the other waits.
  exec {lock}>"$cache/$suite/.lock"
  flock "$lock"
  vm_kernel_fetch_locked "$cache/$suite" "$suite"; rc=$?
  exec {lock}>&-
  return $rc
}

# The suite's lists, fetched when missing or a week old; a failed refresh keeps the old
# ones (offline runs use what the cache holds). apt-get update exits 0 when a mirror
# cannot be reached, so the stamp says only that the suite's Packages list is there.
vm_apt_has_list() {  # APTDIR SUITE
  compgen -G "$1/lists/*_dists_$2_main_binary-amd64_Packages*" >/dev/null
}

vm_apt_update() {  # APTDIR SUITE [force]
  local d=$1 suite=$2
  vm_apt_init "$d" "$suite"
  if [[ -n ${3:-} || ! -f $d/updated ]] || ! vm_apt_has_list "$d" "$suite" ||
     [[ -n $(find "$d/updated" -mtime +7 2>/dev/null) ]]; then
    echo "vm: apt-get update for $suite (lists in $d)" >&2
    vm_apt "$d" apt-get update -qq >&2 && vm_apt_has_list "$d" "$suite" && touch "$d/updated"
  fi
}

vm_kernel_fetch_locked() {
  local dir=$1 suite=$2 pkg deb kdir apt=$1/apt
  vm_apt_update "$apt" "$suite"
  pkg=$(vm_kernel_pkg "$apt")
  if [[ -z "$pkg" ]]; then
    # Offline and no lists: fall back to the newest kernel already in the cache.
    pkg=$(ls -d "$dir"/linux-image-*-amd64 2>/dev/null | sort -V | tail -1)
    pkg=${pkg##*/}
    [[ -n "$pkg" ]] || { echo "vm: cannot resolve $suite's linux-image-amd64 (no lists, empty cache $dir)" >&2; return 1; }
    echo "vm: apt cannot resolve $suite's linux-image-amd64; using cached $pkg" >&2
  fi
  kdir=$dir/$pkg
  # A newer ABI replaces the old one: keep only the kernel in use.
  local old
  for old in "$dir"/linux-image-*; do
    [[ -e $old && ${old##*/} != "$pkg" && ${old##*/} != "$pkg"_* ]] && rm -rf "$old"
  done
  if [[ ! -f "$kdir/.unpacked" ]]; then
    deb=$(ls "$dir"/"${pkg}"_*.deb 2>/dev/null | sort -V | tail -1)
    if [[ -z "$deb" ]]; then
      echo "vm: downloading $pkg ($suite) into $dir" >&2
      # Lists a week old may name a version the archive has dropped: refresh, once.
      (cd "$dir" && vm_apt "$apt" apt-get download -q "$pkg" >&2) ||
        { vm_apt_update "$apt" "$suite" force && (cd "$dir" && vm_apt "$apt" apt-get download -q "$pkg" >&2); } ||
        return 1
      deb=$(ls "$dir"/"${pkg}"_*.deb 2>/dev/null | sort -V | tail -1)
      [[ -n "$deb" ]] || { echo "vm: apt-get download $pkg left no .deb in $dir" >&2; return 1; }
    fi
    rm -rf "$kdir" && mkdir -p "$kdir"
    dpkg -x "$deb" "$kdir" || return 1
    # Debian 13 ships its modules in /usr/lib/modules (merged /usr); the host's depmod
    # -b and the code below look in lib/modules, and find boot/ as lib/modules/../..
    [[ ! -e $kdir/lib/modules && -d $kdir/usr/lib/modules ]] &&
      mkdir -p "$kdir/lib" && mv "$kdir/usr/lib/modules" "$kdir/lib/modules"
    touch "$kdir/.unpacked"
  fi
  VM_KVER=$(ls "$kdir/lib/modules" | sort -V | tail -1)
  VM_VMLINUZ=$kdir/boot/vmlinuz-$VM_KVER
  VM_MODDIR=$kdir/lib/modules/$VM_KVER
  [[ -f "$VM_VMLINUZ" && -d "$VM_MODDIR" ]] ||
    { echo "vm: $kdir lacks boot/vmlinuz-$VM_KVER or lib/modules/$VM_KVER" >&2; return 1; }
  VM_KERNEL=$(vm_kernel_elf "$VM_VMLINUZ")
  # The .deb ships no modules.dep (the postinst's depmod makes it); make ours in the cache.
  if [[ ! -s "$VM_MODDIR/modules.dep" ]]; then
    depmod -b "$kdir" "$VM_KVER" || { echo "vm: depmod -b $kdir $VM_KVER failed" >&2; return 1; }
  fi
}
