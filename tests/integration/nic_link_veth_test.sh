#!/usr/bin/env bash
# nic knobs on the real kernel: a veth pair in a private network and mount namespace
# (nothing of the host is touched). Runs the "nic live" cases of tuner_tests there.
# usage: nic_link_veth_test.sh PATH/TO/tuner
set -euo pipefail
tuner=${1:?usage: $0 PATH/TO/tuner}
tests=$(dirname "$tuner")/tuner_tests
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (network namespaces)"
command -v unshare >/dev/null || skip "no unshare"
command -v ip >/dev/null || skip "no ip (iproute2)"
[ -x "$tests" ] || skip "no $tests"
if "$tuner" probe --json 2>/dev/null | grep -q '"netlink: not implemented"'; then
  skip "the ethtool netlink client is not built yet"
fi

# In a new network namespace /sys/class/net still shows the host's interfaces until
# sysfs is mounted again, in a private mount namespace.
unshare --net --mount --propagation private bash -euo pipefail -c '
  mount -t sysfs sysfs /sys
  ip link add tv0 numtxqueues 4 numrxqueues 4 type veth peer name tv1 numtxqueues 4 numrxqueues 4
  ip link set tv0 up
  ip link set tv1 up
  TUNER_LIVE_VETH=tv0 "$0" -tc="nic live*"
  # The tool itself: probe sees the pair, with link data from netlink.
  "$1" probe --json > /tmp/tuner-veth-probe.$$.json
  grep -q "\"name\": \"tv0\"" /tmp/tuner-veth-probe.$$.json
  rm -f /tmp/tuner-veth-probe.$$.json
' "$tests" "$tuner"
echo PASS
