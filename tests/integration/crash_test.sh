# Crash at every write: for k = 1..N, apply with TUNER_FAULT_AFTER_WRITES=k dies by
# SIGKILL right after its k-th knob write; apply then refuses to start, `tuner rollback`
# undoes the run from its journal alone, and every value under /proc/sys/net is
# exactly what it was. One round also tears the journal's last line, as a crash in the
# middle of an append would.
source "$(dirname "$0")/lib.sh"
enter_netns "$@"
set -e

profile=$(write_profile it-crash <<'P'
net.ipv4.tcp_rmem = 4096 87382 6291460
net.ipv4.tcp_wmem = 4096 16385 4194305
net.core.somaxconn = 8190
net.ipv4.ip_local_port_range = 20001 60998
net.ipv4.tcp_syn_retries = 5
net.ipv4.tcp_fin_timeout = 31
net.ipv4.tcp_keepalive_probes = 8
net.ipv4.tcp_tw_reuse = 1
P
)
N=$(grep -c '^"' "$profile")
snapshot_net > "$WORK/before"
snapshot_net > "$WORK/before2"
# Counters that move on their own would make the comparison meaningless: none here.
cmp -s "$WORK/before" "$WORK/before2" || fail "/proc/sys/net is not stable: $(diff "$WORK/before" "$WORK/before2")"
[ "$(wc -l < "$WORK/before")" -gt 100 ] || fail "snapshot too small"

for k in $(seq 1 "$N"); do
  note "crash after write $k of $N"
  set +e
  (TUNER_FAULT_AFTER_WRITES=$k exec "$TUNER" apply --state-dir "$STATE" --profile "$profile" --no-verify --yes >/dev/null 2>&1)
  rc=$?
  set -e
  [ "$rc" = 137 ] || fail "expected SIGKILL (137) after write $k, got $rc"
  run=$(ls "$STATE/runs" | sort | tail -1); run=${run%.journal}
  grep -q '"type":"end"' "$STATE/runs/$run.journal" && fail "crashed run $run has an end record"
  snapshot_net > "$WORK/crashed"
  cmp -s "$WORK/before" "$WORK/crashed" && fail "after write $k nothing had changed: the fault hook is not after a write"

  expect_rc 1 t apply --profile "$profile" --no-verify --yes
  grep -q "$run is unfinished" <<<"$OUT" && grep -q "tuner rollback" <<<"$OUT" || fail "apply did not refuse: $OUT"
  expect_rc 1 t restore

  if [ "$k" = 2 ]; then
    printf '{"type":"done","knob":"sysctl:net.ipv4.tcp_w' >> "$STATE/runs/$run.journal"  # torn
  fi
  expect_rc 0 t rollback
  grep -q "$run" <<<"$OUT" || fail "rollback did not name $run: $OUT"
  snapshot_net > "$WORK/after"
  diff "$WORK/before" "$WORK/after" || fail "after crash at write $k and rollback, /proc/sys/net differs"
  tail -1 "$STATE/runs/$run.journal" | grep -q '"status":"rolled_back"' || fail "no end record after rollback"
done

note "abandon: an unfinished run can be forgotten explicitly"
set +e
(TUNER_FAULT_AFTER_WRITES=1 exec "$TUNER" apply --state-dir "$STATE" --profile "$profile" --no-verify --yes >/dev/null 2>&1)
set -e
run=$(ls "$STATE/runs" | sort | tail -1); run=${run%.journal}
expect_rc 0 t rollback --abandon "$run"
expect_rc 0 t history
grep "$run" <<<"$OUT" | grep -q abandoned || fail "$OUT"
expect_rc 0 t apply --profile "$profile" --no-verify --yes   # no longer blocked
expect_rc 1 t rollback "$run"
grep -q "already abandoned" <<<"$OUT" || fail "$OUT"
echo PASS
