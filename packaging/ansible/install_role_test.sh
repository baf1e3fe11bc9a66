#!/usr/bin/env bash
# The role tuner.node.install under real ansible-playbook (local connection) on this
# machine: the .deb cpack builds installed from the controller's file, two site profiles
# (one includes the other, and a shipped one) placed in /etc/tuner/profiles, the units
# set (the status timer disabled here), and a second run that changes nothing. A
# profile tuner refuses fails the play and takes no place; a unit that is not tuner's is
# refused before anything changes. Then the package is purged.
#   install_role_test.sh BUILD_DIR       (root; CTest integration/ansible-install)
# Skips (77) when not root, without ansible-playbook, or when tuner is installed or
# /var/lib/tuner or /etc/tuner exists: the test must not touch a real installation.
set -uo pipefail
build=$(realpath "${1:?usage: install_role_test.sh BUILD_DIR}")
here=$(cd "$(dirname "$0")" && pwd)
skip() { echo "SKIP: integration/ansible-install: $*"; exit 77; }
fail() { echo "FAIL: integration/ansible-install: $*"; exit 1; }
step() { echo "== $*"; }

[[ $(id -u) -eq 0 ]] || skip "needs root (apt-get install)"
command -v ansible-playbook >/dev/null || skip "no ansible-playbook (apt-get install ansible-core)"
dpkg-query -W -f='${Status}' tuner 2>/dev/null | grep -q 'installed' &&
  skip "a tuner package is installed on this machine"
[[ -e /var/lib/tuner || -e /etc/tuner ]] && skip "/var/lib/tuner or /etc/tuner exists here"
command -v cpack >/dev/null || fail "cpack is not installed (packaging/install-deps.sh --test)"

work=$(mktemp -d)
cleanup() {
  if dpkg-query -W -f='${Status}' tuner 2>/dev/null | grep -q 'installed\|config-files'; then
    rm -rf /var/lib/tuner
    dpkg --purge tuner >/dev/null 2>&1
  fi
  rm -rf /etc/tuner "$work"
}
trap cleanup EXIT

step "cpack"
(cd "$build" && cpack -G DEB -B "$work/cpack" >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; fail "cpack"; }
deb=$(ls "$work"/cpack/tuner_*.deb) || fail "no .deb in $work/cpack"

mkdir -p "$work/profiles"
cat >"$work/profiles/site-base.toml" <<'TOML'
[profile]
name = "site-base"
include = ["balanced"]
[sysctl]
"net.core.somaxconn" = ">=8192"
TOML
cat >"$work/profiles/site-gpu.toml" <<'TOML'
[profile]
name = "site-gpu"
include = ["site-base"]
[sysctl]
"vm.swappiness" = "<=10"
TOML
cat >"$work/profiles/site-bad.toml" <<'TOML'
[profile]
name = "site-bad"
[sysctl]
"vm.no_such_setting" = "1"
TOML
cat >"$work/play.yml" <<'YAML'
- name: Install tuner with tuner.node.install
  hosts: localhost
  connection: local
  gather_facts: false
  roles:
    - role: tuner.node.install
YAML
play() {  # play LOG EXTRA_VARS_JSON
  ANSIBLE_COLLECTIONS_PATH=$here ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 \
    ansible-playbook -i localhost, "$work/play.yml" -e "$2" >"$1" 2>&1
}
vars() {  # vars PROFILE... : the role's variables as JSON
  python3 - "$deb" "$@" <<'PY'
import json, sys
print(json.dumps({"install_package_file": sys.argv[1],
                  "install_profiles": sys.argv[2:],
                  "install_units": {"tuner-restore.service": True,
                                    "tuner-after-tuned.service": True,
                                    "tuner-provision.service": True,
                                    "tuner-status.timer": False}}))
PY
}
recap() { grep -E '^localhost +:' "$1" | tr -s ' '; }

step "a unit that is not tuner's: refused before anything changes"
play "$work/unit.log" '{"install_package_file": "'"$deb"'", "install_units": {"ssh.service": false}}' &&
  { cat "$work/unit.log"; fail "install_units with ssh.service passed"; }
grep -q "install_units names ssh.service" "$work/unit.log" || { cat "$work/unit.log"; fail "no reason given"; }
dpkg-query -W tuner >/dev/null 2>&1 && fail "the package was installed by a refused play"

step "install, two site profiles, units"
play "$work/first.log" "$(vars "$work/profiles/site-base.toml" "$work/profiles/site-gpu.toml")" ||
  { cat "$work/first.log"; fail "the first run failed"; }
recap "$work/first.log"
recap "$work/first.log" | grep -q 'failed=0' || fail "the first run failed a task"
[[ $(command -v tuner) == /usr/bin/tuner ]] || fail "tuner is not installed"
for p in site-base site-gpu; do
  [[ $(stat -c '%a %U %G' "/etc/tuner/profiles/$p.toml") == "644 root root" ]] ||
    fail "/etc/tuner/profiles/$p.toml: $(stat -c '%a %U %G' "/etc/tuner/profiles/$p.toml")"
done
tuner plan --profile site-gpu >"$work/plan.out" 2>&1 || { cat "$work/plan.out"; fail "tuner plan --profile site-gpu"; }
[[ $(systemctl is-enabled tuner-status.timer 2>&1) == disabled ]] ||
  fail "tuner-status.timer: $(systemctl is-enabled tuner-status.timer 2>&1), not disabled"
[[ $(systemctl is-enabled tuner-restore.service 2>&1) == enabled ]] ||
  fail "tuner-restore.service: $(systemctl is-enabled tuner-restore.service 2>&1)"

step "the same again: nothing changes"
play "$work/second.log" "$(vars "$work/profiles/site-base.toml" "$work/profiles/site-gpu.toml")" ||
  { cat "$work/second.log"; fail "the second run failed"; }
recap "$work/second.log"
recap "$work/second.log" | grep -q 'changed=0 .*failed=0' ||
  { grep -E 'changed:' "$work/second.log"; fail "the second run changed something"; }

step "a profile tuner refuses takes no place"
play "$work/bad.log" "$(vars "$work/profiles/site-bad.toml")" &&
  { cat "$work/bad.log"; fail "a refused profile passed"; }
grep -q "vm.no_such_setting" "$work/bad.log" || { cat "$work/bad.log"; fail "tuner's reason is not shown"; }
[[ -e /etc/tuner/profiles/site-bad.toml ]] && fail "the refused profile was placed"
[[ -e /etc/tuner/profiles/site-gpu.toml ]] || fail "the good profiles went"
ls /tmp | grep -q 'tuner-profiles$\|tuner-install$' && fail "a staging directory was left in /tmp"
echo "ok: installed from the controller's .deb, profiles checked and placed, units set, idempotent"
