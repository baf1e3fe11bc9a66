# The guard soak on the real kernel (tuner/verify/soak.h): two network namespaces over a
# veth, iperf3 as the node's own traffic from this namespace to the other, where
# nftables drops 1% of the TCP segments that arrive with TTL 63. A profile's two
# bench = [] groups, each watched by a 2 s soak:
#   ttl:      net.ipv4.ip_default_ttl = 63: the receiver starts dropping, this side
#             retransmits: rolled back by the soak's tcp_retrans_pct guard.
#   harmless: net.ipv4.tcp_fin_timeout = 31 under the same traffic: kept.
# Then the same profile with no traffic: the soak says "undecided" and keep_if_neutral
# keeps as chosen (outcome soak_undecided: not shown harmless).
# Then both knobs in one bench = [] group with bisect = true: the soak trips, each half
# is soaked alone, the TTL is found and put back, the rest is kept (partly_kept).
source "$(dirname "$0")/lib.sh"
enter_netns "$@"
set -e
command -v iperf3 >/dev/null || skip "iperf3 is not installed (packaging/install-deps.sh --test)"
command -v nft >/dev/null || skip "nft (nftables) is not installed"
command -v jq >/dev/null || skip "jq is not installed"
ip link set lo up

ns=tuner-soak-$$
ip netns add "$ns"
cleanup() {
  [ -n "${client:-}" ] && kill "$client" 2>/dev/null
  ip netns pids "$ns" 2>/dev/null | xargs -r kill
  ip netns del "$ns" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
ip link add tsk0 type veth peer name tsk1 netns "$ns"
ip addr add 10.214.0.1/30 dev tsk0 && ip link set tsk0 up
ip -n "$ns" addr add 10.214.0.2/30 dev tsk1 && ip -n "$ns" link set tsk1 up && ip -n "$ns" link set lo up
# The receiver drops 1% of data segments that arrive with TTL 63 (not SYN/FIN/RST: a
# lost SYN fails a connect instead of causing retransmits).
ip netns exec "$ns" nft add table inet soak
ip netns exec "$ns" nft add chain inet soak in '{ type filter hook input priority 0; }'
ip netns exec "$ns" nft add rule inet soak in ip ttl 63 tcp flags '&' '(syn|fin|rst)' == 0 numgen random mod 100 '<' 1 drop
ip netns exec "$ns" iperf3 -s -D -B 10.214.0.2 -p 5398
sleep 0.5

profile="$WORK/soak.toml"
cat > "$profile" <<'P'
[profile]
name = "soak"

[sysctl]
"net.ipv4.ip_default_ttl" = "63"
"net.ipv4.tcp_fin_timeout" = "31"

[verify]
bench = ["tcp"]                 # every group below says bench = []
soak = "2s"
guards = [{ metric = "tcp_retrans_pct", max_increase = 0.3 }]

[group.ttl]
members = ["sysctl:net.ipv4.ip_default_ttl"]
bench = []
keep_if_neutral = true

[group.harmless]
members = ["sysctl:net.ipv4.tcp_fin_timeout"]
bench = []
keep_if_neutral = true
P
ttl_before=$(sysctl_get net.ipv4.ip_default_ttl)
fin_before=$(sysctl_get net.ipv4.tcp_fin_timeout)
[ "$ttl_before" = 64 ] || fail "ip_default_ttl starts at $ttl_before, expected 64"

note "1. under iperf3 traffic: the TTL group is rolled back by the soak, the harmless one kept"
# Bounded: 20 s of traffic covers both groups' soaks (4 s each) and tuner's start.
iperf3 -c 10.214.0.2 -p 5398 -t 20 -b 500M >/dev/null 2>&1 &
client=$!
sleep 1
expect_rc 0 t apply --profile "$profile" --yes --json --report "$WORK/soak.json"
kill "$client" 2>/dev/null || true
wait "$client" 2>/dev/null || true
client=
group() { jq -c --arg g "$1" '.groups[] | select(.name == $g)' "$WORK/soak.json"; }
jq -e '.decision == "rolled_back" and .stats.outcome == "guard"' <<<"$(group ttl)" >/dev/null ||
  fail "ttl group not rolled back by the guard: $(group ttl)"
jq -e '.stats.soak.decision == "tripped" and .stats.soak.window_s == 2
  and ([.stats.soak.guards[] | select(.metric == "tcp_retrans_pct" and .tripped and .source == "namespace")] | length == 1)
  and .stats.soak.windows.before.tcp.out_segs > 1000 and .stats.soak.windows.after.tcp.retrans_segs > .stats.soak.windows.before.tcp.retrans_segs' \
  <<<"$(group ttl)" >/dev/null || fail "soak numbers: $(group ttl)"
[ "$(sysctl_get net.ipv4.ip_default_ttl)" = "$ttl_before" ] || fail "ttl left at $(sysctl_get net.ipv4.ip_default_ttl)"
jq -e '.decision == "kept" and .stats.outcome == "not_measurable_kept" and .stats.soak.decision == "passed"' \
  <<<"$(group harmless)" >/dev/null || fail "harmless group not kept: $(group harmless)"
[ "$(sysctl_get net.ipv4.tcp_fin_timeout)" = 31 ] || fail "tcp_fin_timeout is $(sysctl_get net.ipv4.tcp_fin_timeout)"
if python3 -c 'import jsonschema' 2>/dev/null; then
  src=${TUNER_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
  python3 "$src/tests/schema/validate.py" "$WORK/soak.json" >/dev/null || fail "soak.json: $(python3 "$src/tests/schema/validate.py" "$WORK/soak.json" 2>&1 | head -3)"
  # The schema is not vacuous: a soak with a decision it does not know is refused.
  jq '(.groups[] | select(.name == "ttl") | .stats.soak.decision) = "maybe"' "$WORK/soak.json" >"$WORK/broken.json"
  if python3 "$src/tests/schema/validate.py" "$WORK/broken.json" >/dev/null 2>&1; then fail "a broken soak validated"; fi
else
  note "   python3-jsonschema is not installed: the report is not validated"
fi
note "   $(jq -r '.stats.error' <<<"$(group ttl)")"
note "   harmless: $(jq -c '.stats.soak.guards[0] | {baseline, candidate, p, tripped}' <<<"$(group harmless)")"
expect_rc 0 t rollback --last
[ "$(sysctl_get net.ipv4.tcp_fin_timeout)" = "$fin_before" ] || fail "rollback left tcp_fin_timeout"

note "2. no traffic: the soak is undecided, keep_if_neutral keeps both as chosen"
expect_rc 0 t apply --profile "$profile" --yes --report "$WORK/quiet.json"
# The text report (stdout) says it as the JSON does.
grep -q "soak: guards 2s before and after the write: no traffic: undecided" <<<"$OUT" ||
  fail "text report: $OUT"
for g in ttl harmless; do
  jq -e --arg g "$g" '.groups[] | select(.name == $g) | .decision == "kept" and .stats.outcome == "soak_undecided"
    and .stats.soak.decision == "no_traffic" and (.stats.soak.note | test("no TCP traffic.*undecided"))' "$WORK/quiet.json" >/dev/null ||
    fail "quiet $g: $(jq -c --arg g "$g" '.groups[] | select(.name == $g)' "$WORK/quiet.json")"
done
note "   $(jq -r '.groups[0].stats.soak.note' "$WORK/quiet.json")"
expect_rc 0 t rollback --last
[ "$(sysctl_get net.ipv4.ip_default_ttl)" = "$ttl_before" ] || fail "rollback left the ttl"

note "3. one group of both, bisect = true: the soak finds the TTL and keeps the rest"
bisected="$WORK/soak-bisect.toml"
cat > "$bisected" <<'P'
[profile]
name = "soak-bisect"

[sysctl]
"net.ipv4.ip_default_ttl" = "63"
"net.ipv4.tcp_fin_timeout" = "31"

[verify]
bench = ["tcp"]
soak = "2s"
guards = [{ metric = "tcp_retrans_pct", max_increase = 0.3 }]

[group.both]
members = ["sysctl:net.ipv4.ip_default_ttl", "sysctl:net.ipv4.tcp_fin_timeout"]
bench = []
keep_if_neutral = true
bisect = true
P
# Bounded: the whole group's soak, at most two halves and the rest (4 s each).
iperf3 -c 10.214.0.2 -p 5398 -t 30 -b 500M >/dev/null 2>&1 &
client=$!
sleep 1
expect_rc 0 t apply --profile "$bisected" --yes --json --report "$WORK/bisect.json"
kill "$client" 2>/dev/null || true
wait "$client" 2>/dev/null || true
client=
both=$(jq -c '.groups[] | select(.name == "both")' "$WORK/bisect.json")
jq -e '.decision == "kept" and .stats.outcome == "partly_kept" and .stats.soak.decision == "tripped"
  and .stats.bisect.culprit == ["sysctl:net.ipv4.ip_default_ttl"]
  and ([.stats.bisect.steps[] | select(.soak.decision == "tripped" and .knobs == ["sysctl:net.ipv4.ip_default_ttl"])] | length == 1)
  and ([.stats.bisect.steps[] | select(has("bench"))] | length == 0)
  and .stats.bisect.rest.knobs == ["sysctl:net.ipv4.tcp_fin_timeout"] and .stats.bisect.rest.soak.decision == "passed"' \
  <<<"$both" >/dev/null || fail "soak bisect: $both"
[ "$(sysctl_get net.ipv4.ip_default_ttl)" = "$ttl_before" ] || fail "bisect left the ttl at $(sysctl_get net.ipv4.ip_default_ttl)"
[ "$(sysctl_get net.ipv4.tcp_fin_timeout)" = 31 ] || fail "bisect did not keep tcp_fin_timeout"
if python3 -c 'import jsonschema' 2>/dev/null; then
  python3 "$src/tests/schema/validate.py" "$WORK/bisect.json" >/dev/null || fail "bisect.json does not validate"
fi
note "   $(jq -r '.stats.bisect.note' <<<"$both")"
expect_rc 0 t rollback --last
[ "$(sysctl_get net.ipv4.tcp_fin_timeout)" = "$fin_before" ] || fail "rollback left tcp_fin_timeout"
echo PASS
