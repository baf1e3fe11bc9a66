# Link changes judged after they settle (tuner/verify/README.md "Guards"), on the real
# kernel: a veth pair in a private network and mount namespace. /proc/uptime is a bind
# mount saying ten hours, so the since-boot flap prior is the pair's 2 carrier changes
# in 36000 s, as on a host up for hours (this machine may have been up for minutes).
#  1. nic:tfl0:channels rx/tx 4 -> 2 (a channel change flips in blocks of 3 trials per
#     arm, so up to 30 trials), verified by an exec benchmark that is 10% faster
#     with 2 queues. A veth's channel change takes its carrier down and up, and a
#     helper bounces the peer 1.3 s after every change of the queue count (a NIC that
#     renegotiates after the SET returned, in both directions): every write's carrier
#     changes fall in its settle window, none in the trials: kept (gain), each arm's
#     carrier changes shown as expected. (Before issue 40 the late bounce fell in the
#     first trial after each write, and the boot rate pooled with the baseline trials
#     rolled the group back for link_flaps.)
#  2. The same knob while the helper also flaps the peer every half second whenever 2
#     queues are live: rolled back by the link_flaps guard.
if [ -z "${TUNER_IN_MNTNS:-}" ] && [ "$(id -u)" = 0 ] && unshare --mount true 2>/dev/null; then
  TUNER_IN_MNTNS=1 exec unshare --mount --propagation private bash "$0" "$@"
fi
source "$(dirname "$0")/lib.sh"
enter_netns "$@"
set -e
[ -n "${TUNER_IN_MNTNS:-}" ] || skip "unshare --mount failed (no mount namespaces here)"
command -v jq >/dev/null || skip "jq is not installed"
if "$TUNER" probe --json 2>/dev/null | grep -q '"netlink: not implemented"'; then
  skip "the ethtool netlink client is not built yet"
fi
# This network namespace's devices in /sys (the mount namespace is ours alone).
mount -t sysfs sysfs /sys
echo "36000.00 70000.00" > "$WORK/uptime"
mount --bind "$WORK/uptime" /proc/uptime
ip link set lo up
ip link add tfl0 numtxqueues 4 numrxqueues 4 type veth peer name tfl1 numtxqueues 4 numrxqueues 4
ip link set tfl0 up && ip link set tfl1 up
queues() { ls -d /sys/class/net/tfl0/queues/rx-* 2>/dev/null | wc -l; }
[ "$(queues)" = 4 ] || fail "tfl0 starts with $(queues) rx queues, not 4"
c0=$(cat /sys/class/net/tfl0/carrier_changes)

flapper=
cleanup() {
  [ -n "$flapper" ] && kill "$flapper" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
# The peer bounced (tfl0's carrier down and up) 1.3 s after each change of the queue
# count: after the knob's own wait for the link (1 s) and the loop's 100 ms settle,
# inside its 2 s link window. With "live", also every half second while 2 queues are
# live.
start_flapper() {
  (
    last=$(queues)
    while :; do
      now=$(queues)
      if [ "$now" != "$last" ]; then
        last=$now
        sleep 1.3
        ip link set tfl1 down && ip link set tfl1 up
      elif [ "$1" = live ] && [ "$now" = 2 ]; then
        ip link set tfl1 down && ip link set tfl1 up
        sleep 0.5
      fi
      sleep 0.05
    done
  ) &
  flapper=$!
}
stop_flapper() { kill "$flapper" 2>/dev/null || true; wait "$flapper" 2>/dev/null || true; flapper=; }

profile="$WORK/channels.toml"
cat > "$profile" <<'P'
[profile]
name = "channels"

[nic."tfl0"]
channels = { rx = 2, tx = 2 }

[verify]
bench = ["queues"]
min_effect = 0.05
max_trials = 30

[bench.queues]
kind = "exec"
# 0.6 s per trial, 10% faster with 2 rx queues, +-1% noise.
command = ["/bin/bash", "-c", "n=$(ls -d /sys/class/net/tfl0/queues/rx-* | wc -l); sleep 0.6; awk -v n=$n -v r=$RANDOM 'BEGIN { printf \"%.2f ops/s\\n\", (n == 2 ? 1100 : 1000) * (0.99 + 0.02 * r / 32767) }'"]
metric = { regex = '([0-9.]+) ops/s' }
unit = "ops/s"
timeout = "20s"
P
flaps_row='.groups[0].stats.guards[] | select(.metric == "link_flaps" and .interface == "tfl0")'

note "1. a channel change whose link renegotiates late, after every write: kept"
start_flapper late
expect_rc 0 t apply --profile "$profile" --yes --json --report "$WORK/late.json"
stop_flapper
g=$(jq -c '.groups[0]' "$WORK/late.json")
jq -e '.decision == "kept" and .stats.outcome == "gain"' <<<"$g" >/dev/null || fail "not kept: $g"
[ "$(queues)" = 2 ] || fail "kept, but tfl0 has $(queues) rx queues"
row=$(jq -c "$flaps_row" "$WORK/late.json")
# 2 changes from the veth itself and 2 from the late bounce, per write to each arm.
jq -e '.tripped == false and .counts.baseline.events == 0 and .counts.candidate.events == 0
  and .expected.baseline >= 4 and .expected.candidate >= 4' <<<"$row" >/dev/null ||
  fail "link_flaps row: $row"
c1=$(cat /sys/class/net/tfl0/carrier_changes)
[ $((c1 - c0)) -ge 8 ] || fail "the carrier changed only $((c1 - c0)) times: the knob did not renegotiate"
note "   kept: $(jq -c '.stats | {effect, trials, order}' <<<"$g"); link_flaps: $row; carrier changes in all: $((c1 - c0))"
expect_rc 0 t rollback --last
[ "$(queues)" = 4 ] || fail "rollback left $(queues) rx queues"

note "2. the same change while the link keeps flapping with 2 queues: rolled back (guard)"
start_flapper live
expect_rc 0 t apply --profile "$profile" --yes --json --report "$WORK/live.json"
stop_flapper
g=$(jq -c '.groups[0]' "$WORK/live.json")
jq -e '.decision == "rolled_back" and .stats.outcome == "guard" and (.stats.error | test("link_flaps tfl0"))' \
  <<<"$g" >/dev/null || fail "not rolled back by link_flaps: $g"
[ "$(queues)" = 4 ] || fail "rolled back, but tfl0 has $(queues) rx queues"
row=$(jq -c "$flaps_row" "$WORK/live.json")
jq -e '.tripped == true and .counts.candidate.events > .counts.baseline.events' <<<"$row" >/dev/null ||
  fail "link_flaps row: $row"
note "   $(jq -r '.stats.error' <<<"$g")"
if python3 -c 'import jsonschema' 2>/dev/null; then
  src=${TUNER_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
  for f in late live; do
    python3 "$src/tests/schema/validate.py" "$WORK/$f.json" >/dev/null ||
      fail "$f.json: $(python3 "$src/tests/schema/validate.py" "$WORK/$f.json" 2>&1 | head -3)"
  done
fi
echo PASS
