# A `peer = true` group on the real kernel: a veth to a second namespace where
# `tuner bench --serve` runs. With `apply --peer ADDR` the group's tcp benchmark runs
# over the veth against that server (stats.bench "tcp@peer", trials measured there);
# without --peer it falls back to the guard soak and the report says so (and, with no
# workload traffic in this namespace, that the soak is undecided); the plan says both
# beside the group; a --peer that is not an address is exit 2 with nothing changed.
source "$(dirname "$0")/lib.sh"
enter_netns "$@"
set -e
command -v jq >/dev/null || skip "jq is not installed"
ip link set lo up
ns=tuner-peer-$$
ip netns add "$ns"
cleanup() {
  ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
  ip netns del "$ns" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
ip link add tpr0 type veth peer name tpr1 netns "$ns"
ip addr add 10.216.0.1/30 dev tpr0 && ip link set tpr0 up
ip -n "$ns" addr add 10.216.0.2/30 dev tpr1 && ip -n "$ns" link set tpr1 up && ip -n "$ns" link set lo up
# The rollout's key, which the server and the applying node each prove (tcp_auth.h).
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$WORK/peer.key" && chmod 0600 "$WORK/peer.key"
ip netns exec "$ns" "$TUNER" bench --serve --address 10.216.0.2 --lifetime 300 \
  --peer-key "$WORK/peer.key" >"$WORK/serve.log" 2>&1 &
sleep 1

profile="$WORK/peerg.toml"
cat >"$profile" <<'P'
[profile]
name = "peerg"

[sysctl]
"net.ipv4.tcp_fin_timeout" = "34"

[verify]
bench = ["tcp-short"]
max_trials = 6
soak = "1s"

[bench.tcp-short]
kind = "tcp"
duration = "300ms"
rr_duration = "100ms"

[group.nic]
members = ["sysctl:net.ipv4.tcp_fin_timeout"]
peer = true
P
fin_before=$(sysctl_get net.ipv4.tcp_fin_timeout)

note "0. the plan says what decides the group, in text and JSON"
expect_rc 0 t plan --profile "$profile"
grep -q "nic  (decided by: a peer benchmark: tcp-short@peer (apply --peer), kept only on a proven gain; without --peer the guard soak on the node's traffic" <<<"$OUT" ||
  fail "plan text: $OUT"
expect_rc 0 t plan --profile "$profile" --json
jq -e '.groups[0].decided_by | .by == "peer_benchmark" and .bench == "tcp-short@peer" and .where == "apply --peer"' <<<"$OUT" >/dev/null ||
  fail "plan json: $OUT"

note "1. no --peer: the guard soak decides, and the report says why; no traffic: undecided"
expect_rc 0 t apply --profile "$profile" --yes --json --report "$WORK/alone.json"
# Nothing but this test runs in the namespace: the soak sees no workload traffic and
# judges nothing, so the group is kept as chosen, undecided (not shown harmless).
jq -e '.groups[0].stats.outcome == "soak_undecided" and .groups[0].decision == "kept"
  and .groups[0].stats.soak.decision == "no_traffic" and (.groups[0].stats.soak.note | test("undecided"))
  and (.groups[0].stats | has("bench") | not)
  and (.warnings[0].message | test("needs a peer .* no --peer: .* guard soak alone"))' "$WORK/alone.json" >/dev/null ||
  fail "without a peer: $(jq -c '{g: .groups[0].stats.outcome, s: .groups[0].stats.soak.decision, w: .warnings}' "$WORK/alone.json")"
expect_rc 0 t rollback --last
[ "$(sysctl_get net.ipv4.tcp_fin_timeout)" = "$fin_before" ] || fail "rollback left fin_timeout"

note "2. --peer: the group is measured over the veth against the peer's server"
tx_bytes() { awk '$1 == "tpr0:" { print $10 }' /proc/net/dev; }
tx_before=$(tx_bytes)
expect_rc 0 t apply --profile "$profile" --yes --json --budget 60s --peer 10.216.0.2 \
  --peer-key "$WORK/peer.key" --report "$WORK/peer.json"
tx_after=$(tx_bytes)
jq -e '.groups[0].stats.bench == "tcp-short@peer" and .groups[0].stats.trials.baseline >= 1
  and (.warnings | length == 0)' "$WORK/peer.json" >/dev/null ||
  fail "with a peer: $(jq -c '.groups[0].stats | {bench, outcome, trials, error}' "$WORK/peer.json")"
# The trials went over the fabric, not loopback: megabytes left through the veth.
[ $((tx_after - tx_before)) -gt 10000000 ] || fail "only $((tx_after - tx_before)) bytes left through tpr0"
note "   $(jq -r '.groups[0] | "\(.decision): \(.stats.outcome), \(.stats.trials.baseline)+\(.stats.trials.candidate) trials"' "$WORK/peer.json"), $(((tx_after - tx_before) / 1000000)) MB through the veth"
[ "$(jq -r '.groups[0].decision' "$WORK/peer.json")" = kept ] && expect_rc 0 t rollback --last

note "3. a --peer that is no address: exit 2, nothing changed"
expect_rc 2 t apply --profile "$profile" --yes --peer not-an-address --peer-key "$WORK/peer.key"
grep -q "'not-an-address' is not a numeric IPv4 or IPv6 address" <<<"$OUT" || fail "bad peer: $OUT"
expect_rc 2 t apply --profile "$profile" --yes --no-verify --peer 10.216.0.2
[ "$(sysctl_get net.ipv4.tcp_fin_timeout)" = "$fin_before" ] || fail "a refused apply changed fin_timeout"
echo "PASS: peer_group"
