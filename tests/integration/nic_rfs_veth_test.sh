#!/usr/bin/env bash
# [nic] rfs through the binary on the real kernel: a veth with 2 RX queues in a private
# network and mount namespace (nothing of the host is touched; its peer's name is outside
# the rule's glob). `plan --json` lists each RX queue's flow table (4096 / 2 = 2048) and
# says that the socket flow table, net.core.rps_sock_flow_entries, is global (only the
# initial namespace has it) and left to the host; `apply` writes the queues' tables (read
# back from sysfs) and one apply converges; `rollback --last` puts 0 back.
# usage: nic_rfs_veth_test.sh PATH/TO/tuner
set -euo pipefail
tuner=${1:?usage: $0 PATH/TO/tuner}
skip() { echo "SKIP: $*"; exit 77; }

if [ "${2:-}" != --in-netns ]; then
  [ "$(id -u)" = 0 ] || skip "needs root (network namespaces)"
  command -v unshare >/dev/null || skip "no unshare"
  command -v ip >/dev/null || skip "no ip (iproute2)"
  command -v python3 >/dev/null || skip "no python3"
  # In a new network namespace /sys/class/net still shows the host's interfaces until
  # sysfs is mounted again, in a private mount namespace.
  exec unshare --net --mount --propagation private bash "$0" "$tuner" --in-netns
fi

mount -t sysfs sysfs /sys
ip link add vr0 numrxqueues 2 numtxqueues 2 type veth peer name pr0 numrxqueues 2 numtxqueues 2
ip link set vr0 up
ip link set pr0 up
q=/sys/class/net/vr0/queues
[ -e $q/rx-0/rps_flow_cnt ] || skip "no rps_flow_cnt: a kernel built without CONFIG_RPS"
[ ! -e /proc/sys/net/core/rps_sock_flow_entries ] ||
  { echo "this namespace shows net.core.rps_sock_flow_entries: not a private one?"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '[profile]\nname = "rfs"\n\n[nic."v*"]\nrfs = 4096\n' > "$work/rfs.toml"

"$tuner" plan --profile "$work/rfs.toml" --json > "$work/plan.json"
python3 - "$work/plan.json" <<'EOF'
import json, sys
plan = json.load(open(sys.argv[1]))
changes = {c["knob"]: c for c in plan["changes"]}
assert sorted(changes) == ["nic:vr0:rfs:rx-0", "nic:vr0:rfs:rx-1"], sorted(changes)
for c in changes.values():
    assert c["current"] == "0" and c["desired"] == "2048", c
    assert "4096 entries / 2 RX queues = 2048" in c["reason"], c["reason"]
notes = "\n".join(plan["notes"])
for text in ["sysctl:net.core.rps_sock_flow_entries: not in this network namespace",
             "RFS on vr0: the socket flow table (net.core.rps_sock_flow_entries) is global, "
             "kept by the initial network namespace, not this one, so this plan leaves it",
             "until the host sets it to 4096 or more"]:
    assert text in notes, (text, notes)
EOF

"$tuner" apply --profile "$work/rfs.toml" --no-verify --yes --state-dir "$work/state" > /dev/null
for rx in 0 1; do
  got=$(cat $q/rx-$rx/rps_flow_cnt)
  [ "$got" = 2048 ] || { echo "apply left rx-$rx rps_flow_cnt $got, not 2048"; exit 1; }
done
rc=0
"$tuner" plan --profile "$work/rfs.toml" --detailed-exitcode > "$work/again" || rc=$?
[ "$rc" = 0 ] || { echo "plan after one apply: exit $rc"; cat "$work/again"; exit 1; }

"$tuner" rollback --last --state-dir "$work/state" > /dev/null
for rx in 0 1; do
  got=$(cat $q/rx-$rx/rps_flow_cnt)
  [ "$got" = 0 ] || { echo "rollback left rx-$rx rps_flow_cnt $got, not 0"; exit 1; }
done
echo PASS
