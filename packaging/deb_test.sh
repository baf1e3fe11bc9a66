#!/usr/bin/env bash
# The Debian package as a user meets it: build it (cpack), install it with apt-get
# (Depends resolved from the archive), use it (--version, man, plan with the installed
# profiles, bash completion, systemd-analyze verify and security on the units), then remove and
# purge it: purge must refuse while state.json records kept settings, and once it goes
# through nothing of the package may be left.
#   deb_test.sh BUILD_DIR        (root; CTest package/deb)
# Skips (77) when not root, or when tuner is already installed or /var/lib/tuner is in
# use on this machine: the test must not touch a real installation.
set -uo pipefail
build=$(realpath "${1:?usage: deb_test.sh BUILD_DIR}")
skip() { echo "SKIP: package/deb: $*"; exit 77; }
fail() { echo "FAIL: package/deb: $*"; exit 1; }
step() { echo "== $*"; }

[[ $(id -u) -eq 0 ]] || skip "needs root (apt-get install)"
dpkg-query -W -f='${Status}' tuner 2>/dev/null | grep -q 'installed' &&
  skip "a tuner package is installed on this machine"
[[ -e /var/lib/tuner || -e /etc/tuner ]] && skip "/var/lib/tuner or /etc/tuner exists here"
for t in cpack dpkg-shlibdeps apt-get man systemd-analyze; do
  command -v "$t" >/dev/null || fail "$t is not installed (packaging/install-deps.sh --test)"
done

cleanup() {
  if dpkg-query -W -f='${Status}' tuner 2>/dev/null | grep -q 'installed\|config-files'; then
    rm -rf /var/lib/tuner
    dpkg --purge tuner >/dev/null 2>&1
  fi
}
trap cleanup EXIT

step "cpack"
rm -f "$build"/tuner_*.deb
(cd "$build" && cpack -G DEB >cpack.log 2>&1) || { cat "$build/cpack.log"; fail "cpack"; }
deb=$(ls "$build"/tuner_*.deb) || fail "no .deb in $build"
dpkg-deb -I "$deb" | grep -E '^ (Depends|Version|Installed-Size):'
files=$(dpkg-deb -c "$deb" | awk '{print substr($6, 2)}' | grep -v '/$')

if command -v lintian >/dev/null; then
  step "lintian"
  # Every finding is an error here. One is overridden, with its reason beside it
  # (packaging/debian/lintian-overrides: tuner-after-tuned.service is WantedBy=tuned.service).
  out=$(lintian --allow-root "$deb" 2>&1)
  [[ -z "$out" ]] || { echo "$out"; fail "lintian findings"; }
fi

step "apt-get install $deb"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$deb" \
  >"$build/apt.log" 2>&1 || { tail -20 "$build/apt.log"; fail "apt-get install"; }

step "use it"
[[ $(command -v tuner) == /usr/bin/tuner ]] || fail "tuner is not /usr/bin/tuner"
tuner --version | grep -qx "tuner [0-9.]*" || fail "tuner --version: $(tuner --version)"
page=$(MANWIDTH=80 man -P cat tuner 2>/dev/null) || fail "man tuner: no page"
grep -q 'EXIT STATUS' <<<"$page" || fail "man tuner: no EXIT STATUS section"
# As tuner-provision.service runs it: no options. The binary searches where the package
# put the profiles (the prefix it was configured with), and never the source tree of the
# machine that built it (that path may exist here, made by anyone).
tuner profiles --json >"$build/profiles.json" 2>&1 || { cat "$build/profiles.json"; fail "tuner profiles"; }
jq -e '.search_path == ["/etc/tuner/profiles", "/usr/share/tuner/profiles"]' "$build/profiles.json" \
  >/dev/null || fail "the installed binary's search path: $(jq -c .search_path "$build/profiles.json")"
jq -e '[.profiles[].file] | index("/usr/share/tuner/profiles/balanced.toml") != null' \
  "$build/profiles.json" >/dev/null || fail "tuner profiles does not list the installed balanced.toml"
tuner plan --profile throughput >"$build/plan.out" 2>&1 ||
  { cat "$build/plan.out"; fail "tuner plan --profile throughput with the installed profiles"; }
tuner plan >"$build/plan.out" 2>&1 ||
  { cat "$build/plan.out"; fail "tuner plan (automatic selection) with the installed profiles"; }
bash -c 'source /usr/share/bash-completion/completions/tuner && complete -p tuner' >/dev/null ||
  fail "bash completion does not load"
units=(tuner-restore.service tuner-after-tuned.service tuner-provision.service tuner-status.service
  tuner-status.timer)
systemd-analyze verify "${units[@]/#//lib/systemd/system/}" || fail "systemd-analyze verify"
[[ -L /etc/systemd/system/multi-user.target.wants/tuner-restore.service ]] ||
  fail "tuner-restore.service is not enabled"
[[ -L /etc/systemd/system/timers.target.wants/tuner-status.timer ]] ||
  fail "tuner-status.timer is not enabled"
# Wanted by tuned.service, so that it runs after tuned wherever tuned runs.
[[ -L /etc/systemd/system/tuned.service.wants/tuner-after-tuned.service ]] ||
  fail "tuner-after-tuned.service is not enabled (tuned.service.wants)"
[[ -x /usr/lib/tuner/provision-attempts ]] || fail "/usr/lib/tuner/provision-attempts is not installed"
# The sandboxes stay as tight as they are (the units' comments say what each looser
# setting is for): each unit's exposure at most what it reached (before: restore 6.6,
# provision 6.8 MEDIUM).
for limit in tuner-restore.service=2.6 tuner-after-tuned.service=2.6 tuner-provision.service=3.9 \
  tuner-status.service=2.1; do
  unit=${limit%=*} max=${limit#*=}
  got=$(systemd-analyze security --offline=yes "/lib/systemd/system/$unit" 2>/dev/null |
    sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
  [[ -n "$got" ]] || fail "systemd-analyze security $unit: no exposure level"
  awk -v got="$got" -v max="$max" 'BEGIN { exit !(got <= max) }' ||
    fail "systemd-analyze security $unit: exposure $got, above $max"
  echo "$unit: exposure $got (at most $max)"
done
[[ $(stat -c %a /var/lib/tuner) == 700 ]] || fail "/var/lib/tuner is not 0700"

step "remove keeps the way back; purge refuses while settings are kept"
cat >/var/lib/tuner/state.json <<'EOF'
{"knobs": {"sysctl:net.core.somaxconn": {"before": "4096", "group": "sysctl",
  "run_id": "20261201T000000Z-test", "value": "8192"}}, "schema": "tuner.state/1"}
EOF
dpkg --remove tuner >"$build/remove.log" 2>&1 || { cat "$build/remove.log"; fail "dpkg --remove"; }
grep -q 'settings tuner kept stay in force' "$build/remove.log" ||
  { cat "$build/remove.log"; fail "remove did not say that kept settings stay"; }
[[ -f /var/lib/tuner/state.json ]] || fail "remove deleted the state directory"
if dpkg --purge tuner >"$build/purge.log" 2>&1; then
  fail "purge went through while state.json records kept settings"
fi
grep -q "not purging /var/lib/tuner" "$build/purge.log" || { cat "$build/purge.log"; fail "purge's refusal names no reason"; }
[[ -f /var/lib/tuner/state.json ]] || fail "the refused purge deleted the state"

step "purge with nothing kept leaves nothing behind"
echo '{"knobs": {}, "schema": "tuner.state/1"}' >/var/lib/tuner/state.json
dpkg --purge tuner >"$build/purge.log" 2>&1 || { cat "$build/purge.log"; fail "dpkg --purge"; }
left=""
for f in $files /var/lib/tuner /etc/tuner /etc/systemd/system/multi-user.target.wants/tuner-restore.service \
  /etc/systemd/system/multi-user.target.wants/tuner-provision.service \
  /etc/systemd/system/timers.target.wants/tuner-status.timer \
  /etc/systemd/system/tuned.service.wants/tuner-after-tuned.service; do
  [[ -e $f || -L $f ]] && left+=" $f"
done
[[ -z "$left" ]] || fail "left after purge:$left"
dpkg-query -W tuner >/dev/null 2>&1 && fail "dpkg still knows the package"
trap - EXIT
echo "PASS: package/deb: built, installed, used, removed and purged"
