#!/bin/bash
# The management port found by its SSH sessions (probes/ssh_session.h), on the real
# kernel in private network namespaces: the node's mgmt0 reaches a client namespace by a
# subnet route, data0 holds the default routes and data1 is another data port. A listener
# on port 22 with a session from the client (through mgmt0), and one on 2200 that only
# SSH_CONNECTION names: `tuner probe --json` marks mgmt0 (and not data0 or data1), and a
# rule with default_route = false plans only data1, each port left out with its note.
# Without a session mgmt0 is a data port again. Touches nothing of the host.
set -u
tuner=$(realpath "${1:?usage: $0 TUNER_BINARY}")
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: needs python3"; exit 77; }
ip netns add "tsn$$" 2>/dev/null || { echo "SKIP: ip netns add not permitted"; exit 77; }
node=tsn$$ client=tsc$$ far=tsf$$
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  ip netns del "$node" 2>/dev/null; ip netns del "$client" 2>/dev/null
  ip netns del "$far" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
set -e
ip netns add "$client"; ip netns add "$far"
ip link add mgmt0 netns "$node" type veth peer name m0 netns "$client"
ip link add data0 netns "$node" type veth peer name d0 netns "$far"
ip link add data1 netns "$node" type veth peer name d1 netns "$far"
nsx() { ip netns exec "$@"; }
for ns in "$node" "$client" "$far"; do nsx "$ns" ip link set lo up; done
nsx "$node" ip addr add 10.9.0.1/24 dev mgmt0
nsx "$client" ip addr add 10.9.0.2/24 dev m0
nsx "$node" ip addr add 10.8.0.1/24 dev data0
nsx "$far" ip addr add 10.8.0.254/24 dev d0
nsx "$node" ip addr add 10.7.0.1/24 dev data1
for l in "$node mgmt0" "$client m0" "$node data0" "$far d0" "$node data1" "$far d1"; do
  nsx "${l% *}" ip link set "${l#* }" up
done
nsx "$node" ip route add default via 10.8.0.254 dev data0
cat >"$tmp/ssh_session_probe.toml" <<TOML
[profile]
name = "ssh_session_probe"
[nic."[dm]*"]
mtu = 1400
default_route = false
TOML
check() {  # check LABEL EXPECTED_SSH_PORTS EXPECTED_KNOBS [env...]
  local label=$1 ssh=$2 knobs=$3
  shift 3
  nsx "$node" env "$@" "$tuner" probe --json >"$tmp/probe.json" || fail "$label: probe"
  nsx "$node" env "$@" "$tuner" plan --json --profile "$tmp/ssh_session_probe.toml" >"$tmp/plan.json" ||
    fail "$label: plan"
  python3 - "$tmp/probe.json" "$tmp/plan.json" "$ssh" "$knobs" "$label" <<'PY' || exit 1
import json, sys
inv, plan = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
want_ssh, want_knobs, label = sys.argv[3].split(), sys.argv[4].split(), sys.argv[5]
nics = {n["name"]: n for n in inv["nics"]}
ssh = sorted(n for n in nics if nics[n]["ssh_session"])
assert ssh == want_ssh, (label, ssh)
assert all(nics[n]["ssh_session"] is False for n in nics if n not in want_ssh), nics
knobs = sorted(c["knob"] for c in plan["changes"])
assert knobs == want_knobs, (label, knobs, plan["notes"])
notes = [n for n in plan["notes"] if "SSH session" in n]
if want_ssh:
    assert len(notes) == 1 and notes[0].startswith("mgmt0: ") and "from 10.9.0.2" in notes[0], plan["notes"]
else:
    assert not notes, plan["notes"]
assert any(n.startswith("data0: ") and "default route" in n for n in plan["notes"]), plan["notes"]
print("ok:", label, "ssh_session on", ssh or "none", "; planned", knobs)
PY
}
# Started with ip netns exec itself, which execs the command, so $! is the listener's
# (or client's) own PID for cleanup to stop (a shell function would fork a subshell).
serve() {  # serve PORT: a listener in the node namespace that holds its sessions
  ip netns exec "$node" python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", int(sys.argv[1]))); s.listen(4)
held = []
while True:
    held.append(s.accept()[0])' "$1" &
  pids+=($!)
}
connect() {  # connect PORT: a session from the client namespace, held open
  ip netns exec "$client" python3 -c '
import socket, sys, time
for _ in range(50):
    try:
        c = socket.create_connection(("10.9.0.1", int(sys.argv[1]))); break
    except OSError: time.sleep(0.1)
else: sys.exit("no connection")
time.sleep(600)' "$1" &
  pids+=($!)
}

check "no session" "" "nic:data1:mtu nic:mgmt0:mtu"
serve 2200
connect 2200
sleep 1
# A session on 2200, which neither 22 nor sshd_config names: seen only through the
# SSH_CONNECTION of the session tuner runs in.
check "port 2200 unnamed" "" "nic:data1:mtu nic:mgmt0:mtu"
check "SSH_CONNECTION names 2200" "mgmt0" "nic:data1:mtu" SSH_CONNECTION="10.9.0.2 40000 10.9.0.1 2200"
serve 22
connect 22
sleep 1
check "a session on 22" "mgmt0" "nic:data1:mtu"
