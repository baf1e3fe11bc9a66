#!/usr/bin/env bash
# The two ethtool backends on the real kernel (DESIGN.md "ethtool backends"), forced by
# TUNER_ETHTOOL_BACKEND, in a private network and mount namespace with a veth pair
# (nothing of the host is touched):
#  - `tuner probe --json` reports every NIC alike through netlink and the ioctl, and
#    says which backend read it;
#  - one profile (a sysctl, the veth's channels and MTU, rings the veth does not have)
#    plans alike, applies the same journal and leaves the same state through each, and
#    each rollback puts everything back; a run applied through one backend rolls back
#    through the other;
#  - rings neither backend can read are a plan note, and the rest of the run applies;
#  - a bad TUNER_ETHTOOL_BACKEND is an error the probe reports, never a silent default.
# (veth has channels but no writable link, rings or coalescing: those are covered by
# probes/ethtool_ioctl_msg_test.cc and probes/ethtool_ioctl_live_test.cc.)
# usage: ethtool_backends_test.sh PATH/TO/tuner
set -euo pipefail
tuner=$(readlink -f "${1:?usage: $0 PATH/TO/tuner}")
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (network namespaces)"
command -v unshare >/dev/null || skip "no unshare"
command -v ip >/dev/null || skip "no ip (iproute2)"
command -v python3 >/dev/null || skip "needs python3 to read JSON"
unshare -nm true 2>/dev/null || skip "unshare -nm not permitted"

exec unshare --net --mount --propagation private bash -euo pipefail -c '
tuner=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
mount -t sysfs sysfs /sys
work=$(mktemp -d /tmp/tuner-ethtool.XXXXXX)
trap "rm -rf $work" EXIT
ip link add tv0 numtxqueues 4 numrxqueues 4 type veth peer name tv1 numtxqueues 4 numrxqueues 4
ip link set tv0 up
ip link set tv1 up
somaxconn=/proc/sys/net/core/somaxconn
orig_somaxconn=$(cat $somaxconn)
channels() { python3 -c "import json,sys; print(json.load(sys.stdin)[\"nics\"][int(sys.argv[1])][\"channels\"])" ; }

# Probe: the NIC fields are equal, the backend is named.
for b in netlink ioctl; do
  TUNER_ETHTOOL_BACKEND=$b "$tuner" probe --json > "$work/probe-$b.json"
done
python3 - "$work/probe-netlink.json" "$work/probe-ioctl.json" <<PY
import json, sys
docs = [json.load(open(f)) for f in sys.argv[1:]]
for doc, backend in zip(docs, ("netlink", "ioctl")):
    assert [n["ethtool"] for n in doc["nics"]] == [backend] * len(doc["nics"]), doc["nics"]
    assert not [e for e in doc["errors"] if e["probe"] in ("nic", "netlink")], doc["errors"]
a, b = ([{k: v for k, v in n.items() if k != "ethtool"} for n in d["nics"]] for d in docs)
assert a == b, ("the backends differ", a, b)
tv0 = {n["name"]: n for n in a}["tv0"]
assert tv0["link"]["speed_mbps"] == 10000 and tv0["link"]["port"] == "TP", tv0["link"]
assert tv0["channels"]["tx"] == 4 and tv0["channels"]["tx_max"] == 4, tv0["channels"]
print("ok: probe alike through both backends:", ", ".join(n["name"] for n in a))
PY

# A bad value is reported, not taken for the default.
TUNER_ETHTOOL_BACKEND=ioct "$tuner" probe --json > "$work/probe-bad.json"
grep -q "TUNER_ETHTOOL_BACKEND: .ioct. is not a backend" "$work/probe-bad.json" \
  || fail "a bad TUNER_ETHTOOL_BACKEND was not reported: $(grep -A3 errors "$work/probe-bad.json")"

cat > "$work/backends.toml" <<TOML
[profile]
name = "backends"

[sysctl]
"net.core.somaxconn" = "1234"

[nic.tv0]
channels = { tx = 2, rx = 3 }
mtu = 9000
rings = { rx = 512 }
TOML

state_of() {  # the machine state the profile touches, one line
  echo "somaxconn=$(cat $somaxconn) mtu=$(cat /sys/class/net/tv0/mtu)" \
       "tx=$(ls -d /sys/class/net/tv0/queues/tx-* | wc -l)" \
       "rx=$(ls -d /sys/class/net/tv0/queues/rx-* | wc -l)"
}
before=$(state_of)
for b in netlink ioctl; do
  export TUNER_ETHTOOL_BACKEND=$b
  "$tuner" plan --profile "$work/backends.toml" --json > "$work/plan-$b.json"
  "$tuner" apply --profile "$work/backends.toml" --no-verify --yes --json \
    --state-dir "$work/state-$b" > "$work/run-$b.json" || fail "$b: apply failed: $(cat "$work/run-$b.json")"
  after=$(state_of)
  [ "$after" = "somaxconn=1234 mtu=9000 tx=2 rx=3" ] || fail "$b: apply left $after"
  echo "$after" > "$work/after-$b"
  cp "$work"/state-$b/runs/*.journal "$work/journal-$b"
  "$tuner" rollback --last --state-dir "$work/state-$b" > /dev/null
  [ "$(state_of)" = "$before" ] || fail "$b: rollback left $(state_of), not $before"
  unset TUNER_ETHTOOL_BACKEND
done
python3 - "$work" <<PY
import json, sys
w = sys.argv[1]
plans = [json.load(open(f"{w}/plan-{b}.json")) for b in ("netlink", "ioctl")]
assert plans[0]["changes"] == plans[1]["changes"], plans
knobs = [c["knob"] for c in plans[0]["changes"]]
assert "sysctl:net.core.somaxconn" in knobs and "nic:tv0:channels" in knobs, knobs
assert "nic:tv0:rings" not in knobs, knobs
notes = [n for n in plans[0]["notes"] if "does not report rings" in n]
assert notes and notes[0].startswith("tv0: "), plans[0]["notes"]
# The namespace note counts the other namespaces of the host, which tests beside this one
# (ctest -j) create and remove between the two plans.
alike = [[n for n in p["notes"] if "per network namespace" not in n] for p in plans]
assert alike[0] == alike[1], plans
def records(b):  # what a journal says, without its times, pids and run id
    out = []
    for line in open(f"{w}/journal-{b}"):
        r = json.loads(line)
        for k in ("time", "pid", "run_id", "run", "id"):
            r.pop(k, None)
        out.append(r)
    return out
a, b = records("netlink"), records("ioctl")
assert a == b, ("the journals differ", a, b)
ch = [r for r in a if r.get("knob") == "nic:tv0:channels" and r.get("type") == "intent"]
assert ch and ch[0]["before"] == "rx=4,tx=4" and ch[0]["after"] == "rx=3,tx=2", ch
runs = [json.load(open(f"{w}/run-{b}.json")) for b in ("netlink", "ioctl")]
def summary(run):
    return [(g["name"], g["decision"], [(c["knob"], c["before"], c["after"], c["status"])
                                        for c in g["changes"]]) for g in run["groups"]]
assert summary(runs[0]) == summary(runs[1]), runs
assert all(c[3] == "applied" for g in summary(runs[0]) for c in g[2]), summary(runs[0])
print("ok: same plan, journal (%d records) and state through both backends" % len(a))
PY

# Applied through netlink, rolled back through the ioctl (and the other way round).
for pair in "netlink ioctl" "ioctl netlink"; do
  set -- $pair
  TUNER_ETHTOOL_BACKEND=$1 "$tuner" apply --profile "$work/backends.toml" --no-verify --yes \
    --state-dir "$work/cross" > /dev/null
  [ "$(state_of)" = "somaxconn=1234 mtu=9000 tx=2 rx=3" ] || fail "$1: apply left $(state_of)"
  TUNER_ETHTOOL_BACKEND=$2 "$tuner" rollback --last --state-dir "$work/cross" > /dev/null
  [ "$(state_of)" = "$before" ] || fail "applied via $1, rolled back via $2: $(state_of)"
done
echo "ok: a run applied through one backend rolls back through the other"
echo "$orig_somaxconn" > $somaxconn
' bash "$tuner"
