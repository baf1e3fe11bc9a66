# tuner in a container-like sandbox (issue 41): its own network, mount and PID
# namespaces, /proc and /sys mounted for them. Its pid 1 shares its network namespace,
# which once made the probe take it for the initial one: the auto-selected profile then
# planned global sysctls the namespace does not have (net.core.netdev_max_backlog) and
# `plan` and `bench tcp` exited 2. Now both run, and the plan says what it skipped.
source "$(dirname "$0")/lib.sh"
TUNER=$(readlink -f "${1:?usage: $0 path/to/tuner}")
[ -x "$TUNER" ] || fail "no tuner binary at $1"
[ "$(id -u)" = 0 ] || skip "needs root (namespaces)"
if [ -z "${TUNER_IN_CONTAINER:-}" ]; then
  unshare --net --mount --pid --fork --mount-proc true 2>/dev/null ||
    skip "unshare --net --mount --pid failed here"
  TUNER_IN_CONTAINER=1 exec unshare --net --mount --pid --fork --mount-proc \
    --propagation private bash "$0" "$@"
fi
set -e
WORK=$(mktemp -d /tmp/tuner-it.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mount -t sysfs -o ro sysfs /sys
ip link set lo up
[ "$$" = 1 ] || fail "not pid 1 of a new PID namespace ($$)"
[ ! -e /proc/sys/net/core/netdev_max_backlog ] || fail "netdev_max_backlog shows in a new network namespace"

note "probe: not the initial network namespace"
expect_rc 0 "$TUNER" probe --json --color never
jq -e '.host.initial_net_namespace == false' <<<"$OUT" >/dev/null ||
  fail "probe: initial_net_namespace $(jq -c '.host.initial_net_namespace' <<<"$OUT")"

note "plan (the best-matching profile): exit 0, global sysctls skipped and said so"
expect_rc 0 "$TUNER" plan --color never --state-dir "$WORK/state"
grep -q "not in this network namespace (a global setting of the initial one): skipped" <<<"$OUT" ||
  fail "plan does not say what it skipped: $OUT"

note "bench tcp: runs over the namespace's loopback"
expect_rc 0 "$TUNER" bench tcp --color never --state-dir "$WORK/state"
grep -q "throughput" <<<"$OUT" || fail "bench tcp: $OUT"
echo "PASS: container_netns"
