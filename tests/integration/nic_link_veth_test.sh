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
  # Channels and XPS in one plan: the masks are planned for the queues there are after
  # the channel change and written after it, so one apply converges (the next plan is
  # empty, exit 0 with --detailed-exitcode), fewer queues or more.
  q=/sys/class/net/tv0/queues
  txq() { ls -d $q/tx-* | wc -l; }
  for f in $q/tx-*/xps_cpus; do echo 1 > "$f"; done
  printf "[profile]\nname = \"fewer\"\n\n[nic.tv0]\nchannels = { tx = 2 }\nxps = \"off\"\n" > "$work/fewer.toml"
  printf "[profile]\nname = \"more\"\n\n[nic.tv0]\nchannels = { tx = 3 }\nxps = \"off\"\n" > "$work/more.toml"
  "$1" plan --profile "$work/fewer.toml" --json > "$work/plan.json"
  python3 -c "import json, sys
knobs = [c[\"knob\"] for c in json.load(open(sys.argv[1]))[\"changes\"]]
assert knobs == [\"nic:tv0:channels\", \"nic:tv0:xps:tx-0\", \"nic:tv0:xps:tx-1\"], knobs" "$work/plan.json"
  for p in fewer more; do
    [ $p = more ] && echo 1 > $q/tx-0/xps_cpus
    "$1" apply --profile "$work/$p.toml" --no-verify --yes --state-dir "$work/state" > /dev/null
    rc=0; "$1" plan --profile "$work/$p.toml" --detailed-exitcode > "$work/again" || rc=$?
    [ "$rc" = 0 ] || { echo "plan after one apply of $p: exit $rc"; cat "$work/again"; exit 1; }
    [ "$(cat $q/tx-0/xps_cpus)" = 0 ] || { echo "$p: tx-0 xps_cpus $(cat $q/tx-0/xps_cpus)"; exit 1; }
  done
  [ "$(txq)" = 3 ] || { echo "apply left $(txq) TX queues, not 3"; exit 1; }
  "$1" rollback --last --state-dir "$work/state" > /dev/null
  [ "$(txq)" = 2 ] || { echo "rollback left $(txq) TX queues, not 2"; exit 1; }
  [ "$(cat $q/tx-0/xps_cpus)" = 1 ] || { echo "rollback left tx-0 xps_cpus $(cat $q/tx-0/xps_cpus)"; exit 1; }
  rm -rf "$work"
' "$tests" "$tuner"
echo PASS
