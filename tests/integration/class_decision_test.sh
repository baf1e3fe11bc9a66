# Class decisions on the real kernel (docs/fleet-decisions.md), each node its own network
# namespace (ip netns exec: net.* sysctls are per namespace), all of one class:
#  1. two canaries with crippled TCP verify a profile with --decisions-out: the buffers
#     group is kept on both (a real gain), fin_timeout rolled back (nothing to gain),
#     ttl kept as neutral (keep_if_neutral, measured: no harm), and a bench = [] group
#     synack kept by its soak alone (not_measurable_kept, or soak_undecided: the
#     canaries carry no workload traffic then);
#  2. tuner report merges their records into tuner.decisions/1: buffers kept through
#     the class check, synack `unmeasured` (no class evidence); one canary's record
#     under two names counts once;
#  3. a third node reuses it: buffers and ttl written with no benchmark trial (soak
#     only), fin_timeout never written, synack decided by the node's own soak; with
#     --require-decision synack is not written;
#  3b. a node whose ttl starts at 50 (the canaries started at 64) verifies ttl itself,
#     and the report says why; the buffers, started alike, are still reused;
#  4. a fourth node where the soak trips (nftables drops 1% of TTL-63 segments under
#     iperf3 traffic): ttl put back there alone, the class decision marked suspect, and
#     the fleet report names the class and the node;
#  5. --require-decision for another class, an untrusted or malformed decision file,
#     and --decisions with --decisions-out: exit 2, nothing changed.
source "$(dirname "$0")/lib.sh"
enter_netns "$@"
set -e
command -v jq >/dev/null || skip "jq is not installed"
command -v ip >/dev/null || skip "ip (iproute2) is not installed"
ip link set lo up

NAMESPACES=()
cleanup() {
  local ns
  [ -n "${client:-}" ] && kill "$client" 2>/dev/null
  for ns in "${NAMESPACES[@]}"; do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
    ip netns del "$ns" 2>/dev/null
  done
  [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT

# node NAME: a namespace with lo up and TCP crippled by tiny buffers.
node() {
  local ns=tuner-cls-$$-$1
  ip netns add "$ns"
  NAMESPACES+=("$ns")
  ip netns exec "$ns" ip link set lo up
  ip netns exec "$ns" sh -c 'echo "4096 4096 4096" > /proc/sys/net/ipv4/tcp_rmem; echo "4096 4096 4096" > /proc/sys/net/ipv4/tcp_wmem'
}
# on NAME CMD...: runs CMD in NAME's namespace.
on() { local ns=tuner-cls-$$-$1; shift; ip netns exec "$ns" "$@"; }
# tn NAME SUBCOMMAND ARGS...: tuner in NAME's namespace, with NAME's own state dir.
# Each in its own UTS namespace named NAME: a record names its node by machine-id and
# hostname, and the namespaces share this host's machine-id.
tn() {
  local n=$1; shift
  on "$n" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$n" \
    "$TUNER" "$1" --state-dir "$WORK/state-$n" --color never "${@:2}"
}
sysctl_on() { on "$1" cat "/proc/sys/$(echo "$2" | tr . /)" | tr -s '\t ' ' '; }

mkdir -p "$WORK/canaries"
profile="$WORK/classy.toml"
cat >"$profile" <<'P'
[profile]
name = "classy"

[sysctl]
"net.ipv4.tcp_rmem" = "4096 131072 6291456"
"net.ipv4.tcp_wmem" = "4096 16384 4194304"
"net.ipv4.tcp_fin_timeout" = "33"
"net.ipv4.ip_default_ttl" = "63"
"net.ipv4.tcp_synack_retries" = "3"

[verify]
bench = ["tcp-short"]
min_effect = 0.05
max_trials = 10
soak = "2s"
guards = [{ metric = "tcp_retrans_pct", max_increase = 0.3 }]

[bench.tcp-short]
kind = "tcp"
duration = "300ms"
rr_duration = "100ms"

[group.buffers]
members = ["sysctl:net.ipv4.tcp_rmem", "sysctl:net.ipv4.tcp_wmem"]

[group.fin]
members = ["sysctl:net.ipv4.tcp_fin_timeout"]

[group.ttl]
members = ["sysctl:net.ipv4.ip_default_ttl"]
keep_if_neutral = true

[group.synack]
members = ["sysctl:net.ipv4.tcp_synack_retries"]
bench = []
keep_if_neutral = true
P
chmod 644 "$profile"

note "1. two canaries verify and record their decisions"
for c in c1 c2; do
  node "$c"
  expect_rc 0 tn "$c" apply --profile "$profile" --yes --json --budget 60s \
    --decisions-out "$WORK/canaries/$c.decision.json" --report "$WORK/canaries/$c.run.json"
  rec="$WORK/canaries/$c.decision.json"
  jq -e '.schema == "tuner.decision/1" and (.class.key | test("^hw-[0-9a-f]{16}$"))
    and .profile.names == ["classy"] and (.profile.digest | startswith("fnv1a64:"))' "$rec" >/dev/null ||
    fail "$c: record: $(jq -c '{schema, class: .class.key, profile}' "$rec")"
  jq -e '.groups[] | select(.name == "buffers") | .decision == "kept" and .reason == "gain"' "$rec" >/dev/null ||
    fail "$c: buffers not kept: $(jq -c '.groups[] | select(.name == "buffers") | {decision, reason}' "$rec")"
  jq -e '.groups[] | select(.name == "ttl") | .decision == "kept" and .reason == "neutral_kept"' "$rec" >/dev/null ||
    fail "$c: ttl not kept as neutral: $(jq -c '.groups[] | select(.name == "ttl") | {decision, reason}' "$rec")"
  jq -e '.groups[] | select(.name == "synack") | .decision == "kept"
    and (.reason == "not_measurable_kept" or .reason == "soak_undecided")' "$rec" >/dev/null ||
    fail "$c: synack not kept by its soak: $(jq -c '.groups[] | select(.name == "synack") | {decision, reason}' "$rec")"
  note "   $c: $(jq -c '[.groups[] | {(.name): .reason}] | add' "$rec")"
done
key=$(jq -r .class.key "$WORK/canaries/c1.decision.json")
[ "$(jq -r .class.key "$WORK/canaries/c2.decision.json")" = "$key" ] || fail "the canaries' classes differ"
if python3 -c 'import jsonschema' 2>/dev/null; then
  src=${TUNER_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
  for f in "$WORK/canaries/"*.json; do
    python3 "$src/tests/schema/validate.py" "$f" >/dev/null ||
      fail "$f: $(python3 "$src/tests/schema/validate.py" "$f" 2>&1 | head -3)"
  done
fi

note "2. the controller merges them"
expect_rc 0 "$TUNER" report --color never "$WORK/canaries" --decisions-out "$WORK/decisions.json"
decisions="$WORK/decisions.json"
chmod 644 "$decisions"
if python3 -c 'import jsonschema' 2>/dev/null; then
  python3 "$src/tests/schema/validate.py" "$decisions" >/dev/null ||
    fail "decisions.json: $(python3 "$src/tests/schema/validate.py" "$decisions" 2>&1 | head -3)"
fi
jq -e --arg k "$key" '.schema == "tuner.decisions/1" and (.classes | length == 1)
  and .classes[0].key == $k and (.classes[0].canaries | sort) == ["c1", "c2"]' "$decisions" >/dev/null ||
  fail "merged: $(jq -c '.classes[] | {key, canaries}' "$decisions")"
verdict() { jq -r --arg g "$1" '.classes[0].groups[] | select(.name == $g) | .decision' "$decisions"; }
[ "$(verdict buffers)" = kept ] || fail "class buffers: $(verdict buffers)"
# Kept for the same reason: compatible effects, the pooled bound clears min_effect.
jq -e '.classes[0].groups[] | select(.name == "buffers") | .check.verdict == "keep"
  and .check.low > .check.min_effect' "$decisions" >/dev/null ||
  fail "class buffers check: $(jq -c '.classes[0].groups[] | select(.name == "buffers") | .check' "$decisions")"
note "   buffers class check: $(jq -c '.classes[0].groups[] | select(.name == "buffers") | .check | {verdict, effect, low, q_p, differ}' "$decisions")"
[ "$(verdict ttl)" = kept ] || fail "class ttl: $(verdict ttl)"
# Kept with no measurement by both canaries: no evidence for the class.
[ "$(verdict synack)" = unmeasured ] || fail "class synack: $(verdict synack)"
# Each canary rolls fin back unless a false keep (its share of 5%) happened: then the
# class disagrees. Either way the rest of the class does not write it.
case "$(verdict fin)" in rolled_back | disagree) ;; *) fail "class fin: $(verdict fin)" ;; esac
note "   $(jq -c '[.classes[0].groups[] | {(.name): .decision}] | add' "$decisions")"

note "2b. one canary's record under two names is one canary"
mkdir -p "$WORK/dup"
cp "$WORK/canaries/c1.decision.json" "$WORK/dup/c1.decision.json"
cp "$WORK/canaries/c1.decision.json" "$WORK/dup/c1-alias.decision.json"
expect_rc 0 "$TUNER" report --color never "$WORK/dup" --decisions-out "$WORK/dup.json"
grep -q "under several names (c1, c1-alias)" <<<"$OUT" || fail "no duplicate warning: $OUT"
jq -e '(.classes[0].canaries | length) == 1 and ([.classes[0].groups[] | select(.decision == "kept")] | length) == 0' \
  "$WORK/dup.json" >/dev/null || fail "a duplicated record counted twice: $(jq -c '.classes[0] | {canaries, groups: [.groups[] | {(.name): .decision}]}' "$WORK/dup.json")"

note "3. a node of the class reuses it: soak only, no benchmark"
node n1
fin_before=$(sysctl_on n1 net.ipv4.tcp_fin_timeout)
start=$(date +%s%N)
expect_rc 0 tn n1 apply --profile "$profile" --yes --json --decisions "$decisions" --report "$WORK/n1.json"
ms=$((($(date +%s%N) - start) / 1000000))
group() { jq -c --arg g "$2" '.groups[] | select(.name == $g)' "$1"; }
jq -e '.decision == "kept" and .stats.outcome == "class_kept" and (.stats | has("bench") | not)
  and .stats.soak.window_s == 2 and .stats.class_decision.suspect == false
  and (.stats.class_decision.canaries | sort) == ["c1", "c2"]' <<<"$(group "$WORK/n1.json" buffers)" >/dev/null ||
  fail "n1 buffers: $(group "$WORK/n1.json" buffers)"
jq -e '.decision == "rolled_back" and (.stats.outcome | test("^class_(rolled_back|disagree)$"))
  and .changes[0].status == "not_applied"' <<<"$(group "$WORK/n1.json" fin)" >/dev/null ||
  fail "n1 fin: $(group "$WORK/n1.json" fin)"
[ "$(sysctl_on n1 net.ipv4.tcp_rmem)" = "4096 131072 6291456" ] || fail "n1 rmem: $(sysctl_on n1 net.ipv4.tcp_rmem)"
[ "$(sysctl_on n1 net.ipv4.ip_default_ttl)" = 63 ] || fail "n1 ttl not written"
# synack: no class decision to reuse; n1's own soak decides it.
jq -e '(.stats.outcome == "not_measurable_kept" or .stats.outcome == "soak_undecided")
  and (.stats | has("class_decision") | not)' \
  <<<"$(group "$WORK/n1.json" synack)" >/dev/null || fail "n1 synack: $(group "$WORK/n1.json" synack | cut -c1-400)"
node n4
synack_before=$(sysctl_on n4 net.ipv4.tcp_synack_retries)
expect_rc 0 tn n4 apply --profile "$profile" --yes --json --decisions "$decisions" --require-decision --report "$WORK/n4.json"
jq -e '.decision == "rolled_back" and .stats.outcome == "class_undecided"' <<<"$(group "$WORK/n4.json" synack)" >/dev/null ||
  fail "n4 synack under --require-decision: $(group "$WORK/n4.json" synack | cut -c1-400)"
[ "$(sysctl_on n4 net.ipv4.tcp_synack_retries)" = "$synack_before" ] || fail "n4 synack was written"
[ "$(sysctl_on n4 net.ipv4.tcp_rmem)" = "4096 131072 6291456" ] || fail "n4 buffers not written"
[ "$(sysctl_on n1 net.ipv4.tcp_fin_timeout)" = "$fin_before" ] || fail "n1 fin_timeout was written"
jq -e '.class.key == $k' --arg k "$key" "$WORK/n1.json" >/dev/null || fail "n1's run report has no class"
note "   n1 applied in ${ms} ms (2 s soaks, no trials): $(jq -c '[.groups[] | {(.name): .stats.outcome}] | add' "$WORK/n1.json")"
# The text report says which class decided and on which canaries.
expect_rc 0 "$TUNER" report --color never "$WORK/n1.json"
grep -q "$key" <<<"$OUT" || fail "the report of n1 does not name its class: $OUT"

note "3b. a node that starts elsewhere verifies the group itself (issue 41)"
ttl_start=$(jq -r '.classes[0].groups[] | select(.name == "ttl") | .before["sysctl:net.ipv4.ip_default_ttl"]' "$decisions")
# A fresh namespace starts at 64: where both canaries started.
[ "$ttl_start" = 64 ] || fail "class ttl before-value: $ttl_start"
node n5
on n5 sh -c 'echo 50 > /proc/sys/net/ipv4/ip_default_ttl'
# Check mode's prediction (plan --decisions) says what the run will do, group by group.
expect_rc 0 tn n5 plan --profile "$profile" --json --decisions "$decisions"
plan_n5=$OUT
action() { jq -r --arg g "$1" '.groups[] | select(.name == $g) | .class_decision.action' <<<"$plan_n5"; }
[ "$(action buffers)/$(action fin)/$(action ttl)/$(action synack)" = write/skip/verify/verify ] ||
  fail "n5 plan --decisions: $(jq -c '[.groups[] | {(.name): .class_decision}] | add' <<<"$plan_n5")"
jq -e --arg k "$key" '.class_decisions.found and .class_decisions.class == $k
  and (.groups[] | select(.name == "ttl") | .class_decision.why | test("is 50 here"))' <<<"$plan_n5" >/dev/null ||
  fail "n5 plan --decisions: $(jq -c .class_decisions <<<"$plan_n5")"
if python3 -c 'import jsonschema' 2>/dev/null; then
  echo "$plan_n5" >"$WORK/plan-n5.json"
  python3 "$src/tests/schema/validate.py" "$WORK/plan-n5.json" >/dev/null ||
    fail "plan --decisions: $(python3 "$src/tests/schema/validate.py" "$WORK/plan-n5.json" 2>&1 | head -3)"
fi
expect_rc 0 tn n5 plan --profile "$profile" --decisions "$decisions" --require-decision
grep -q "group synack: not written (class: unmeasured)" <<<"$OUT" || fail "n5 plan text: $OUT"
expect_rc 2 tn n5 plan --profile "$profile" --require-decision
expect_rc 0 tn n5 apply --profile "$profile" --yes --json --decisions "$decisions" --report "$WORK/n5.json"
jq -e '(.stats.outcome | test("^class_") | not) and (.stats | has("class_decision") | not)
  and (.stats.bench | length > 0)' <<<"$(group "$WORK/n5.json" ttl)" >/dev/null ||
  fail "n5 ttl reused a decision made from $ttl_start: $(group "$WORK/n5.json" ttl | cut -c1-400)"
jq -e --arg s "$ttl_start" '[.warnings[] | .message // . | tostring
  | select(test("group ttl .*not reused: sysctl:net.ipv4.ip_default_ttl is 50 here, the canaries started from " + $s))] | length == 1' \
  "$WORK/n5.json" >/dev/null || fail "n5: no warning naming the start: $(jq -c .warnings "$WORK/n5.json" | cut -c1-600)"
jq -e '.stats.outcome == "class_kept"' <<<"$(group "$WORK/n5.json" buffers)" >/dev/null ||
  fail "n5 buffers (same start) not reused: $(group "$WORK/n5.json" buffers | cut -c1-300)"
note "   n5 (ttl 50): ttl $(group "$WORK/n5.json" ttl | jq -r .stats.outcome), buffers class_kept"

note "4. the soak trips on one node: put back there, the class decision suspect"
node n2
on n2 ip link add tcl0 type veth peer name tcl1
ip netns add "tuner-cls-$$-peer"
NAMESPACES+=("tuner-cls-$$-peer")
on n2 ip link set tcl1 netns "tuner-cls-$$-peer"
on n2 ip addr add 10.215.0.1/30 dev tcl0
on n2 ip link set tcl0 up
ip -n "tuner-cls-$$-peer" addr add 10.215.0.2/30 dev tcl1
ip -n "tuner-cls-$$-peer" link set tcl1 up
ip -n "tuner-cls-$$-peer" link set lo up
if command -v nft >/dev/null && command -v iperf3 >/dev/null; then
  ip netns exec "tuner-cls-$$-peer" nft add table inet cls
  ip netns exec "tuner-cls-$$-peer" nft add chain inet cls in '{ type filter hook input priority 0; }'
  ip netns exec "tuner-cls-$$-peer" nft add rule inet cls in ip ttl 63 tcp flags '&' '(syn|fin|rst)' == 0 numgen random mod 100 '<' 1 drop
  ip netns exec "tuner-cls-$$-peer" iperf3 -s -D -B 10.215.0.2 -p 5397
  sleep 0.5
  # Bounded: 20 s of traffic covers both soaks (4 s each) and tuner's start.
  on n2 iperf3 -c 10.215.0.2 -p 5397 -t 20 -b 500M >/dev/null 2>&1 &
  client=$!
  sleep 1
  # A veth is virtual: not a fact of the class, so n2 is of the canaries' class.
  [ "$(tn n2 probe --json | jq -r .class.key)" = "$key" ] || fail "n2 is of another class"
  expect_rc 0 tn n2 apply --profile "$profile" --yes --json --decisions "$decisions" --report "$WORK/n2.json"
  kill "$client" 2>/dev/null || true
  wait "$client" 2>/dev/null || true
  client=
  jq -e '.decision == "rolled_back" and .stats.outcome == "guard" and .stats.class_decision.suspect == true
    and .stats.soak.decision == "tripped" and (.stats.error | test("suspect"))' <<<"$(group "$WORK/n2.json" ttl)" >/dev/null ||
    fail "n2 ttl: $(group "$WORK/n2.json" ttl | cut -c1-600)"
  [ "$(sysctl_on n2 net.ipv4.ip_default_ttl)" = 64 ] || fail "n2 ttl left at $(sysctl_on n2 net.ipv4.ip_default_ttl)"
  [ "$(sysctl_on n2 net.ipv4.tcp_rmem)" = "4096 131072 6291456" ] || fail "n2 buffers not kept"
  note "   n2: $(jq -r '.stats.error' <<<"$(group "$WORK/n2.json" ttl)")"
  mkdir -p "$WORK/fleet"
  cp "$WORK/canaries/"*.json "$WORK/n1.json" "$WORK/n2.json" "$WORK/fleet/"
  expect_rc 0 "$TUNER" report --color never --json "$WORK/fleet"
  jq -e "[.classes[] | .suspects[]?] | length > 0" <<<"$OUT" >/dev/null ||
    fail "the fleet report marks no class suspect: $(echo "$OUT" | head -c 800)"
  expect_rc 0 "$TUNER" report --color never "$WORK/fleet"
  grep -qi suspect <<<"$OUT" || fail "the fleet text does not say suspect: $OUT"
  note "   $(grep -i suspect <<<"$OUT" | head -2)"
else
  note "   nft or iperf3 is not installed: the soak trip is not tested"
fi

note "5. what apply --decisions refuses: exit 2, nothing changed"
node n3
snap=$(on n3 sh -c "grep -rs '' /proc/sys/net/ipv4/tcp_rmem /proc/sys/net/ipv4/ip_default_ttl /proc/sys/net/ipv4/tcp_fin_timeout")
expect_rc 2 tn n3 apply --profile "$profile" --yes --decisions "$decisions" --class-label other --require-decision
grep -q "has no decision for class hw-" <<<"$OUT" || fail "require-decision: $OUT"
chmod 666 "$decisions"
expect_rc 2 tn n3 apply --profile "$profile" --yes --decisions "$decisions"
grep -q "writable" <<<"$OUT" || fail "a world-writable decision file: $OUT"
chmod 644 "$decisions"
echo '{"schema": "tuner.decisions/1", "classes": [{"key": 1}]}' >"$WORK/bad.json"
chmod 644 "$WORK/bad.json"
expect_rc 2 tn n3 apply --profile "$profile" --yes --decisions "$WORK/bad.json"
grep -q "classes\[0\].key: expected a string" <<<"$OUT" || fail "a malformed decision file: $OUT"
expect_rc 2 tn n3 apply --profile "$profile" --yes --decisions "$decisions" --decisions-out "$WORK/x.json"
expect_rc 2 tn n3 apply --profile "$profile" --yes --require-decision
expect_rc 2 tn n3 apply --profile "$profile" --yes --no-verify --decisions "$decisions"
[ "$snap" = "$(on n3 sh -c "grep -rs '' /proc/sys/net/ipv4/tcp_rmem /proc/sys/net/ipv4/ip_default_ttl /proc/sys/net/ipv4/tcp_fin_timeout")" ] ||
  fail "a refused apply changed n3"
# Another class without --require-decision: every group is verified here, and it says so.
expect_rc 0 tn n3 apply --profile "$profile" --yes --json --budget 60s --decisions "$decisions" \
  --class-label other --report "$WORK/n3.json"
grep -q "has no decision for class hw-.*every group is verified on this node" <<<"$OUT" ||
  fail "n3 fallback warning: $(head -3 <<<"$OUT")"
jq -e '.decision == "kept" and .stats.outcome == "gain" and (.stats | has("class_decision") | not)' \
  <<<"$(group "$WORK/n3.json" buffers)" >/dev/null || fail "n3 buffers: $(group "$WORK/n3.json" buffers | cut -c1-400)"
echo "PASS: class_decision"
