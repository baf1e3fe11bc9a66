#!/usr/bin/env bash
# The portable binary and the packages made from it (issue 43), as CI runs them:
#   1. packaging/portable.sh: the binary built in a Debian 11 chroot (glibc 2.31), and
#      packaging/portable_check.sh on it (NEEDED libraries, highest glibc version);
#   2. that binary's probe and dry-run plan in a Debian 11 and a Debian 13 chroot;
#   3. the Debian package of the same build (cpack in the Debian 11 chroot) installed
#      there with dpkg, used, and purged;
#   4. the RPM (packaging/rpm/tuner.spec, rpmbuild -bb --nodeps from the portable tree):
#      rpmlint with packaging/rpm/rpmlint.toml (every finding left is justified there;
#      a new one fails), its file list and dependencies, and its scriptlets run against
#      a recording systemctl: enabled on the first install, left alone on an upgrade,
#      the timer stopped and all disabled on erase, the warning about kept settings.
#   rpm_test.sh [OUT]     (root; default OUT: build-portable in the source tree)
# Nothing is installed on this machine: the .deb only inside the chroot, the RPM
# nowhere (there is no EL system here; its scriptlets run as scripts). Exit 77 (skip)
# without root, debootstrap, rpmbuild, rpmlint or objdump. Chroots: packaging/chroot_lib.sh
# (TUNER_CHROOT_CACHE, default /var/cache/tuner-chroots).
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$src/build-portable}")
skip() { echo "SKIP: package/rpm: $*"; exit 77; }
fail() { echo "FAIL: package/rpm: $*"; exit 1; }
step() { echo "== $* ($((SECONDS - t0)) s)"; }
t0=$SECONDS

[[ $(id -u) -eq 0 ]] || skip "needs root (chroot)"
for t in debootstrap rpmbuild rpmlint objdump chroot; do
  command -v "$t" >/dev/null || skip "no $t"
done

chroot_tag=package/rpm
source "$src/packaging/chroot_lib.sh"
cleanup() {
  chroot_unbind
  if [[ -n "${deb_root:-}" ]] && chroot "$deb_root" dpkg-query -W tuner >/dev/null 2>&1; then
    rm -rf "$deb_root/var/lib/tuner"
    chroot "$deb_root" dpkg --purge tuner >/dev/null 2>&1
  fi
  [[ -n "${run_dir:-}" ]] && rm -rf "$run_dir"
}
trap cleanup EXIT

step "portable binary (packaging/portable.sh, Debian 11 chroot)"
bash "$src/packaging/portable.sh" "$out" || fail "packaging/portable.sh"

for suite in bullseye trixie; do
  case $suite in bullseye) name="Debian 11 (bullseye)" ;; trixie) name="Debian 13 (trixie)" ;; esac
  step "the portable binary in $name"
  root=$(chroot_make "$suite") || fail "debootstrap $suite"
  # A directory of its own, 0755 root (tuner trusts only profiles that only root may
  # change), removed after.
  run_dir=$root/tmp/tuner-portable.$$
  mkdir -m 0755 "$run_dir"
  cp -p "$out/root/usr/bin/tuner" "$run_dir/tuner"
  cp -rp "$out/root/usr/share/tuner/profiles" "$run_dir/profiles"
  chroot_bind "$root" || fail "binding /proc, /sys, /dev in $root"
  dir=/tmp/tuner-portable.$$
  in_root "$root" "$dir/tuner --version" | grep -qx 'tuner [0-9.]*' || fail "$suite: tuner --version"
  in_root "$root" "$dir/tuner probe --json >$dir/probe.json" || fail "$suite: tuner probe"
  grep -q '"cpus"\|"cpu"' "$run_dir/probe.json" || fail "$suite: tuner probe --json: $(head -c 300 "$run_dir/probe.json")"
  in_root "$root" "$dir/tuner plan --profile-path $dir/profiles --profile throughput >$dir/plan.txt 2>&1" ||
    { cat "$run_dir/plan.txt"; fail "$suite: tuner plan --profile throughput"; }
  in_root "$root" "$dir/tuner plan --profile-path $dir/profiles >$dir/plan-auto.txt 2>&1" ||
    { cat "$run_dir/plan-auto.txt"; fail "$suite: tuner plan (automatic selection)"; }
  echo "  probe: $(wc -c <"$run_dir/probe.json") bytes of JSON; plan: $(tail -n 1 "$run_dir/plan.txt")"
  chroot_unbind
  rm -rf "$run_dir"
  run_dir=""
done

step "the Debian package built in Debian 11, installed there"
deb_root=$chroot_cache/bullseye
in_root "$deb_root" 'dpkg-query -W tuner' >/dev/null 2>&1 &&
  { deb_root=""; fail "a tuner package is installed in $deb_root already"; }
chroot_bind "$deb_root" || fail "binding /proc, /sys, /dev in $deb_root"
# The logs in the chroot, in a directory of their own, removed after (cleanup).
run_dir=$deb_root/tmp/tuner-deb.$$
mkdir -m 0700 "$run_dir"
logs=/tmp/tuner-deb.$$
# cpack's Depends come from dpkg-shlibdeps, which needs dpkg-dev and file.
in_root "$deb_root" "dpkg-query -W -f='\${Status}\n' dpkg-dev file 2>/dev/null | grep -c 'ok installed' |
  grep -qx 2 || { apt-get update -qq && apt-get install -y -qq --no-install-recommends dpkg-dev file; } \
  >$logs/apt.log 2>&1" || { cat "$deb_root$logs/apt.log"; fail "installing dpkg-dev in the chroot"; }
in_root "$deb_root" 'cd /b-rpm && rm -f tuner_*.deb && cpack -G DEB >cpack.log 2>&1' ||
  { cat "$deb_root/b-rpm/cpack.log"; fail "cpack in Debian 11"; }
deb=$(cd "$deb_root/b-rpm" && ls tuner_*.deb) || fail "no .deb in /b-rpm"
in_root "$deb_root" "dpkg-deb -f /b-rpm/$deb Depends" | sed 's/^/  Depends: /'
in_root "$deb_root" "dpkg -i /b-rpm/$deb >$logs/dpkg.log 2>&1" ||
  { cat "$deb_root$logs/dpkg.log"; fail "dpkg -i in Debian 11"; }
in_root "$deb_root" 'tuner --version' | grep -qx 'tuner [0-9.]*' || fail "tuner --version after dpkg -i"
in_root "$deb_root" "tuner plan --profile throughput >$logs/plan.txt 2>&1" ||
  { cat "$deb_root$logs/plan.txt"; fail "tuner plan with the installed profiles"; }
in_root "$deb_root" "dpkg --purge tuner >$logs/purge.log 2>&1" ||
  { cat "$deb_root$logs/purge.log"; fail "dpkg --purge in Debian 11"; }
[[ -e "$deb_root/usr/bin/tuner" || -e "$deb_root/var/lib/tuner" ]] && fail "left after purge"
chroot_unbind
rm -rf "$run_dir"
run_dir="" deb_root=""
echo "  $deb: installed, used and purged"

step "RPM (rpmbuild -bb --nodeps from the portable tree)"
top=$out/rpmbuild
rm -rf "$top"
rpmbuild -bb --nodeps --define "_topdir $top" --define "tuner_prebuilt $out" \
  "$src/packaging/rpm/tuner.spec" >"$out/rpmbuild.log" 2>&1 ||
  { tail -30 "$out/rpmbuild.log"; fail "rpmbuild"; }
rpm=$(ls "$top"/RPMS/x86_64/tuner-*.x86_64.rpm) || fail "no RPM in $top/RPMS"
echo "  $rpm"
lint=$(rpmlint -c "$src/packaging/rpm/rpmlint.toml" "$rpm" "$src/packaging/rpm/tuner.spec" 2>&1)
grep -q ' 0 errors, 0 warnings' <<<"$lint" || { echo "$lint"; fail "rpmlint findings (above)"; }
echo "  rpmlint: $(tail -n 1 <<<"$lint")"

# The spec's version is the project's (CMakeLists.txt), which the binary reports.
version=$(rpm -qp --qf '%{VERSION}' "$rpm")
[[ "tuner $version" == "$("$out/tuner" --version)" ]] ||
  fail "the RPM's version $version is not the binary's: $("$out/tuner" --version)"
expected='/etc/tuner
/etc/tuner/profiles
/etc/tuner/profiles/README
/usr/bin/tuner
/usr/lib/systemd/system-preset/80-tuner.preset
/usr/lib/systemd/system/tuner-after-tuned.service
/usr/lib/systemd/system/tuner-provision.service
/usr/lib/systemd/system/tuner-restore.service
/usr/lib/systemd/system/tuner-status.service
/usr/lib/systemd/system/tuner-status.timer
/usr/lib/tuner
/usr/lib/tuner/provision-attempts
/usr/share/bash-completion/completions/tuner
/usr/share/doc/tuner
/usr/share/doc/tuner/examples
/usr/share/doc/tuner/examples/provision.env.example
/usr/share/doc/tuner/fleet-decisions.md
/usr/share/doc/tuner/monitoring.md
/usr/share/licenses/tuner
/usr/share/licenses/tuner/LICENSE
/usr/share/man/man1/tuner.1.gz
/usr/share/tuner
/usr/share/tuner/monitoring
/usr/share/tuner/monitoring/tuner-dashboard.json
/usr/share/tuner/monitoring/tuner.rules.yml
/usr/share/tuner/profiles'
expected+=$'\n'$(cd "$src/profiles" && ls ./*.toml | sed 's|^\./|/usr/share/tuner/profiles/|')
expected+=$'\n/var/lib/tuner'
got=$(rpm -qlp "$rpm")
[[ "$got" == "$(sort <<<"$expected")" ]] ||
  fail "rpm -qlp differs from the expected list: $(diff <(sort <<<"$expected") - <<<"$got")"
rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$rpm" | grep -qx 'drwx------ /var/lib/tuner' ||
  fail "/var/lib/tuner is not 0700"
rpm -qp --qf '[%{FILEFLAGS:fflags} %{FILENAMES}\n]' "$rpm" | grep -qx 'cn /etc/tuner/profiles/README' ||
  fail "/etc/tuner/profiles/README is not %config(noreplace)"
requires=$(rpm -qp --requires "$rpm")
for r in 'libmnl.so.0()(64bit)' 'libudev.so.1()(64bit)' 'libc.so.6(GLIBC_2.2.5)(64bit)'; do
  grep -qxF "$r" <<<"$requires" || fail "Requires has no $r: $requires"
done
grep -q 'libstdc++\|libhwloc\|libnuma\|libre2\|libboost\|libfmt' <<<"$requires" &&
  fail "Requires names a library the portable binary links in: $requires"
echo "  Requires: $(grep -o 'GLIBC_[0-9.]*' <<<"$requires" | sort -V | tail -n 1) at most;" \
  "$(grep '^lib' <<<"$requires" | grep -v '^libc.so' | paste -sd' ' -)"

# The unit as EL's node_exporter packages need it; the comments keep saying where each
# path comes from.
unit=$out/tuner-status.service
rpm2cpio "$rpm" | cpio -i --quiet --to-stdout ./usr/lib/systemd/system/tuner-status.service >"$unit"
grep -qx 'ConditionPathIsDirectory=/var/lib/node_exporter/textfile_collector' "$unit" ||
  fail "tuner-status.service does not look for EL's textfile directory"
grep -v '^#' "$unit" | grep -q /var/lib/prometheus && fail "tuner-status.service still names Debian's textfile directory"

step "RPM scriptlets, against a recording systemctl"
sdir=$(mktemp -d)
run_dir=$sdir
mkdir "$sdir/bin"
printf '#!/bin/sh\necho "systemctl $*" >>"%s/calls"\n[ "$1 $2" != "--quiet is-enabled" ] || [ -e "%s/enabled" ]\n' \
  "$sdir" "$sdir" >"$sdir/bin/systemctl"
printf '#!/bin/sh\ncat "%s/status"\n' "$sdir" >"$sdir/bin/tuner"
chmod +x "$sdir/bin/"*
for s in POSTIN PREUN POSTUN; do
  rpm -qp --qf "%{$s}\n" "$rpm" >"$sdir/$s"
done
# scriptlet NAME ARG: runs it as rpm would ($1 = the count of installed instances after).
scriptlet() {
  : >"$sdir/calls"
  PATH=$sdir/bin:/usr/bin:/bin sh "$sdir/$1" "$2" >"$sdir/out" 2>&1 || fail "%$1 $2 failed: $(cat "$sdir/out")"
}
echo 'no kept settings' >"$sdir/status"
scriptlet POSTIN 1
grep -qx 'systemctl --no-reload preset tuner-restore.service tuner-after-tuned.service tuner-provision.service tuner-status.timer' \
  "$sdir/calls" || fail "a first install does not apply the presets: $(cat "$sdir/calls")"
scriptlet POSTIN 2
grep -q preset "$sdir/calls" && fail "an upgrade applies the presets again (overriding the admin)"
if [[ -d /run/systemd/system ]]; then  # %post's start, where systemd runs (this machine)
  touch "$sdir/enabled"
  scriptlet POSTIN 2
  grep -qx 'systemctl start tuner-status.timer' "$sdir/calls" || fail "an enabled timer is not started"
  rm "$sdir/enabled"
  scriptlet POSTIN 2
  grep -q 'start' "$sdir/calls" && fail "%post starts a timer the admin disabled"
fi
scriptlet PREUN 1
[[ -s "$sdir/calls" ]] && fail "%preun of an upgrade calls systemctl: $(cat "$sdir/calls")"
scriptlet PREUN 0
grep -qx 'systemctl --no-reload disable --now tuner-status.timer tuner-status.service' "$sdir/calls" ||
  fail "erase does not stop and disable the timer: $(cat "$sdir/calls")"
grep -qx 'systemctl --no-reload disable tuner-restore.service tuner-after-tuned.service tuner-provision.service' "$sdir/calls" ||
  fail "erase does not disable the boot units: $(cat "$sdir/calls")"
[[ -s "$sdir/out" ]] && fail "erase with no kept settings says: $(cat "$sdir/out")"
echo 'drift: 1 setting' >"$sdir/status"
scriptlet PREUN 0
grep -q 'settings tuner kept stay in force' "$sdir/out" || fail "erase does not say kept settings stay"
scriptlet POSTUN 0
echo "  %post, %preun, %postun: first install, upgrade and erase as the .deb's scripts"
rm -rf "$sdir"
run_dir=""

trap - EXIT
cleanup
echo "PASS: package/rpm: portable binary, its runs in Debian 11 and 13, the .deb in Debian 11, the RPM ($((SECONDS - t0)) s)"
