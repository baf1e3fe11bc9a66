#!/usr/bin/env bash
# Interface names the kernel allows and a terminal or JSON must not take raw: bytes that
# are not UTF-8 and an ESC, on a real veth pair in a private network namespace whose
# sysfs is mounted afresh (so /sys/class/net shows this namespace's interfaces). probe
# --json stays JSON (U+FFFD for the bad bytes, the ESC escaped), text output shows the
# bytes as \xNN, plan names the NIC in a note instead of planning a knob no id can
# name, and apply changes nothing for it.
source "$(dirname "$0")/lib.sh"
if [ -z "${TUNER_IN_MNTNS:-}" ] && [ "$(id -u)" = 0 ]; then
  unshare -m true 2>/dev/null || skip "unshare -m failed"
  TUNER_IN_MNTNS=1 exec unshare -m bash "$0" "$@"
fi
enter_netns "$@"
set -eo pipefail
mount -t sysfs sysfs /sys || skip "cannot mount a fresh sysfs here"
odd=$(printf 've\377\033x') peer=$(printf 'vp\376')
ip link add name "$odd" type veth peer name "$peer" || skip "this kernel refuses such names"

note "probe --json: valid JSON, the names with U+FFFD and an escaped ESC"
"$TUNER" probe --json >"$WORK/probe.json"
python3 - "$WORK/probe.json" <<'PY'
import json, sys
raw = open(sys.argv[1], 'rb').read()
assert b'\x1b' not in raw and b'\xff' not in raw, 'raw bytes in the JSON'
names = [n['name'] for n in json.load(open(sys.argv[1]))['nics']]
assert 've\ufffd\x1bx' in names and 'vp\ufffd' in names, names
PY

note "text output: the bytes shown as \\xNN, no ESC reaches the terminal"
"$TUNER" probe --color never >"$WORK/probe.txt"
grep -aq 've\\xff\\x1bx' "$WORK/probe.txt" || fail "no escaped name in: $(grep -a ve "$WORK/probe.txt")"
if grep -q $'\x1b' "$WORK/probe.txt"; then fail "a raw ESC in the text output"; fi

note "plan: a note instead of a knob no id can name; apply changes nothing for it"
printf '[profile]\nname = "odd"\n[nic."v*"]\nautoneg = true\n' >"$WORK/odd.toml"
"$TUNER" plan --json --profile "$WORK/odd.toml" >"$WORK/plan.json"
python3 - "$WORK/plan.json" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
assert not [c for c in plan['changes'] if c['knob'].startswith('nic:v')], plan['changes']
assert sum('no knob can name it' in n for n in plan['notes']) == 2, plan['notes']
PY
before=$(snapshot_net)
t apply --profile "$WORK/odd.toml" --no-verify --yes >"$WORK/apply.txt" 2>&1 || fail "$(cat "$WORK/apply.txt")"
if grep -q $'\x1b' "$WORK/apply.txt"; then fail "a raw ESC in apply's output"; fi
[ "$(snapshot_net)" = "$before" ] || fail "apply changed the namespace"
echo "PASS: odd_ifname"
