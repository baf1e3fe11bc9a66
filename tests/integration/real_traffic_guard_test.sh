# The retransmit guard judges the node's real traffic, not the loopback benchmark's own
# sockets (issue 40; tuner/verify/README.md "Guards"). Two network namespaces over a
# veth: this one (the node, TCP crippled by tiny buffers) sends iperf3 traffic to the
# other, where nftables drops 8% of the data segments that arrive with TTL 63. One
# measured group, decided by the built-in loopback tcp benchmark:
#   net.ipv4.tcp_rmem/tcp_wmem  large buffers: the loopback benchmark gains
#   net.ipv4.ip_default_ttl=63  the node's real traffic starts to retransmit
#  1. with drops: the guard trips on source node_traffic (the namespace's counter less
#     the benchmark's loopback segments, which retransmit next to nothing: a few loss
#     probes: well under 0.5% of their segments, 0.003-0.02% in quiet runs; more under a
#     loaded CI host's CPU steal), the bisect names
#     the TTL knob and puts it back, the buffers are kept (partly_kept);
#  2. without drops: the whole group is kept, the guard judged and passed.
source "$(dirname "$0")/lib.sh"
enter_netns "$@"
set -e
command -v iperf3 >/dev/null || skip "iperf3 is not installed (packaging/install-deps.sh --test)"
command -v nft >/dev/null || skip "nft (nftables) is not installed"
command -v jq >/dev/null || skip "jq is not installed"
ip link set lo up

ns=tuner-rtg-$$
ip netns add "$ns"
cleanup() {
  [ -n "${client:-}" ] && kill "$client" 2>/dev/null
  ip netns pids "$ns" 2>/dev/null | xargs -r kill
  ip netns del "$ns" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
ip link add trg0 type veth peer name trg1 netns "$ns"
ip addr add 10.216.0.1/30 dev trg0 && ip link set trg0 up
ip -n "$ns" addr add 10.216.0.2/30 dev trg1 && ip -n "$ns" link set trg1 up && ip -n "$ns" link set lo up
# On the receiver's input, so the sender sees no local drop and retransmits on the wire.
# Data and ACKs only: a lost SYN would fail a connect, not raise retransmits.
ip netns exec "$ns" nft add table inet rtg
ip netns exec "$ns" nft add chain inet rtg in '{ type filter hook input priority 0; }'
ip netns exec "$ns" nft add rule inet rtg in ip ttl 63 tcp flags '&' '(syn|fin|rst)' == 0 numgen random mod 100 '<' 8 drop
ip netns exec "$ns" iperf3 -s -D -B 10.216.0.2 -p 5399
sleep 0.5

tcp_buffers_init
norm() { sysctl_get "$1" | tr -s '\t ' ' '; }
profile="$WORK/mixed.toml"
cat >"$profile" <<'P'
[profile]
name = "mixed"

[sysctl]
"net.ipv4.tcp_rmem" = "4096 131072 6291456"
"net.ipv4.tcp_wmem" = "4096 16384 4194304"
"net.ipv4.ip_default_ttl" = "63"

[verify]
bench = ["tcp-short"]
min_effect = 0.05
max_trials = 10
guards = [{ metric = "tcp_retrans_pct", max_increase = 0.3 }]

[bench.tcp-short]
kind = "tcp"
duration = "300ms"
rr_duration = "100ms"

[group.mixed]
members = ["sysctl:net.ipv4.tcp_rmem", "sysctl:net.ipv4.tcp_wmem", "sysctl:net.ipv4.ip_default_ttl"]
bisect = true
P
[ "$(sysctl_get net.ipv4.ip_default_ttl)" = 64 ] || fail "ip_default_ttl starts at $(sysctl_get net.ipv4.ip_default_ttl)"
src=${TUNER_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
validate() {
  python3 -c 'import jsonschema' 2>/dev/null || return 0
  python3 "$src/tests/schema/validate.py" "$1" >/dev/null ||
    fail "$1: $(python3 "$src/tests/schema/validate.py" "$1" 2>&1 | head -3)"
}
# run NAME: apply the profile under iperf3 traffic (bounded: the group, its halves and
# the rest measure in well under 3 minutes), then stop the traffic.
run() {
  cripple
  iperf3 -c 10.216.0.2 -p 5399 -t 180 -b 50M >/dev/null 2>&1 &
  client=$!
  sleep 1
  expect_rc 0 t apply --profile "$profile" --yes ${2:-} --report "$WORK/$1.json"
  kill "$client" 2>/dev/null || true
  wait "$client" 2>/dev/null || true
  client=
  validate "$WORK/$1.json"
}
tcp_row() { jq -c '.groups[0].stats.guards[] | select(.metric == "tcp_retrans_pct")' "$WORK/$1.json"; }

note "1. 8% of TTL-63 segments dropped: the guard trips on the node's traffic, the bisect finds the TTL"
run lossy  # the text report, in $OUT
text=$OUT
g=$(jq -c '.groups[0]' "$WORK/lossy.json")
row=$(tcp_row lossy)
note "   row: $(jq -c '{tripped, p, dispersion, note}' <<<"$row")"
note "   group: $(jq -c '{outcome: .stats.outcome, bisect: [.stats.bisect.steps[]? | {knobs, outcome, error}]}' <<<"$g" | cut -c1-800)"
# The benchmark's own loopback sockets: their segments subtracted, and what they
# retransmitted (loss probes, a few) is far below what the guard tripped on.
jq -e '.tripped and .source == "node_traffic" and .judged != false
  and .counts.candidate.events > 0 and .counts.candidate.exposure >= 1000
  and (.note | capture("less the benchmark.s (?<sb>[0-9]+) and (?<sc>[0-9]+) on loopback \\((?<rb>[0-9]+) and (?<rc>[0-9]+) retransmitted\\)")
       | (.rc | tonumber) < 0.005 * (.sc | tonumber) and (.rb | tonumber) < 0.005 * (.sb | tonumber))' <<<"$row" >/dev/null ||
  fail "the whole group's retransmit guard: $row"
jq -e '.decision == "kept" and .stats.outcome == "partly_kept"
  and .stats.bisect.culprit == ["sysctl:net.ipv4.ip_default_ttl"]' <<<"$g" >/dev/null ||
  fail "not partly kept with the TTL as culprit: $(jq -c '.stats | {outcome, error, bisect}' <<<"$g" | cut -c1-1500)"
jq -e '[.changes[] | {(.knob): .status}] | add == {"sysctl:net.ipv4.ip_default_ttl": "rolled_back",
  "sysctl:net.ipv4.tcp_rmem": "applied", "sysctl:net.ipv4.tcp_wmem": "applied"}' <<<"$g" >/dev/null ||
  fail "change statuses: $(jq -c '.changes' <<<"$g")"
[ "$(sysctl_get net.ipv4.ip_default_ttl)" = 64 ] || fail "ttl left at $(sysctl_get net.ipv4.ip_default_ttl)"
[ "$(norm $rmem)" = "4096 131072 6291456" ] || fail "tcp_rmem after a partial keep: $(norm $rmem)"
# The text report names the source.
grep -q "tcp_retrans_pct: .*node_traffic; dispersion" <<<"$text" || fail "the report does not name the guard's source: $text"
note "   $(jq -r '.stats.error' <<<"$g")"
expect_rc 0 t rollback --last

note "2. no drops: the whole group is kept, its guard judged on the node's traffic"
ip netns exec "$ns" nft flush chain inet rtg in
run clean --json
g=$(jq -c '.groups[0]' "$WORK/clean.json")
row=$(tcp_row clean)
jq -e '.decision == "kept" and .stats.outcome == "gain"' <<<"$g" >/dev/null ||
  fail "clean group not kept: $(jq -c '.stats | {outcome, error, effect, ci}' <<<"$g")"
jq -e '(.tripped | not) and .source == "node_traffic" and .counts.baseline.exposure >= 1000
  and .counts.candidate.exposure >= 1000' <<<"$row" >/dev/null || fail "clean guard row: $row"
[ "$(sysctl_get net.ipv4.ip_default_ttl)" = 63 ] || fail "ttl not kept: $(sysctl_get net.ipv4.ip_default_ttl)"
note "   guard: $(jq -c '{baseline, candidate, counts, dispersion}' <<<"$row")"
expect_rc 0 t rollback --last
uncripple
echo "PASS: real_traffic_guard"
