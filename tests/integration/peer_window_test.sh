# W-2 (profiles/REVIEW.md): a group raising this node's tcp_rmem maximum to 256 MiB,
# decided by a tcp benchmark with the peer sending (direction = "in"), against a
# `tuner bench --serve` in a second namespace across a veth. The peer's send buffer
# bounds the window: with the peer's net.ipv4.tcp_wmem maximum at 4 MiB the apply says
# so (stderr, the report's warnings) and the guard soak decides the group, with no
# trials across the path; with it at 256 MiB (changed while the server runs: it reads
# its own at each question) the benchmark decides as before. The plan says what the
# peer must send with and how much the benchmark may move.
source "$(dirname "$0")/lib.sh"
enter_netns "$@"
set -e
command -v jq >/dev/null || skip "jq is not installed"
ip link set lo up
ns=tuner-pwin-$$
ip netns add "$ns"
cleanup() {
  ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
  ip netns del "$ns" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
ip link add tpw0 type veth peer name tpw1 netns "$ns"
ip addr add 10.217.0.1/30 dev tpw0 && ip link set tpw0 up
ip -n "$ns" addr add 10.217.0.2/30 dev tpw1 && ip -n "$ns" link set tpw1 up && ip -n "$ns" link set lo up
# net.* sysctls are per namespace: these are the peer's own, in the namespace made here.
ip netns exec "$ns" sysctl -qw net.ipv4.tcp_wmem="4096 16384 4194304"
echo "4096 131072 6291456" >"$(sysctl_file net.ipv4.tcp_rmem)"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$WORK/peer.key" && chmod 0600 "$WORK/peer.key"
ip netns exec "$ns" "$TUNER" bench --serve --address 10.217.0.2 --lifetime 300 \
  --peer-key "$WORK/peer.key" >"$WORK/serve.log" 2>&1 &
sleep 1

profile="$WORK/pwin.toml"
cat >"$profile" <<'P'
[profile]
name = "pwin"

[sysctl]
"net.ipv4.tcp_rmem" = ">=4096 131072 268435456"

[verify]
max_trials = 6
soak = "1s"

[bench.wan]
kind = "tcp"
streams = 2
duration = "300ms"
direction = "in"
rr_duration = "0s"

[group.sysctl]
bench = ["wan"]
peer = true
keep_if_neutral = true
P
rmem_before=$(sysctl_get net.ipv4.tcp_rmem)

note "0. the plan: the peer's volume and the tcp_wmem it must send with, in text and JSON"
expect_rc 0 t plan --profile "$profile"
grep -q "wan@peer: up to 12 runs of 0.3 s x 2 streams from the peer (the peer's egress)" <<<"$OUT" ||
  fail "plan text, volume: $OUT"
grep -q "the peer must send with net.ipv4.tcp_wmem max >= 268435456 (this node's tcp_rmem max), else apply soaks the group instead" <<<"$OUT" ||
  fail "plan text, need: $OUT"
expect_rc 0 t plan --profile "$profile" --json
jq -e '.groups[0] | .peer_wmem_needed == 268435456 and (.peer_traffic | length == 1)
  and .peer_traffic[0].bench == "wan@peer" and .peer_traffic[0].direction == "in"
  and .peer_traffic[0].runs == 12 and .peer_traffic[0].streams == 2' <<<"$OUT" >/dev/null ||
  fail "plan json: $(jq -c '.groups[0]' <<<"$OUT")"

rx_bytes() { awk '$1 == "tpw0:" { print $2 }' /proc/net/dev; }
note "1. the peer's tcp_wmem max is 4 MiB: soaked instead, and the run says why"
rx_before=$(rx_bytes)
set +e
"$TUNER" apply --state-dir "$STATE" --color never --profile "$profile" --yes --json --budget 60s \
  --peer 10.217.0.2 --peer-key "$WORK/peer.key" --report "$WORK/small.json" \
  >"$WORK/small.out" 2>"$WORK/small.err"
rc=$?
set -e
[ "$rc" = 0 ] || fail "apply exited $rc: $(cat "$WORK/small.err")"
rx_after=$(rx_bytes)
grep -q "tuner: warning: group sysctl: the peer's net.ipv4.tcp_wmem maximum is 4194304 (4 MiB), below this node's candidate tcp_rmem maximum 268435456 (256 MiB)" "$WORK/small.err" ||
  fail "stderr does not say why: $(cat "$WORK/small.err")"
jq -e '(.groups[0].stats | has("bench") | not) and (.groups[0].stats.outcome | startswith("soak"))
  and (.warnings | map(.message) | any(test("tcp_wmem maximum is 4194304 .* the guard soak decides the group instead")))' \
  "$WORK/small.json" >/dev/null ||
  fail "report: $(jq -c '{s: .groups[0].stats.outcome, b: .groups[0].stats.bench, w: .warnings}' "$WORK/small.json")"
# No trials across the path: not even a megabyte came in through the veth.
[ $((rx_after - rx_before)) -lt 1000000 ] || fail "$((rx_after - rx_before)) bytes came in through tpw0"
[ "$(jq -r '.groups[0].decision' "$WORK/small.json")" = kept ] && expect_rc 0 t rollback --last
[ "$(sysctl_get net.ipv4.tcp_rmem)" = "$rmem_before" ] || fail "rollback left tcp_rmem"

note "2. the peer's tcp_wmem max is 256 MiB: the benchmark decides, as before"
ip netns exec "$ns" sysctl -qw net.ipv4.tcp_wmem="4096 16384 268435456"
rx_before=$(rx_bytes)
expect_rc 0 t apply --profile "$profile" --yes --json --budget 60s --peer 10.217.0.2 \
  --peer-key "$WORK/peer.key" --report "$WORK/large.json"
rx_after=$(rx_bytes)
grep -q "tcp_wmem maximum" <<<"$OUT" && fail "a warning with a large enough peer: $OUT"
jq -e '.groups[0].stats.bench == "wan@peer" and .groups[0].stats.trials.baseline >= 1
  and (.warnings | length == 0)' "$WORK/large.json" >/dev/null ||
  fail "large: $(jq -c '{s: .groups[0].stats | {bench, outcome, trials}, w: .warnings}' "$WORK/large.json")"
[ $((rx_after - rx_before)) -gt 10000000 ] || fail "only $((rx_after - rx_before)) bytes came in through tpw0"
note "   $(jq -r '.groups[0] | "\(.decision): \(.stats.outcome), \(.stats.trials.baseline)+\(.stats.trials.candidate) trials"' "$WORK/large.json"), $(((rx_after - rx_before) / 1000000)) MB in through the veth"
[ "$(jq -r '.groups[0].decision' "$WORK/large.json")" = kept ] && expect_rc 0 t rollback --last
echo "PASS: peer_window"
