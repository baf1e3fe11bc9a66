#!/bin/bash
# `tuner probe --json` inside a private network+mount namespace with a veth pair: the
# NIC entry must carry the link data that ethtool netlink reports for veth (10000/full)
# and agree with the namespace's own sysfs. A second pair holds the namespace's default
# routes (IPv4 on vc, IPv6 on vb): the probe names them, and a rule with
# default_route = false plans only the other ports. Touches nothing of the host.
set -u
tuner=${1:?usage: $0 TUNER_BINARY}
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: needs python3 to read JSON"; exit 77; }
unshare -nm true 2>/dev/null || { echo "SKIP: unshare -nm not permitted"; exit 77; }

exec unshare -nm bash -c '
set -eu
mount --make-rprivate /
mount -t sysfs sysfs /sys
ip link add va numrxqueues 2 numtxqueues 2 type veth peer name vb
ip link set va mtu 9000 up
ip link set vb up
trap "rm -f /tmp/netlink_probe.$$.json /tmp/netlink_probe_$$.toml /tmp/netlink_probe.$$.plan.json" EXIT
ip link add vc type veth peer name vd
ip link set vc up; ip link set vd up
ip addr add 192.0.2.10/24 dev vc
ip route add default via 192.0.2.1 dev vc
ip -6 addr add 2001:db8::10/64 dev vb nodad
ip -6 route add default via 2001:db8::1 dev vb
cat > /tmp/netlink_probe_$$.toml <<TOML
[profile]
name = "netlink_probe_$$"
[nic."v*"]
mtu = 1400
default_route = false
TOML
"$1" plan --json --profile /tmp/netlink_probe_$$.toml > /tmp/netlink_probe.$$.plan.json
"$1" probe --json > /tmp/netlink_probe.$$.json
python3 - /tmp/netlink_probe.$$.json /tmp/netlink_probe.$$.plan.json <<PY
import json, sys
inv = json.load(open(sys.argv[1]))
nics = {n["name"]: n for n in inv["nics"]}
assert set(nics) == {"lo", "va", "vb", "vc", "vd"}, nics.keys()
routed = {n: nics[n]["default_route"] for n in nics}
assert routed == {"lo": False, "va": False, "vb": True, "vc": True, "vd": False}, routed
plan = json.load(open(sys.argv[2]))
knobs = sorted(c["knob"] for c in plan["changes"])
assert knobs == ["nic:va:mtu", "nic:vd:mtu"], knobs
notes = [n for n in plan["notes"] if "holds the default route" in n]
assert len(notes) == 1 and notes[0].startswith("vb, vc: "), plan["notes"]
va = nics["va"]
sysfs_speed = int(open("/sys/class/net/va/speed").read())
assert va["link"]["speed_mbps"] == sysfs_speed == 10000, va["link"]
assert va["link"]["duplex"] == open("/sys/class/net/va/duplex").read().strip() == "full"
assert va["link"]["up"] is True, va["link"]
assert va["mtu"] == 9000 and va["virtual"] is True, va
assert va["channels"]["rx"] == 2 and va["rx_queues"] == 2, va
assert va["rings"] is None, va
assert va["coalesce"] is None, va  # veth has no interrupt coalescing (EOPNOTSUPP)
assert not [e for e in inv["errors"] if e["probe"] in ("nic", "netlink")], inv["errors"]
print("ok: va", va["link"]["speed_mbps"], va["link"]["duplex"], "; default routes on vb, vc")
PY
' bash "$tuner"
