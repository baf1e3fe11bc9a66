#!/usr/bin/env bash
# The units' capability sets and system call filters against the real binary: each
# command runs as its unit would run it, with the unit's CapabilityBoundingSet= (setpriv)
# and SystemCallFilter= (seccomp, EPERM for the rest, as SystemCallErrorNumber=EPERM;
# the groups expanded by systemd-analyze syscall-filter), in a private network and
# mount namespace with a veth pair (nothing of the host is touched):
#   tuner-status.service   probe and status read NIC channels, XPS and sysctls (drift);
#   tuner-restore.service  restore puts them back through ethtool netlink and sysfs;
#   tuner-provision.service apply --no-verify of a sysctl profile.
# A restore without CAP_NET_ADMIN must fail: the harness does restrict. The mount
# sandboxing (ProtectSystem= and so on) needs systemd as PID 1 and is not run here.
#   sandbox_test.sh PATH/TO/tuner   (root; CTest package/unit-sandbox)
set -uo pipefail
tuner=$(readlink -f "${1:?usage: sandbox_test.sh PATH/TO/tuner}")
units=$(cd "$(dirname "$0")" && pwd)
skip() { echo "SKIP: package/unit-sandbox: $*"; exit 77; }
fail() { echo "FAIL: package/unit-sandbox: $*"; exit 1; }
[[ $(id -u) -eq 0 ]] || skip "needs root (namespaces, setpriv)"
for t in setpriv unshare ip ethtool systemd-analyze; do
  command -v "$t" >/dev/null || skip "no $t"
done
/usr/bin/python3 -c 'import seccomp' 2>/dev/null || skip "no python3-seccomp"

if [[ -z "${TUNER_SANDBOX_NS:-}" ]]; then
  unshare --net --mount true 2>/dev/null || skip "unshare --net --mount failed here"
  TUNER_SANDBOX_NS=1 exec unshare --net --mount --propagation private bash "$0" "$@"
fi
mount -t sysfs sysfs /sys || fail "mount sysfs in the namespace"
work=$(mktemp -d /tmp/tuner-sandbox.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"

# Runs a command under UNIT's capabilities and system call filter (a unit of this
# folder, or a path).
as_unit() {
  local unit=$1 caps allow deny=""
  [[ $unit == */* ]] || unit=$units/$unit
  shift
  caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit" | tr ' ' '\n' |
    sed -n 's/^CAP_\(.*\)/+\L\1/p' | paste -sd, -)
  allow=$(sed -n 's/^SystemCallFilter=\([^~].*\)/\1/p' "$unit" | paste -sd' ' -)
  deny=$(sed -n 's/^SystemCallFilter=~//p' "$unit" | paste -sd' ' -)
  [[ -n "$caps" && -n "$allow" ]] || fail "$1: no CapabilityBoundingSet= or SystemCallFilter="
  setpriv --bounding-set=-all,"$caps" --inh-caps=-all --ambient-caps=-all --no-new-privs \
    /usr/bin/python3 - "$allow" "$deny" "$@" <<'PY'
import errno, os, subprocess, sys, seccomp
def expand(groups, seen=set()):
    out = set()
    for g in groups.split():
        if not g.startswith("@"):
            out.add(g); continue
        text = subprocess.run(["systemd-analyze", "syscall-filter", g],
                              capture_output=True, text=True).stdout
        for line in text.splitlines()[1:]:
            w = line.strip()
            if w and not w.startswith("#"):
                out |= expand(w)
    return out
allow, deny = expand(sys.argv[1]), expand(sys.argv[2])
f = seccomp.SyscallFilter(defaction=seccomp.ERRNO(errno.EPERM))
for s in sorted(allow - deny):
    try:
        f.add_rule(seccomp.ALLOW, s)
    except (RuntimeError, ValueError):
        pass  # not a call of this architecture
f.load()
os.execv(sys.argv[3], sys.argv[3:])
PY
}

ip link add tv0 numtxqueues 4 numrxqueues 4 type veth peer name tv1 numtxqueues 4 numrxqueues 4 ||
  skip "no veth"
ip link set tv0 up && ip link set tv1 up
state=$work/state
mkdir -m 700 "$state" "$state/runs"
cat >"$state/state.json" <<'J'
{"knobs": {
  "nic:tv0:channels": {"before": "rx=4,tx=4", "group": "nic", "run_id": "20261201T000000Z-test", "value": "rx=2,tx=2"},
  "nic:tv0:xps:tx-1": {"before": "none", "group": "nic", "run_id": "20261201T000000Z-test", "value": "0"},
  "sysctl:net.core.somaxconn": {"before": "4096", "group": "sysctl", "run_id": "20261201T000000Z-test", "value": "2048"}},
 "schema": "tuner.state/1"}
J
t() { "$@" --state-dir "$state" --color never; }

as_unit tuner-status.service "$tuner" probe --prometheus "$work/probe.prom" >/dev/null 2>&1 ||
  fail "probe under tuner-status.service's sandbox"
grep -q '^tuner_probe_timestamp_seconds ' "$work/probe.prom" || fail "probe wrote no textfile"
t as_unit tuner-status.service "$tuner" status --prometheus "$work/status.prom" >"$work/out" 2>&1
[[ $? == 3 ]] || fail "status under the sandbox: expected 3 (drift): $(cat "$work/out")"
grep -q '^tuner_drifted_settings 3$' "$work/status.prom" || fail "status: $(cat "$work/status.prom")"

# The textfile directory as node_exporter's packages leave it: the exporter's user owns
# it (prometheus, mode 2775 or 0755). The service's root has no CAP_DAC_OVERRIDE but
# what its unit grants: it must still write there (issue 41), and without the
# capability it fails with exit 5, naming the file.
textfiles=$work/node-exporter
mkdir -m 2775 "$textfiles"
chown nobody:nogroup "$textfiles"
t as_unit tuner-status.service "$tuner" status --prometheus "$textfiles/tuner-status.prom" >"$work/out" 2>&1
[[ $? == 3 ]] || fail "status into an exporter-owned 2775 directory: $(cat "$work/out")"
[[ $(stat -c '%a %U' "$textfiles/tuner-status.prom") == "644 root" ]] ||
  fail "the textfile: $(stat -c '%a %U' "$textfiles/tuner-status.prom")"
sed 's/^CapabilityBoundingSet=.*/CapabilityBoundingSet=CAP_SYS_PTRACE/' \
  "$units/tuner-status.service" >"$work/no-dac.service"
t as_unit "$work/no-dac.service" "$tuner" status --prometheus "$textfiles/other.prom" >"$work/out" 2>&1
[[ $? == 5 ]] || fail "status without CAP_DAC_OVERRIDE: expected 5: $(cat "$work/out")"
grep -q "$textfiles/other.prom.*Permission denied\|Permission denied.*$textfiles" "$work/out" ||
  fail "status without CAP_DAC_OVERRIDE does not say why: $(cat "$work/out")"

t as_unit tuner-restore.service "$tuner" restore >"$work/out" 2>&1
rc=$?
[[ $rc == 0 ]] || fail "restore under tuner-restore.service's sandbox: exit $rc: $(cat "$work/out")"
ethtool -l tv0 | sed -n '/Current/,$p' | grep -q 'RX:[[:space:]]*2' || fail "restore left the channels"
[[ $(cat /sys/class/net/tv0/queues/tx-1/xps_cpus) =~ ^0*1$ ]] || fail "restore left XPS"
[[ $(cat /proc/sys/net/core/somaxconn) == 2048 ]] || fail "restore left the sysctl"
t as_unit tuner-status.service "$tuner" status >"$work/out" 2>&1 || fail "status after restore: $(cat "$work/out")"

# The harness restricts: without CAP_NET_ADMIN the ethtool request is refused.
ip link set tv0 down && ethtool -L tv0 rx 4 tx 4 && ip link set tv0 up
sed 's/^CapabilityBoundingSet=.*/CapabilityBoundingSet=CAP_SYS_ADMIN/' \
  "$units/tuner-restore.service" >"$work/no-net-admin.service"
t as_unit "$work/no-net-admin.service" "$tuner" restore >"$work/out" 2>&1 &&
  fail "restore without CAP_NET_ADMIN changed the channels"
grep -q 'Operation not permitted' "$work/out" || fail "restore without CAP_NET_ADMIN: $(cat "$work/out")"

printf '[profile]\nname = "sandbox"\n[sysctl]\n"net.core.somaxconn" = "1024"\n' >"$work/sandbox.toml"
t as_unit tuner-provision.service "$tuner" apply --yes --no-verify --profile "$work/sandbox.toml" \
  >"$work/out" 2>&1 || fail "apply under tuner-provision.service's sandbox: $(cat "$work/out")"
[[ $(cat /proc/sys/net/core/somaxconn) == 1024 ]] || fail "apply did not set the sysctl"
echo "PASS: package/unit-sandbox: status, restore and apply under their units' capabilities and filters"
