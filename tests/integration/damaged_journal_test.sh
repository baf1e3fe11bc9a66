# A damaged journal costs only the damaged line (issue #10), with the real binary on the
# real kernel in a private network namespace. A crash leaves a real journal; then every
# line of it is damaged in turn (cut short, garbage, a field of the wrong type), and
# each time: history lists the run and names file:line, status says it is unfinished,
# `rollback --abandon` works, and `rollback` restores every knob whose intent is intact
# and leaves a knob whose intent is damaged as it is (never a guessed value) and the
# run settled, so apply is not locked out.
source "$(dirname "$0")/lib.sh"
enter_netns "$@"
set -e

profile=$(write_profile it-damaged <<'P'
net.core.somaxconn = 8007
net.ipv4.tcp_fin_timeout = 34
net.ipv4.tcp_keepalive_probes = 7
P
)
KEYS="net.core.somaxconn net.ipv4.tcp_fin_timeout net.ipv4.tcp_keepalive_probes"
declare -A before crashed
for k in $KEYS; do before[$k]=$(sysctl_get "$k"); done

set +e
(TUNER_FAULT_AFTER_WRITES=3 exec "$TUNER" apply --state-dir "$STATE" --profile "$profile" --no-verify --yes >/dev/null 2>&1)
rc=$?
set -e
[ "$rc" = 137 ] || fail "expected the fault hook's SIGKILL, got $rc"
run=$(ls "$STATE/runs"); run=${run%.journal}
for k in $KEYS; do crashed[$k]=$(sysctl_get "$k"); done
cp -a "$STATE" "$WORK/pristine"
lines=$(wc -l < "$STATE/runs/$run.journal")
[ "$lines" -ge 5 ] || fail "journal too short: $(cat "$STATE/runs/$run.journal")"

# Sets up $STATE as the crashed run with line $1 damaged the way $2 says; prints the
# knob whose intent that line was (empty when it was no intent).
damaged() {
  for k in $KEYS; do echo "${crashed[$k]}" > "$(sysctl_file "$k")"; done
  rm -rf "$STATE"; cp -a "$WORK/pristine" "$STATE"
  python3 - "$STATE/runs/$run.journal" "$1" "$2" <<'PY'
import json, sys
path, n, how = sys.argv[1], int(sys.argv[2]), sys.argv[3]
lines = open(path).read().split("\n")
line = lines[n - 1]
rec = json.loads(line)
if how == "cut":
    lines[n - 1] = line[: len(line) // 2]
elif how == "garbage":
    lines[n - 1] = "\x01 not a record {"
else:
    for key in ("before", "knob", "kind", "decision"):
        if key in rec:
            rec[key] = 12345
            break
    lines[n - 1] = json.dumps(rec)
open(path, "w").write("\n".join(lines))
print(rec["knob"][len("sysctl:"):] if rec["type"] == "intent" else "")
PY
}

for n in $(seq 1 "$lines"); do
  for how in cut garbage type; do
    note "line $n: $how"
    lost=$(damaged "$n" "$how")
    expect_rc 0 t history
    grep -q "$run.journal:$n: damaged record skipped" <<<"$OUT" || fail "history does not name the line: $OUT"
    # A knob whose intent is damaged still counts as a change: never "2 changes, 3 done".
    counts=$(grep -o "[0-9]* changes\?, [0-9]* done" <<<"$OUT" | head -1)
    [ -n "$counts" ] || fail "history has no counts: $OUT"
    read -r nchanges _ ndone _ <<<"$counts"
    [ "$ndone" -le "$nchanges" ] || fail "history counts more done than changes: $counts"
    expect_rc 4 t status
    expect_rc 1 t apply --profile "$profile" --no-verify --yes
    grep -q "$run is unfinished" <<<"$OUT" || fail "$OUT"
    expect_rc 0 t rollback --abandon "$run"
    expect_rc 0 t history
    grep "^$run" <<<"$OUT" | grep -q abandoned || fail "$OUT"

    damaged "$n" "$how" >/dev/null
    # Exit 1 when something may not be back: a knob whose intent is lost, or a line
    # nobody can tell was not an intent. The line is named either way.
    set +e; OUT=$(t rollback 2>&1); rc=$?; set -e
    if [ -n "$lost" ]; then
      [ "$rc" = 1 ] || fail "rollback exit $rc with a lost intent: $OUT"
      grep -q "sysctl:$lost: could not restore: not restored: its before-value is lost" <<<"$OUT" ||
        grep -q "error: .*$run.journal:$n: damaged record skipped.*may not be restored" <<<"$OUT" ||
        fail "lost knob not reported: $OUT"
    elif [ "$rc" = 1 ]; then
      grep -q "error: .*$run.journal:$n: damaged record skipped.*may not be restored" <<<"$OUT" || fail "rollback exit 1: $OUT"
      [ "$how" != type ] || fail "a readable record made rollback fail: $OUT"
    else
      [ "$rc" = 0 ] || fail "rollback exit $rc: $OUT"
    fi
    grep -q "$run.journal:$n: damaged record skipped" <<<"$OUT" || fail "rollback does not name the line: $OUT"
    ! grep -q -e "? ->" -e "group  (" <<<"$OUT" || fail "rollback prints unknown values as '?': $OUT"
    for k in $KEYS; do
      want=${before[$k]}
      [ "$k" = "$lost" ] && want=${crashed[$k]}
      [ "$(sysctl_get "$k")" = "$want" ] || fail "$k: '$(sysctl_get "$k")', expected '$want' (lost: '$lost')"
    done
    expect_rc 0 t status   # settled: apply is not locked out
  done
done
for k in $KEYS; do echo "${before[$k]}" > "$(sysctl_file "$k")"; done
echo PASS
