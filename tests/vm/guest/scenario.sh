#!/bin/sh
# The guest's scenario (busybox sh). Every check compares tuner against the guest
# kernel's own view (procfs, sysfs, cgroupfs, and ethtool where sysfs has no answer) and
# prints one line on the console:
#   TUNER-RESULT pass|fail|skip CHECK DETAIL
# A step whose command prints "not implemented yet" (or whose probe reports "not
# implemented") turns its checks into skips that name the reason; everything else is
# strict. The host side (tests/vm/e2e_test.sh) parses these lines.
. /scenario-lib.sh

# ---- the machine the VM should be: checked first, so a broken harness cannot pass
# The kernel the host fetched for TUNER_VM_SUITE, not another one left in a cache.
want_kver=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^tuner_kver=//p')
check "vm.kernel" "$(uname -r)" = "$want_kver" "uname -r: $(uname -r); the host fetched $want_kver"
node_cpus0=$(cat /sys/devices/system/node/node0/cpulist 2>/dev/null)
node_cpus1=$(cat /sys/devices/system/node/node1/cpulist 2>/dev/null)
nodes=$(cd /sys/devices/system/node && echo node[0-9]*)
check "vm.numa_nodes" "$nodes" = "node0 node1" "nodes: $nodes; node0=$node_cpus0 node1=$node_cpus1"
VIRT='' VIRT2='' E1K=''
for n in /sys/class/net/*; do
  case $(basename "$(readlink "$n/device/driver" 2>/dev/null)"):$(cat "$n/address") in
    virtio_net:52:54:00:00:01:01) VIRT=${n##*/} ;;   # on node 1: the one most steps use
    virtio_net:52:54:00:00:02:01) VIRT2=${n##*/} ;;  # on the root bus: scenario-irq-owner.sh
    e1000:*) E1K=${n##*/} ;;
  esac
done
check "vm.nics" "${VIRT:+v}${VIRT2:+w}${E1K:+e}" = "vwe" "virtio_net=$VIRT,$VIRT2 e1000=$E1K"
[ -n "$VIRT" ] && [ -n "$E1K" ] || { echo "TUNER-ABORT no NICs"; exit 0; }
VPCI=$(readlink -f "/sys/class/net/$VIRT/device/..")   # virtioN's parent: the PCI function
VDEV=$(basename "$(readlink -f "/sys/class/net/$VIRT/device")")   # virtio0
EPCI=$(readlink -f "/sys/class/net/$E1K/device")
check "vm.virtio_numa_node" "$(cat "$VPCI/numa_node")" = 1 "${VPCI##*/} numa_node=$(cat "$VPCI/numa_node")"
VQIRQS=$(awk -v d="$VDEV" '$NF ~ "^" d "-(input|output)\\." { sub(":", "", $1); print $1 }' /proc/interrupts | tr '\n' ' ')
VRXIRQS=$(awk -v d="$VDEV" '$NF ~ "^" d "-input\\." { sub(":", "", $1); print $1 }' /proc/interrupts | tr '\n' ' ')
EIRQ=$(cat "$EPCI/irq")
nq=$(echo $VRXIRQS | wc -w)
check "vm.virtio_queues" "$nq" -ge 1 "$nq RX queues (IRQs $VRXIRQS); TX+RX IRQs: $VQIRQS"
[ "$nq" -ge 2 ] || note "virtio-net has one queue pair: the host could not give qemu a tap backend"

# Links up, an address on the virtio NIC for the host's traffic (see lib/netns-qemu.sh),
# and a cgroup for [[numa.bind]].
ip link set dev "$VIRT" up; ip link set dev "$E1K" up
ip addr add 10.99.0.2/24 dev "$VIRT"
mkdir -p /sys/fs/cgroup && mount -t cgroup2 none /sys/fs/cgroup &&
  echo +cpuset > /sys/fs/cgroup/cgroup.subtree_control && mkdir -p /sys/fs/cgroup/e2e
check "vm.cgroup_cpuset" "$(cat /sys/fs/cgroup/e2e/cpuset.cpus.effective 2>/dev/null)" = "0-3" \
  "cgroup2 /sys/fs/cgroup/e2e cpuset.cpus.effective=$(cat /sys/fs/cgroup/e2e/cpuset.cpus.effective 2>/dev/null)"
wait_link "$E1K" 10
if grep -q tuner_selftest= /proc/cmdline; then
  # The self-test's stand-in uses the ethtool CLI, which cannot set duplex back to
  # "unknown" as netlink can: give the virtio NIC a known link first.
  ethtool -s "$VIRT" speed 10000 duplex full autoneg off
fi
mkdir -p /etc/tuner/profiles
for t in vm-e2e vm-smoke vm-e1000-forced vm-e1000-coalesce vm-e1000-coalesce-search \
  vm-e1000-rings-search vm-ioctl; do
  sed -e "s/@VIRT@/$VIRT/g" -e "s/@E1K@/$E1K/g" "/etc/tuner/$t.toml.in" > "/etc/tuner/profiles/$t.toml"
done
PROFILE=/etc/tuner/profiles/vm-e2e.toml
note "setup done at uptime $(cut -d" " -f1 /proc/uptime)"
snapshot > /tmp/before
note "snapshot done at uptime $(cut -d" " -f1 /proc/uptime)"

. /scenario-probe.sh
# The smoke scenario (vm/smoke-5.10, vm/smoke-6.12): one plan/apply/rollback, no more;
# or one part alone (TUNER_VM_SCENARIO=PART, by hand).
part=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^tuner_scenario=//p')
if [ -n "$part" ] && [ "$part" != full ]; then . "/scenario-$part.sh"; exit 0; fi
. /scenario-apply.sh
. /scenario-cpu-mm.sh
. /scenario-writeback.sh
. /scenario-rps-xps.sh
. /scenario-check.sh
. /scenario-coalesce.sh
. /scenario-rings-search.sh
. /scenario-ioctl.sh
. /scenario-ports.sh
. /scenario-irq-owner.sh
