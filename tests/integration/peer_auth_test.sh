# Peers that are not the rollout's own decide nothing (issue 41, "authenticated peers"):
# on the real kernel, namespace B (over a veth) serves, C is a third host behind B.
#   - bench --serve: no wildcard, an address and a key required, a key others can read
#     refused; a squatter already on the port makes it exit 4 and say so;
#   - a squatter (as nobody), a wrong key, the node's own address: apply exits 2 and
#     changes nothing;
#   - a third host that cannot prove the key is dropped with nothing served, and the
#     real server with the right key still decides the group;
#   - a peer that proves the key but trickles (an independent Python implementation of
#     the handshake) cannot stretch a trial past its deadline: the run ends near its
#     budget and keeps nothing.
source "$(dirname "$0")/lib.sh"
enter_netns "$@"
set -e
command -v jq >/dev/null || skip "jq is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
ip link set lo up
b=tuner-pab-$$ c=tuner-pac-$$
ip netns add "$b"
ip netns add "$c"
cleanup() {
  for n in "$b" "$c"; do
    ip netns pids "$n" 2>/dev/null | xargs -r kill 2>/dev/null
    ip netns del "$n" 2>/dev/null
  done
  rm -rf "$WORK"
}
trap cleanup EXIT
ip link add tpa0 type veth peer name tpa1 netns "$b"
ip addr add 10.218.0.1/30 dev tpa0 && ip link set tpa0 up
ip -n "$b" addr add 10.218.0.2/30 dev tpa1 && ip -n "$b" link set tpa1 up && ip -n "$b" link set lo up
ip -n "$b" link add tpa2 type veth peer name tpa3 netns "$c"
ip -n "$b" addr add 10.218.1.1/30 dev tpa2 && ip -n "$b" link set tpa2 up
ip -n "$c" addr add 10.218.1.2/30 dev tpa3 && ip -n "$c" link set tpa3 up && ip -n "$c" link set lo up
ip -n "$c" route add 10.218.0.0/30 via 10.218.1.1
ip netns exec "$b" sysctl -qw net.ipv4.ip_forward=1

key() { head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$1" && chmod 0600 "$1"; }
key "$WORK/k1"
key "$WORK/k2"
chmod 0711 "$WORK"  # nobody (the squatter) may run its script from here
inb() { ip netns exec "$b" "$@"; }

note "1. bench --serve: an address, no wildcard, a key only root reads"
expect_rc 2 inb "$TUNER" bench --serve --peer-key "$WORK/k1" --lifetime 5
grep -q -- "--address ADDR is required" <<<"$OUT" || fail "no --address: $OUT"
expect_rc 2 inb "$TUNER" bench --serve --address 0.0.0.0 --peer-key "$WORK/k1" --lifetime 5
grep -q "is a wildcard" <<<"$OUT" || fail "wildcard: $OUT"
expect_rc 2 inb env -u TUNER_PEER_KEY "$TUNER" bench --serve --address 10.218.0.2 --lifetime 5
grep -q "needs the rollout's key" <<<"$OUT" || fail "no key: $OUT"
cp "$WORK/k1" "$WORK/k-open" && chmod 0644 "$WORK/k-open"
expect_rc 2 inb "$TUNER" bench --serve --address 10.218.0.2 --peer-key "$WORK/k-open" --lifetime 5
grep -q "can be read by others" <<<"$OUT" || fail "a readable key: $OUT"

profile="$WORK/pauth.toml"
cat >"$profile" <<'P'
[profile]
name = "pauth"

[sysctl]
"net.ipv4.tcp_fin_timeout" = "34"

[verify]
bench = ["tcp-short"]
max_trials = 6
soak = "1s"

[bench.tcp-short]
kind = "tcp"
duration = "300ms"
rr_duration = "100ms"

[group.nic]
members = ["sysctl:net.ipv4.tcp_fin_timeout"]
peer = true
P
fin_before=$(sysctl_get net.ipv4.tcp_fin_timeout)
unchanged() { [ "$(sysctl_get net.ipv4.tcp_fin_timeout)" = "$fin_before" ] || fail "$1 changed fin_timeout"; }

note "2. a squatter (nobody) on the port: the server exits 4, apply exits 2, nothing changed"
cat >"$WORK/squat.py" <<'PY'
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.218.0.2", 5301)); s.listen(16)
s.settimeout(0.2)
end = time.time() + 60
while time.time() < end:
    try:
        c, _ = s.accept()
    except socket.timeout:
        continue
    c.settimeout(1)
    try:
        d = c.recv(64)
        # The old protocol's echo (enough to fool a tuner without keys), padded to the
        # length of a server's nonce and proof.
        c.sendall((d + bytes(48))[:48])
        c.recv(64)
    except OSError:
        pass
    c.close()
PY
chmod 0644 "$WORK/squat.py"
# The system's python3 (root's PATH may lead to one nobody cannot run).
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
inb setpriv --reuid=nobody --regid=nogroup --clear-groups "$py" "$WORK/squat.py" &
squatter=$!
for _ in $(seq 50); do inb ss -ltn | grep -q '10.218.0.2:5301' && break; sleep 0.1; done
inb ss -ltn | grep -q '10.218.0.2:5301' || fail "the squatter did not start"
expect_rc 4 inb "$TUNER" bench --serve --address 10.218.0.2 --peer-key "$WORK/k1" --lifetime 5
grep -q "10.218.0.2:5301 is already in use" <<<"$OUT" || fail "a taken port: $OUT"
expect_rc 2 t apply --profile "$profile" --yes --json --peer 10.218.0.2 --peer-key "$WORK/k1"
grep -q "did not prove the peer key" <<<"$OUT" || fail "the squatter passed: $OUT"
unchanged "a squatter"
ip netns pids "$b" | xargs -r kill  # the squatter alone runs there now
wait "$squatter" 2>/dev/null || true
for _ in $(seq 50); do inb ss -ltn | grep -q '10.218.0.2:5301' || break; sleep 0.1; done

note "3. the real server: a wrong key and this node's own address are refused"
inb "$TUNER" bench --serve --address 10.218.0.2 --peer-key "$WORK/k1" --lifetime 120 \
  >"$WORK/serve.log" 2>&1 &
for _ in $(seq 50); do grep -q "listening on 10.218.0.2:5301" "$WORK/serve.log" && break; sleep 0.1; done
grep -q "listening on 10.218.0.2:5301 for 120 s" "$WORK/serve.log" || fail "serve says: $(cat "$WORK/serve.log")"
expect_rc 2 t apply --profile "$profile" --yes --peer 10.218.0.2 --peer-key "$WORK/k2"
grep -q "did not prove the peer key" <<<"$OUT" || fail "a wrong key passed: $OUT"
expect_rc 2 t apply --profile "$profile" --yes --peer 10.218.0.2
grep -q "needs the rollout's key" <<<"$OUT" || fail "no key: $OUT"
for own in 127.0.0.1 10.218.0.1; do
  expect_rc 2 t apply --profile "$profile" --yes --peer "$own" --peer-key "$WORK/k1"
  grep -q "is this node itself" <<<"$OUT" || fail "--peer $own: $OUT"
done
unchanged "a refused peer"

note "4. a third host without the key gets nothing; the right key still decides"
cat >"$WORK/third.py" <<'PY'
import os, socket, struct, sys
s = socket.create_connection(("10.218.0.2", 5301), timeout=3)
hello = b"TUNR" + bytes([2, 2, 0, 0]) + struct.pack(">II", 65536, 1000)
s.sendall(hello + os.urandom(16))
challenge = b""
while len(challenge) < 48:
    d = s.recv(48 - len(challenge))
    if not d: break
    challenge += d
s.sendall(os.urandom(32))  # a guess at the proof
s.settimeout(3)
try:
    got = s.recv(1)
except OSError:
    got = b""
print("served" if got else "dropped")
PY
got=$(ip netns exec "$c" python3 "$WORK/third.py")
[ "$got" = dropped ] || fail "the third host was $got"
tx_bytes() { awk '$1 == "tpa0:" { print $10 }' /proc/net/dev; }
tx_before=$(tx_bytes)
expect_rc 0 t apply --profile "$profile" --yes --json --budget 60s --peer 10.218.0.2 \
  --peer-key "$WORK/k1" --report "$WORK/peer.json"
jq -e '.groups[0].stats.bench == "tcp-short@peer" and .groups[0].stats.trials.baseline >= 1' \
  "$WORK/peer.json" >/dev/null ||
  fail "with the key: $(jq -c '.groups[0].stats | {bench, outcome, trials, error}' "$WORK/peer.json")"
[ $(($(tx_bytes) - tx_before)) -gt 10000000 ] || fail "the trials did not cross the veth"
[ "$(jq -r '.groups[0].decision' "$WORK/peer.json")" = kept ] && expect_rc 0 t rollback --last
unchanged "the measured run, rolled back,"

note "5. a peer that proves the key and then trickles: the run ends near its budget, nothing kept"
cat >"$WORK/trickle.py" <<'PY'
import hashlib, hmac, os, socket, sys, threading, time
key = open(sys.argv[1], "rb").read().rstrip(b"\r\n\t ")
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
ls.bind(("10.218.0.2", 5302)); ls.listen(64)
def recvall(c, n):
    b = b""
    while len(b) < n:
        d = c.recv(n - len(b))
        if not d: raise OSError("closed")
        b += d
    return b
def mac(label, h, cn, sn):
    return hmac.new(key, label + h + cn + sn, hashlib.sha256).digest()
def serve(c):
    try:
        c.settimeout(5)
        h = recvall(c, 16); cn = recvall(c, 16); sn = os.urandom(16)
        c.sendall(sn + mac(b"tuner-peer/2 server", h, cn, sn))
        if not hmac.compare_digest(recvall(c, 32), mac(b"tuner-peer/2 client", h, cn, sn)):
            return
        c.sendall(h)
        c.settimeout(60)
        while c.recv(1):  # one byte every 50 ms, whatever the client sends
            time.sleep(0.05)
    except OSError:
        pass
    finally:
        c.close()
end = time.time() + 120
ls.settimeout(0.5)
while time.time() < end:
    try:
        c, _ = ls.accept()
    except socket.timeout:
        continue
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
inb python3 "$WORK/trickle.py" "$WORK/k1" &
for _ in $(seq 50); do inb ss -ltn | grep -q '10.218.0.2:5302' && break; sleep 0.1; done
sed -e 's/^rr_duration = "100ms"$/rr_duration = "100ms"\nport = 5302/' -e 's/^name = "pauth"$/name = "trickle"/' \
  "$profile" >"$WORK/trickle.toml"
start=$(date +%s)
expect_rc 0 t apply --profile "$WORK/trickle.toml" --yes --json --budget 15s --peer 10.218.0.2 \
  --peer-key "$WORK/k1" --report "$WORK/trickle.json"
took=$(($(date +%s) - start))
jq -e '.groups[0].decision != "kept"' "$WORK/trickle.json" >/dev/null ||
  fail "a trickling peer's group was kept: $(jq -c '.groups[0].stats | {outcome, error}' "$WORK/trickle.json")"
jq -r '.groups[0].stats.error // ""' "$WORK/trickle.json" | grep -q "ran past its deadline" ||
  fail "the trial did not end at its deadline: $(jq -c '.groups[0].stats | {outcome, error}' "$WORK/trickle.json")"
[ "$took" -le 40 ] || fail "a 15 s budget ran $took s against a trickling peer"
unchanged "a trickling peer"
note "   rolled back in $took s: $(jq -r '.groups[0].stats.error' "$WORK/trickle.json" | cut -c1-120)"
echo "PASS: peer_auth"
