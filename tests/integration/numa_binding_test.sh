#!/usr/bin/env bash
# numa knobs and `tuner exec --near` on the real kernel:
#  - exec --near node:0 runs the command on node 0's CPUs (no root needed);
#  - the cgroup knob on a temporary cpuset cgroup it creates and removes (root, v1
#    cpuset at /sys/fs/cgroup/cpuset or v2 with the cpuset controller).
# The process and unit knobs are covered by the unit tests (a sleep child; a temporary
# systemd directory).
# usage: numa_binding_test.sh PATH/TO/tuner
set -euo pipefail
tuner=${1:?usage: $0 PATH/TO/tuner}
tests=$(dirname "$tuner")/tuner_tests
fail() { echo "FAIL: $*"; exit 1; }

# exec: Cpus_allowed_list of the command is node 0's CPUs (those this process may use).
node0=$(cat /sys/devices/system/node/node0/cpulist)
allowed=$(grep Cpus_allowed_list /proc/self/status | cut -f2)
got=$("$tuner" exec --near node:0 -- grep Cpus_allowed_list /proc/self/status | cut -f2)
echo "node 0: $node0, allowed: $allowed, exec got: $got"
[ -n "$got" ] || fail "exec printed nothing"
# Every CPU it got is on node 0 and allowed, and it got all of those.
expand() {  # cpulist -> one CPU a line
  local part
  for part in ${1//,/ }; do seq "${part%-*}" "${part#*-}"; done | sort -n | uniq
}
want=$(comm -12 <(expand "$node0" | sort) <(expand "$allowed" | sort) | sort -n)
[ "$(expand "$got")" = "$want" ] || fail "exec --near node:0 ran on $got"
grep -q "bind:0" <("$tuner" exec --near node:0 -- cat /proc/self/numa_maps) || fail "memory not bound to node 0"
grep -q "prefer:0" <("$tuner" exec --near node:0 --memory preferred -- cat /proc/self/numa_maps) ||
  fail "--memory preferred: policy not prefer:0"
maps=$("$tuner" exec --near node:0 --memory none -- cat /proc/self/numa_maps)
grep -qE "bind:|prefer:" <<<"$maps" && fail "--memory none: the memory policy was set"
rc=0; "$tuner" exec --near node:0 --memory strict -- true 2>/dev/null || rc=$?
[ "$rc" = 2 ] || fail "--memory strict: exit $rc, expected 2"
rc=0; "$tuner" exec --near node:0 -- sh -c 'exit 7' || rc=$?
[ "$rc" = 7 ] || fail "exit status $rc, expected the command's 7"
rc=0; "$tuner" exec --near no-such-device -- true 2>/tmp/tuner-exec-err.$$ || rc=$?
[ "$rc" = 2 ] || fail "unknown device: exit $rc, expected 2"
grep -q "known: .*node:0" /tmp/tuner-exec-err.$$ || fail "unknown device: known devices not listed"
rm -f /tmp/tuner-exec-err.$$

if [ "$(id -u)" != 0 ]; then echo "PASS (exec); SKIP cgroup part: needs root"; exit 0; fi
[ -x "$tests" ] || { echo "PASS (exec); SKIP cgroup part: no $tests"; exit 0; }
if [ -w /sys/fs/cgroup/cpuset ]; then
  rel=cpuset/tuner-test-$$
elif [ -f /sys/fs/cgroup/cgroup.subtree_control ] && grep -qw cpuset /sys/fs/cgroup/cgroup.subtree_control; then
  rel=tuner-test-$$
else
  echo "PASS (exec); SKIP cgroup part: no writable cpuset cgroup"; exit 0
fi
dir=/sys/fs/cgroup/$rel
mkdir "$dir" || { echo "PASS (exec); SKIP cgroup part: cannot create $dir"; exit 0; }
trap 'rmdir "$dir" 2>/dev/null || true' EXIT
TUNER_LIVE_CGROUP=$rel "$tests" -tc="numa live*"
echo PASS
