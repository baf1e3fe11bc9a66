# apply a profile of per-namespace sysctls, check the kernel, check idempotence, status,
# restore, then rollback --last: every value byte-for-byte as before.
source "$(dirname "$0")/lib.sh"
enter_netns "$@"
set -e

KEYS="net.ipv4.tcp_rmem net.core.somaxconn net.ipv4.ip_local_port_range
      net.ipv4.tcp_syn_retries net.ipv4.tcp_keepalive_time net.ipv6.conf.default.hop_limit"
declare -A before
for k in $KEYS; do before[$k]=$(sysctl_get "$k"); done

profile=$(write_profile it-sysctls <<'P'
net.ipv4.tcp_rmem = 4096 87381 6291459
net.core.somaxconn = 8191
net.ipv4.ip_local_port_range = 20000 60999
net.ipv4.tcp_syn_retries = 4
net.ipv4.tcp_keepalive_time = 600
net.ipv6.conf.default.hop_limit = 63
P
)

note "without --no-verify and without a benchmark: refused, nothing changed"
expect_rc 2 t apply --profile "$profile" --yes
grep -q "names no benchmark" <<<"$OUT" || fail "$OUT"
note "non-TTY without --yes: refused"
expect_rc 2 t apply --profile "$profile" --no-verify </dev/null
grep -q -- "--yes" <<<"$OUT" || fail "$OUT"
note "--root is refused"
expect_rc 2 t apply --profile "$profile" --no-verify --yes --root /
for k in $KEYS; do [ "$(sysctl_get "$k")" = "${before[$k]}" ] || fail "$k changed by a refused apply"; done
[ ! -e "$STATE/runs" ] || [ -z "$(ls "$STATE/runs")" ] || fail "a refused apply left a journal"

note "apply"
expect_rc 0 t apply --profile "$profile" --no-verify --yes --json --report "$WORK/report.json"
echo "$OUT" | head -5
[ "$(sysctl_get net.ipv4.tcp_rmem | tr -s '\t ' ' ')" = "4096 87381 6291459" ] || fail "tcp_rmem: $(sysctl_get net.ipv4.tcp_rmem)"
[ "$(sysctl_get net.core.somaxconn)" = 8191 ] || fail "somaxconn"
[ "$(sysctl_get net.ipv4.ip_local_port_range | tr -s '\t ' ' ')" = "20000 60999" ] || fail "port range"
[ "$(sysctl_get net.ipv4.tcp_syn_retries)" = 4 ] || fail "syn_retries"
[ "$(sysctl_get net.ipv6.conf.default.hop_limit)" = 63 ] || fail "hop_limit"
python3 - "$WORK/report.json" <<'PY' || fail "bad tuner.run/1 report"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["schema"] == "tuner.run/1" and r["changed"] is True and r["run_id"], r
changes = [c for g in r["groups"] for c in g["changes"]]
assert all(g["decision"] == "applied" for g in r["groups"]), r
assert len(changes) >= 5 and all(c["status"] == "applied" for c in changes), changes
assert r["errors"] == [], r
PY
st=$(stat -c %a "$STATE"); [ "$st" = 700 ] || fail "state dir mode $st"

note "idempotent: second apply changes nothing and writes no run"
runs_before=$(ls "$STATE/runs" | wc -l)
expect_rc 0 t apply --profile "$profile" --no-verify --yes
grep -q "nothing to change" <<<"$OUT" || fail "$OUT"
[ "$(ls "$STATE/runs" | wc -l)" = "$runs_before" ] || fail "idempotent apply wrote a journal"

note "status: no drift, then drift (exit 3), then restore"
expect_rc 0 t status
echo 7 > "$(sysctl_file net.ipv4.tcp_syn_retries)"
expect_rc 3 t status --json
grep -q '"drift": 1' <<<"$OUT" || fail "$OUT"
expect_rc 0 t restore
[ "$(sysctl_get net.ipv4.tcp_syn_retries)" = 4 ] || fail "restore did not re-apply syn_retries"
expect_rc 0 t status

note "history"
expect_rc 0 t history
grep -q "finished" <<<"$OUT" || fail "$OUT"

note "rollback --last undoes the apply, not the boot-time restore run after it"
apply_run=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_id"])' "$WORK/report.json")
expect_rc 0 t rollback --last --json
grep -q "\"run_id\": \"$apply_run\"" <<<"$OUT" || fail "--last did not pick the apply run: $OUT"
for k in $KEYS; do
  [ "$(sysctl_get "$k")" = "${before[$k]}" ] || fail "$k: '$(sysctl_get "$k")' != '${before[$k]}'"
done
grep -q '"knobs": {}' "$STATE/state.json" || fail "state.json still keeps knobs: $(cat "$STATE/state.json")"
expect_rc 1 t rollback "$apply_run"
grep -q "already rolled_back" <<<"$OUT" || fail "$OUT"
expect_rc 2 t rollback
grep -q "no unfinished run" <<<"$OUT" || fail "$OUT"
expect_rc 2 t rollback ../../etc
echo PASS
