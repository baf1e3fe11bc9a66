# No lockout, ever (issue #10), on the real kernel in a private network namespace:
#  - a read-only sysctl: never written (a plan note in a child namespace; exit 2 in
#    the initial one: plan_refuses_test.sh checks that on a --root tree);
#  - a value the kernel refuses mid-group: apply fails cleanly, its own rollback
#    restores only what was written, and the run is not left rollback_failed;
#  - an interface deleted after apply: restore and rollback report its knobs gone and
#    complete;
#  - a value changed by hand after apply: status shows it, rollback leaves it (exit 3),
#    --force restores it;
#  - an unfinished run: status exits 4;
#  - garbage in state.json: the error names 'tuner state rebuild', which mends it;
#  - a knob id in state.json that does not parse: restore skips it, rebuild drops it.
source "$(dirname "$0")/lib.sh"
enter_netns "$@"
set -e
command -v ip >/dev/null || skip "no ip (iproute2)"
ip link set lo up

# Each knob's latest rollback status in a run's journal, "knob status" per line.
rollback_records() {
  python3 - "$STATE/runs/$1.journal" <<'PY'
import json, sys
last = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["type"] == "rollback":
        last[r["knob"]] = r["status"]
for k, s in sorted(last.items()):
    print(k, s)
PY
}
end_status() { grep '"type":"end"' "$STATE/runs/$1.journal" | tail -1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["status"])'; }
newest_run() { local r; r=$(ls "$STATE/runs" | sort | tail -1); echo "${r%.journal}"; }

somax0=$(sysctl_get net.core.somaxconn)
syn0=$(sysctl_get net.ipv4.tcp_syn_retries)
fin0=$(sysctl_get net.ipv4.tcp_fin_timeout)
cc0=$(sysctl_get net.ipv4.tcp_available_congestion_control)

note "a read-only sysctl in the group: never written (here, outside the initial namespace, a plan note)"
[ ! -w "$(sysctl_file net.ipv4.tcp_available_congestion_control)" ] || [ "$(stat -c %a "$(sysctl_file net.ipv4.tcp_available_congestion_control)")" = 444 ] || skip "tcp_available_congestion_control is writable here"
profile=$(write_profile it-readonly <<'P'
net.core.somaxconn = 8003
net.ipv4.tcp_available_congestion_control = reno
net.ipv4.tcp_fin_timeout = 33
P
)
expect_rc 0 t plan --profile "$profile"
grep -q "tcp_available_congestion_control: read-only in this network namespace" <<<"$OUT" || fail "no note: $OUT"
expect_rc 0 t apply --profile "$profile" --no-verify --yes --json
[ "$(sysctl_get net.ipv4.tcp_available_congestion_control)" = "$cc0" ] || fail "read-only sysctl changed?"
[ "$(sysctl_get net.core.somaxconn)" = 8003 ] || fail "somaxconn not applied"
expect_rc 0 t rollback --last
[ "$(sysctl_get net.core.somaxconn)" = "$somax0" ] || fail "somaxconn not put back"
[ "$(sysctl_get net.ipv4.tcp_fin_timeout)" = "$fin0" ] || fail "fin_timeout not put back"

note "a value the kernel rejects mid-group: apply fails cleanly, nothing restored that was not written"
# tcp_syn_retries is at most 127: the kernel's EINVAL, which tuner's table does not
# know in advance. The knobs are written in id order: somaxconn, syn_retries, then
# window_scaling, whose intent is journaled with the group's but never written.
win0=$(sysctl_get net.ipv4.tcp_window_scaling)
win1=$((1 - win0))
profile=$(write_profile it-einval <<P
net.core.somaxconn = 8004
net.ipv4.tcp_syn_retries = 1000
net.ipv4.tcp_window_scaling = $win1
P
)
expect_rc 1 t apply --profile "$profile" --no-verify --yes --json
run=$(newest_run)
grep -q "Invalid argument" <<<"$OUT" || fail "no reason given: $OUT"
records=$(rollback_records "$run")
grep -q "^sysctl:net.ipv4.tcp_syn_retries not_applied$" <<<"$records" || fail "the rejected knob was 'restored': $records"
grep -q "^sysctl:net.core.somaxconn restored$" <<<"$records" || fail "somaxconn: $records"
grep -q "^sysctl:net.ipv4.tcp_window_scaling not_applied$" <<<"$records" || fail "window_scaling was 'restored': $records"
[ "$(end_status "$run")" = rolled_back ] || fail "run ended $(end_status "$run")"
[ "$(sysctl_get net.ipv4.tcp_syn_retries)" = "$syn0" ] || fail "syn_retries changed"
[ "$(sysctl_get net.core.somaxconn)" = "$somax0" ] || fail "somaxconn not put back"
[ "$(sysctl_get net.ipv4.tcp_window_scaling)" = "$win0" ] || fail "window_scaling changed"
python3 - "$OUT" <<'PY' || fail "bad report: $OUT"
import json, sys
r = json.loads(sys.argv[1])
st = {c["knob"]: c["status"] for g in r["groups"] for c in g["changes"]}
assert st["sysctl:net.ipv4.tcp_syn_retries"] == "failed", st
assert st["sysctl:net.core.somaxconn"] == "rolled_back", st
assert not any("could not restore" in e["message"] for e in r["errors"]), r["errors"]
PY
expect_rc 0 t status   # no unfinished run, nothing kept
expect_rc 0 t history

note "an interface deleted after apply: its knobs are gone, rollback completes"
ip link add tv0 type veth peer name tv1
profile=$(write_profile it-gone <<'P'
net.core.somaxconn = 8005
net.ipv4.conf.tv0.forwarding = 1
net.ipv6.conf.tv0.hop_limit = 33
P
)
expect_rc 0 t apply --profile "$profile" --no-verify --yes
run=$(newest_run)
[ "$(sysctl_get net.ipv6.conf.tv0.hop_limit)" = 33 ] || fail "hop_limit not applied"
ip link del tv0
expect_rc 3 t status --json
python3 - "$OUT" <<'PY' || fail "status does not show the gone knobs: $OUT"
import json, sys
s = json.loads(sys.argv[1])
st = {k["knob"]: k["state"] for k in s["knobs"]}
assert st["sysctl:net.ipv6.conf.tv0.hop_limit"] == "gone", st
assert st["sysctl:net.core.somaxconn"] == "ok", st
PY
# restore (at boot) puts back what it can; the gone knobs do not stop it.
echo 4001 > "$(sysctl_file net.core.somaxconn)"
expect_rc 0 t restore --json
python3 - "$OUT" <<'PY' || fail "restore report: $OUT"
import json, sys
r = json.loads(sys.argv[1])
st = {c["knob"]: c["status"] for g in r["groups"] for c in g["changes"]}
assert st["sysctl:net.ipv6.conf.tv0.hop_limit"] == "gone", st
assert st["sysctl:net.ipv4.conf.tv0.forwarding"] == "gone", st
assert st["sysctl:net.core.somaxconn"] == "applied", st
assert r["errors"] == [], r
PY
[ "$(sysctl_get net.core.somaxconn)" = 8005 ] || fail "restore did not put somaxconn back"
expect_rc 0 t rollback --last --json
python3 - "$OUT" <<'PY' || fail "rollback report: $OUT"
import json, sys
r = json.loads(sys.argv[1])
st = {c["knob"]: c["status"] for g in r["groups"] for c in g["changes"]}
assert st["sysctl:net.ipv6.conf.tv0.hop_limit"] == "gone", st
assert st["sysctl:net.ipv4.conf.tv0.forwarding"] == "gone", st
assert st["sysctl:net.core.somaxconn"] == "restored", st
assert r["errors"] == [], r
PY
[ "$(sysctl_get net.core.somaxconn)" = "$somax0" ] || fail "somaxconn not restored"
[ "$(end_status "$run")" = rolled_back ] || fail "run ended $(end_status "$run")"
expect_rc 0 t status
grep -q "no kept settings" <<<"$OUT" || fail "gone knobs still kept: $OUT"

note "a value changed by hand after apply: status shows it, rollback leaves it, --force restores it"
profile=$(write_profile it-edit <<'P'
net.core.somaxconn = 8006
net.ipv4.tcp_syn_retries = 4
P
)
expect_rc 0 t apply --profile "$profile" --no-verify --yes
run=$(newest_run)
echo 7 > "$(sysctl_file net.ipv4.tcp_syn_retries)"
expect_rc 3 t status
grep -q "sysctl:net.ipv4.tcp_syn_retries: kept 4, live 7 (changed since run $run set it)" <<<"$OUT" || fail "status: $OUT"
expect_rc 3 t rollback --last
grep -q "changed_since" <<<"$OUT" && grep -q -- "--force" <<<"$OUT" || fail "rollback did not report the edit: $OUT"
[ "$(sysctl_get net.ipv4.tcp_syn_retries)" = 7 ] || fail "rollback overwrote the operator's value"
[ "$(sysctl_get net.core.somaxconn)" = "$somax0" ] || fail "somaxconn not restored"
[ "$(end_status "$run")" = rolled_back ] || fail "run ended $(end_status "$run")"
expect_rc 0 t status   # tuner no longer keeps it: restore would not write over the edit
expect_rc 0 t restore
[ "$(sysctl_get net.ipv4.tcp_syn_retries)" = 7 ] || fail "restore wrote over the operator's value"
expect_rc 0 t history
grep "$run" <<<"$OUT" | grep -q "1 left as changed" || fail "history: $OUT"
expect_rc 0 t rollback --last --force
[ "$(sysctl_get net.ipv4.tcp_syn_retries)" = "$syn0" ] || fail "--force did not restore"
expect_rc 1 t rollback "$run" --force
grep -q "already rolled_back" <<<"$OUT" || fail "$OUT"

note "an unfinished run: status exits 4 and says how to settle it"
profile=$(write_profile it-unfinished <<'P'
net.core.somaxconn = 8009
net.ipv4.tcp_syn_retries = 4
P
)
set +e
(TUNER_FAULT_AFTER_WRITES=1 exec "$TUNER" apply --state-dir "$STATE" --profile "$profile" --no-verify --yes >/dev/null 2>&1)
set -e
run=$(newest_run)
expect_rc 4 t status
grep -q "unfinished run $run" <<<"$OUT" && grep -q "rollback --abandon $run" <<<"$OUT" || fail "status: $OUT"
expect_rc 4 t status --json
grep -q "\"unfinished_run\": \"$run\"" <<<"$OUT" || fail "$OUT"
expect_rc 0 t rollback

note "garbage in state.json: the error names the way out, and it works"
profile=$(write_profile it-garbage <<'P'
net.core.somaxconn = 8010
net.ipv4.tcp_syn_retries = 4
P
)
expect_rc 0 t apply --profile "$profile" --no-verify --yes
run=$(newest_run)
cp "$STATE/state.json" "$WORK/state.good"
printf 'garbage{' > "$STATE/state.json"
other=$(write_profile it-other <<<"net.core.somaxconn = 8008")
for cmd in "apply --profile $other --no-verify --yes" status restore "rollback --last"; do
  expect_rc 1 t $cmd
  grep -q "tuner state rebuild" <<<"$OUT" || fail "$cmd: no way out named: $OUT"
done
# (rollback --last ran: its knobs went back and state.json stayed garbage; apply again.)
[ "$(sysctl_get net.core.somaxconn)" = "$somax0" ] || fail "rollback did not restore with a bad state.json"
expect_rc 0 t state rebuild
grep -q "state.json.bad-" <<<"$OUT" || fail "$OUT"
[ "$(cat "$STATE"/state.json.bad-*)" = "garbage{" ] || fail "the damaged file was not kept"
expect_rc 0 t status
grep -q "no kept settings" <<<"$OUT" || fail "$OUT"
expect_rc 0 t apply --profile "$profile" --no-verify --yes
cp "$STATE/state.json" "$WORK/state.good"
printf '{"schema":"tuner.state/1","knobs":{"sysctl:net.core.somaxconn":{"value":8010}}}' > "$STATE/state.json"
expect_rc 1 t status
grep -q "is not a string" <<<"$OUT" && grep -q "tuner state rebuild" <<<"$OUT" || fail "$OUT"
expect_rc 0 t state rebuild
python3 - "$STATE/state.json" "$WORK/state.good" <<'PY' || fail "rebuilt state.json differs"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a == b, (a, b)
PY
expect_rc 0 t status
expect_rc 0 t rollback --last
[ "$(sysctl_get net.core.somaxconn)" = "$somax0" ] || fail "somaxconn"
[ "$(sysctl_get net.ipv4.tcp_syn_retries)" = "$syn0" ] || fail "syn_retries"

note "a knob id that does not parse: restore skips it and restores the rest; rebuild drops it"
expect_rc 0 t apply --profile "$profile" --no-verify --yes
run=$(newest_run)
bad_id='sysctl:net..core/../x'
python3 - "$STATE/state.json" "$bad_id" "$run" <<'PY'
import json, sys
path, bad, run = sys.argv[1:]
s = json.load(open(path))
s["knobs"][bad] = {"value": "1", "before": "0", "run_id": run, "group": "sysctl"}
json.dump(s, open(path, "w"))
PY
# The same id in the run's journal, written and kept by its group: a damaged journal.
python3 - "$STATE/runs/$run.journal" "$bad_id" <<'PY'
import json, sys
path, bad = sys.argv[1:]
lines = open(path).read().splitlines(True)
at = next(i for i, l in enumerate(lines) if json.loads(l)["type"] == "decision")
extra = [json.dumps({"type": "intent", "knob": bad, "group": json.loads(lines[at])["group"],
                     "before": "0", "after": "1"}) + "\n",
         json.dumps({"type": "done", "knob": bad, "readback": "1"}) + "\n"]
open(path, "w").write("".join(lines[:at] + extra + lines[at:]))
PY
echo 4096 >"$(sysctl_file net.core.somaxconn)"  # drift, for restore to mend
expect_rc 0 t restore
[ "$(sysctl_get net.core.somaxconn)" = 8010 ] || fail "restore did not restore the good knob: $OUT"
grep -q "$bad_id" <<<"$OUT" && grep -q "not a knob id" <<<"$OUT" || fail "restore: bad id not reported: $OUT"
expect_rc 3 t status
grep -q "not a knob id" <<<"$OUT" || fail "status: $OUT"
expect_rc 0 t state rebuild
grep -q "damaged record skipped" <<<"$OUT" || fail "rebuild did not report the damaged records: $OUT"
! grep -qF "$bad_id" "$STATE/state.json" || fail "state rebuild copied the bad id"
expect_rc 0 t status
echo PASS
