#!/usr/bin/env bash
# packaging/debian/postrm's purge decision, on state directories made here, without
# installing the package (packaging/deb_test.sh does that where it can run): purge must
# refuse while a run is unfinished (its journal is the only record of the values to put
# back) or state.json records kept settings, and go through otherwise.
#   postrm_test.sh          (CTest package/postrm; no root needed)
# The script runs as it ships, but for its two paths (/var/lib/tuner, /etc/tuner),
# pointed into a temporary directory, and deb-systemd-helper and systemctl, which are
# stubs here.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: package/postrm: $*"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The script with its paths moved; each must have been found, or the test would purge
# nothing of its own.
sed -e "s|^state=/var/lib/tuner\$|state=$work/state|" -e "s|/etc/tuner|$work/etc/tuner|g" \
  "$here/postrm" >"$work/postrm"
grep -qx "state=$work/state" "$work/postrm" || fail "postrm no longer sets state=/var/lib/tuner"
! grep -v '^ *#' "$work/postrm" | grep -q '/var/lib/tuner\|\(^\|[ "=]\)/etc/tuner' || fail "postrm names a path this test does not move"
mkdir -p "$work/bin"
printf '#!/bin/sh\nexit 0\n' >"$work/bin/deb-systemd-helper"
cp "$work/bin/deb-systemd-helper" "$work/bin/systemctl"
chmod +x "$work/bin/"*

# state NAME: a fresh state dir; purge EXPECTED: runs postrm purge, checks its status.
fresh() {
  rm -rf "$work/state" "$work/etc"
  mkdir -p "$work/state/runs" "$work/etc/tuner/profiles"
  echo '{"knobs": {}, "schema": "tuner.state/1"}' >"$work/state/state.json"
}
purge() {
  PATH=$work/bin:/usr/bin:/bin sh "$work/postrm" purge >"$work/out" 2>&1
  local rc=$?
  [ "$rc" = "$1" ] || fail "$2: purge exited $rc, expected $1: $(cat "$work/out")"
}
begin='{"kind":"apply","pid":1,"profiles":["p"],"run_id":"20261201T000000Z-0001","time":"2026-12-01T00:00:00Z","type":"begin"}'
intent='{"after":"8192","before":"4096","group":"sysctl","knob":"sysctl:net.core.somaxconn","type":"intent"}'
end='{"status":"finished","time":"2026-12-01T00:00:01Z","type":"end"}'

fresh
printf '%s\n%s\n' "$begin" "$intent" >"$work/state/runs/20261201T000000Z-0001.journal"
purge 1 "a crashed apply (no end record)"
grep -q "not purging $work/state: run(s) 20261201T000000Z-0001 are unfinished" "$work/out" ||
  fail "the refusal names no run: $(cat "$work/out")"
grep -q "tuner rollback" "$work/out" || fail "the refusal names no way out"
[ -f "$work/state/runs/20261201T000000Z-0001.journal" ] || fail "the refused purge deleted the journal"

fresh
printf '%s\n%s\n%s\n{"time":"2026-12-01T00:00:02Z","type":"rollback_begin"}\n' "$begin" "$intent" "$end" \
  >"$work/state/runs/20261201T000000Z-0002.journal"
printf '%s\n%s\n' "$begin" "$end" >"$work/state/runs/20261201T000000Z-0001.journal"
purge 1 "a rollback that stopped half way (rollback_begin after the end)"
grep -q "run(s) 20261201T000000Z-0002 are unfinished" "$work/out" || fail "$(cat "$work/out")"

fresh
printf '%s\n%s\n%s\n' "$begin" "$intent" "$end" >"$work/state/runs/20261201T000000Z-0001.journal"
cat >"$work/state/state.json" <<'EOF'
{"knobs": {"sysctl:net.core.somaxconn": {"before": "4096", "group": "sysctl",
  "run_id": "20261201T000000Z-0001", "value": "8192"}}, "schema": "tuner.state/1"}
EOF
purge 1 "kept settings"
grep -q "it records settings tuner kept" "$work/out" || fail "$(cat "$work/out")"

fresh
printf '%s\n%s\n%s\n' "$begin" "$intent" "$end" >"$work/state/runs/20261201T000000Z-0001.journal"
# A spaced journal line, as a person might have left it, still ends the run.
printf '%s\n{"type": "end", "status": "rolled_back"}\n' "$begin" >"$work/state/runs/20261201T000000Z-0003.journal"
purge 0 "finished runs, nothing kept"
[ ! -e "$work/state" ] || fail "purge left the state directory"
[ ! -e "$work/etc/tuner" ] || fail "purge left the empty /etc/tuner"

fresh
rmdir "$work/state/runs"
purge 0 "a state directory without runs"
echo "PASS: package/postrm"
