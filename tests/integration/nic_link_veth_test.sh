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
  # ...with the MTU range rtnetlink reports (a veth: ETH_MIN_MTU..ETH_MAX_MTU).
  python3 -c "import json, sys
nics = {n[\"name\"]: n for n in json.load(open(sys.argv[1]))[\"nics\"]}
assert nics[\"tv0\"][\"mtu_range\"] == {\"min\": 68, \"max\": 65535}, nics[\"tv0\"]" \
    /tmp/tuner-veth-probe.$$.json
  rm -f /tmp/tuner-veth-probe.$$.json
  # nic:IF:mtu through the binary: a value past the range is refused by plan (exit 2,
  # file:line), one inside it applies and rolls back.
  work=$(mktemp -d)
  printf "[profile]\nname = \"big\"\n\n[nic.tv0]\nmtu = 65536\n" > "$work/big.toml"
  printf "[profile]\nname = \"jumbo\"\n\n[nic.tv0]\nmtu = 9000\n" > "$work/jumbo.toml"
  rc=0; "$1" plan --profile "$work/big.toml" 2> "$work/err" || rc=$?
  [ "$rc" = 2 ] || { echo "plan of mtu 65536: exit $rc, not 2"; exit 1; }
  grep -q "big.toml:4:1: tv0: mtu = 65536 is outside the MTUs the device takes (68 to 65535 bytes)" \
    "$work/err" || { cat "$work/err"; exit 1; }
  "$1" apply --profile "$work/jumbo.toml" --no-verify --yes --state-dir "$work/state" > /dev/null
  [ "$(cat /sys/class/net/tv0/mtu)" = 9000 ] || { echo "apply left MTU $(cat /sys/class/net/tv0/mtu)"; exit 1; }
  "$1" rollback --last --state-dir "$work/state" > /dev/null
  [ "$(cat /sys/class/net/tv0/mtu)" = 1500 ] || { echo "rollback left MTU $(cat /sys/class/net/tv0/mtu)"; exit 1; }
  rm -rf "$work"
' "$tests" "$tuner"
echo PASS
