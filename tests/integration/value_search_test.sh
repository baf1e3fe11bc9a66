# A value search through the binary, on the real kernel in a private network namespace:
# net.ipv4.ip_default_ttl searched over four candidates with an exec benchmark whose
# throughput rises only at one of them (a shell reading the sysctl; 2% noise).
#  1. The helpful value is found, confirmed and kept; tuner.run/1 carries the race; the
#     journal lists every candidate written; rollback puts every net.* sysctl back.
#  2. No candidate helps: nothing is kept, every net.* sysctl as before the run.
#  3. tuner plan shows the candidates, the design and the worst-case runs; --no-verify
#     refuses a profile that searches.
#  4. SIGKILL after every knob write of a search (TUNER_FAULT_AFTER_WRITES): `tuner
#     rollback` restores every net.* sysctl from the journal alone.
#  5. SIGTERM in the middle of screening: exit 143, the run rolled back, every net.*
#     sysctl as before.
source "$(dirname "$0")/lib.sh"
enter_netns "$@"
set -e
ip link set lo up
ttl=net.ipv4.ip_default_ttl
[ "$(sysctl_get $ttl)" = 64 ] || echo 64 > "$(sysctl_file $ttl)"

# The benchmark: 1000 ops/s with 2% noise, 15% more when the ttl is $1.
cat > "$WORK/ttl-bench.sh" <<'B'
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
awk -v t="$(cat /proc/sys/net/ipv4/ip_default_ttl)" -v best="$1" -v s="$seed" 'BEGIN {
  srand(s); z = 0; for (i = 0; i < 12; i++) z += rand()
  v = 1000 * (1 + 0.02 * (z - 6)); if (t == best) v *= 1.15
  printf "%d ops\n", v }'
B

# $1: the profile's name; $2: the ttl at which throughput is 15% higher ("none");
# $3: the benchmark script (default ttl-bench.sh).
search_profile() {
  local name=$1 best=$2 f="$WORK/$1.toml" bench=${3:-$WORK/ttl-bench.sh}
  cat > "$f" <<P
[profile]
name = "$name"

[sysctl]
"net.ipv4.ip_default_ttl" = { search = [61, 62, 63, 65] }

[verify]
bench = ["ttl"]
min_effect = 0.02
max_trials = 20

[bench.ttl]
kind = "exec"
command = ["/bin/sh", "$bench", "$best"]
metric = { regex = "([0-9]+) ops" }
unit = "ops/s"
timeout = "5s"
P
  echo "$f"
}

note "3. tuner plan: the candidates, the design, the worst case"
found=$(search_profile found 62)
expect_rc 0 t plan --profile "$found"
grep -q "candidates: 61, 62, 63, 65" <<<"$OUT" || fail "plan text: $OUT"
grep -q "interleaved design, at most 65 benchmark runs" <<<"$OUT" || fail "plan text: $OUT"
expect_rc 0 t plan --profile "$found" --json
jq -e '.searches[0] | .setting == "sysctl:net.ipv4.ip_default_ttl" and (.candidates | length) == 4 and .worst_case_runs == 65' \
  <<<"$OUT" >/dev/null || fail "plan json: $OUT"

note "   --no-verify cannot search: exit 2, nothing changed"
expect_rc 2 t apply --profile "$found" --yes --no-verify
grep -q "only the verify loop can choose a value" <<<"$OUT" || fail "$OUT"
[ "$(sysctl_get $ttl)" = 64 ] || fail "ttl changed by a refused apply"

note "1. one helpful candidate: found, confirmed, kept; rollback restores everything"
before=$(snapshot_net)
expect_rc 0 t apply --profile "$found" --yes --json --report "$WORK/found.json"
jq -e '.groups[0].decision == "kept" and .groups[0].stats.search.chosen == "62"' "$WORK/found.json" >/dev/null ||
  fail "not kept at 62: $(jq -c '.groups[0].stats.search' "$WORK/found.json")"
jq -e '.groups[0].stats.search.confirm.verdict == "keep" and (.groups[0].stats.search.candidates | length) == 4' \
  "$WORK/found.json" >/dev/null || fail "search report: $(jq -c '.groups[0].stats.search' "$WORK/found.json")"
[ "$(sysctl_get $ttl)" = 62 ] || fail "ttl after keep: $(sysctl_get $ttl)"
note "   $(jq -c '.groups[0].stats.search | {chosen, blocks, confirm}' "$WORK/found.json")"
src=${TUNER_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
if python3 -c 'import jsonschema' 2>/dev/null; then
  python3 "$src/tests/schema/validate.py" "$WORK/found.json" || fail "found.json does not match tuner.run/1"
  t plan --profile "$found" --json > "$WORK/plan.json"
  python3 "$src/tests/schema/validate.py" "$WORK/plan.json" || fail "plan.json does not match tuner.plan/1"
fi
journal=$(ls "$STATE"/runs/*.journal | tail -1)
for v in 61 62 63 65; do
  grep -q "\"type\":\"intent\".*\"after\":\"$v\"" "$journal" || grep -q "\"after\":\"$v\".*\"type\":\"intent\"" "$journal" ||
    fail "no intent for candidate $v in $journal"
done
expect_rc 0 t rollback --last
[ "$(snapshot_net)" = "$before" ] || fail "rollback left net.* changed: $(diff <(echo "$before") <(snapshot_net) | head)"

note "2. no candidate helps: nothing kept, nothing changed"
none=$(search_profile none none)
expect_rc 0 t apply --profile "$none" --yes --json --report "$WORK/none.json"
jq -e '.groups[0].decision == "rolled_back"' "$WORK/none.json" >/dev/null ||
  fail "kept with no helpful candidate: $(jq -c '.groups[0].stats.search' "$WORK/none.json")"
[ "$(snapshot_net)" = "$before" ] || fail "net.* changed: $(diff <(echo "$before") <(snapshot_net) | head)"
note "   $(jq -c '.groups[0].stats | {outcome, search: .search | {chosen, blocks, confirm}}' "$WORK/none.json")"
note "4. a crash at every write of a search (the first 40, then every 4th): rollback restores every net.* sysctl"
k=1
while :; do
  set +e
  (TUNER_FAULT_AFTER_WRITES=$k exec "$TUNER" apply --state-dir "$STATE" --profile "$found" --yes >/dev/null 2>&1) 2>/dev/null
  rc=$?
  set -e
  if [ "$rc" = 0 ]; then
    expect_rc 0 t rollback --last
    [ "$(snapshot_net)" = "$before" ] || fail "rollback after a whole run left net.* changed"
    break
  fi
  [ "$rc" = 137 ] || fail "TUNER_FAULT_AFTER_WRITES=$k: exit $rc, expected SIGKILL"
  expect_rc 0 t rollback --last
  [ "$(snapshot_net)" = "$before" ] || fail "crash after write $k: rollback left net.* changed: $(diff <(echo "$before") <(snapshot_net) | head -4)"
  [ "$k" -lt 400 ] || fail "the run never finished"
  k=$(( k < 40 ? k + 1 : k + 4 ))
done
note "   crashed after each of writes 1..$((k - 1)) (then a run of fewer writes finished); each rolled back to the snapshot"

note "5. SIGTERM while the candidates are screened: exit 143, everything put back"
cat > "$WORK/slow-bench.sh" <<B
echo run >> "$WORK/runs"
sleep 0.2
exec /bin/sh "$WORK/ttl-bench.sh" "\$1"
B
slow=$(search_profile slow 62 "$WORK/slow-bench.sh")
rm -f "$WORK/runs"
"$TUNER" apply --state-dir "$STATE" --color never --profile "$slow" --yes --json \
  --report "$WORK/term.json" > "$WORK/term.out" 2> "$WORK/term.err" &
pid=$!
# Block 2 of the screening: five arms ran once, the baseline and four candidates.
for _ in $(seq 300); do
  [ "$(wc -l < "$WORK/runs" 2>/dev/null || echo 0)" -ge 7 ] && break
  sleep 0.1
done
[ "$(wc -l < "$WORK/runs")" -ge 7 ] || fail "the screening never reached its second block: $(cat "$WORK/term.err")"
kill -TERM "$pid"
set +e
wait "$pid"
rc=$?
set -e
[ "$rc" = 143 ] || fail "SIGTERM in screening: exit $rc, expected 143: $(cat "$WORK/term.err")"
[ "$(snapshot_net)" = "$before" ] || fail "SIGTERM in screening left net.* changed: $(diff <(echo "$before") <(snapshot_net) | head -4)"
jq -e '.groups[0].decision == "rolled_back" and (.errors[0].message | test("interrupted by SIGTERM"))' \
  "$WORK/term.json" > /dev/null || fail "report: $(jq -c '{groups: [.groups[].decision], errors}' "$WORK/term.json")"
journal=$(ls "$STATE"/runs/*.journal | tail -1)
[ "$(grep -c '"type":"intent"' "$journal")" -ge 4 ] || fail "fewer than 4 candidate intents before the signal: $journal"
expect_rc 0 t status  # no unfinished run
note "   stopped after $(wc -l < "$WORK/runs") benchmark runs"
echo PASS
