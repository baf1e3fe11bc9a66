# shellcheck shell=dash disable=SC2154,SC3043
# Scenario part 1: `tuner probe --json` against the guest kernel's own view.
P=/tmp/probe.out
irq_state() { for i in $VQIRQS $EIRQ; do
  echo "$i $(cat /proc/irq/$i/smp_affinity_list) $(cat /proc/irq/$i/effective_affinity_list)"; done; }
# An IRQ whose move is pending takes it at its next interrupt, which may come while
# tuner reads: tuner's value must be the kernel's from just before or just after.
irq_state > /tmp/irq.before
run_step probe tuner probe --json
irq_state > /tmp/irq.after
SKIP=   # probe exists: a probe that failed is an entry in .errors, not an exit status
check probe.rc "$RC" = 0 "tuner probe --json exit status"
verify probe.json "schema tuner.probe/1" jq -e '.schema == "tuner.probe/1"' $P
[ -s $P ] && jq -e . $P >/dev/null 2>&1 || P=/dev/null
# The whole document (the console copy above is cut at 6000 characters) and the kernel
# files the IRQ probe parses, kept by the host in <work>/ to compare kernels.
keep_file probe.json jq -M -c . $P
keep_file interrupts cat /proc/interrupts
keep_file hwirq sh -c 'for i in /sys/kernel/irq/*; do echo "${i##*/} $(cat $i/hwirq 2>/dev/null) $(cat $i/actions 2>/dev/null)"; done | sort -n'
# What differs by kernel (tests/vm/README.md "Kernels"): the probes that reported an
# error, and which path named the virtio queue vectors (netlink napi-get or names).
note "probe on $(uname -r): errors $(jq -c '[.errors[]? | "\(.probe): \(.message)"]' $P)," \
  "IRQ role sources $(jq -c '[.irqs[]? | select(.kind == "queue") | .source] | group_by(.) | map({(.[0] | tostring): length}) | add' $P)"

# A probe that reported itself "not implemented" in .errors, or a stub source file.
probe_skip() {  # PROBE-NAME FILE...
  local p=$1 m; shift
  m=$(jq -r --arg p "$p" '.errors[]? | select(.probe == $p) | .message' $P 2>/dev/null |
      grep -i 'not implemented' | head -1)
  if [ -n "$m" ]; then echo "probe $p: $m"; else stub_reason "$@"; fi
}

SKIP=$(probe_skip topology probes/topology.cc probes/numa.cc)
check probe.numa_nodes "$(jq -r '[.topology.numa_nodes[]?.os_index] | map(tostring) | join(" ")' $P)" \
  = "0 1" "tuner's NUMA nodes vs sysfs $nodes"
check probe.numa_cpus "$(jq -r '[.topology.numa_nodes[]? | "\(.os_index)=\(.cpus)"] | join(" ")' $P)" \
  = "0=$node_cpus0 1=$node_cpus1" "tuner's node cpus vs sysfs node*/cpulist"
check probe.pus "$(jq -r '.topology.pus' $P)" = "$(nproc)" "PUs vs nproc"

SKIP=$(probe_skip nic probes/nic.cc)
nicj() { jq -r --arg n "$1" ".nics[]? | select(.name == \$n) | $2" $P; }
check probe.nic_virtio "$(nicj "$VIRT" .driver)" = virtio_net "$VIRT in .nics with its driver"
check probe.nic_e1000 "$(nicj "$E1K" .driver)" = e1000 "$E1K in .nics with its driver"
check probe.virtio_numa_node "$(nicj "$VIRT" .numa_node)" = "$(cat "$VPCI/numa_node")" \
  "$VIRT numa_node: tuner vs sysfs ${VPCI##*/}/numa_node (pxb-pcie numa_node=1)"
check probe.virtio_pci "$(nicj "$VIRT" .pci)" = "${VPCI##*/}" "$VIRT PCI address"
check probe.e1000_numa_node "$(nicj "$E1K" .numa_node)" = \
  "$(cat "$EPCI/numa_node" | sed 's/^-1$/null/')" "$E1K numa_node: tuner vs sysfs (-1 = null)"

SKIP=$(probe_skip nic probes/nic.cc probes/irq.cc)
# The NIC's IRQs: at least its queue IRQs, at most what its PCI function owns.
nic_irqs_ok() {  # NETDEV MIN OWNED
  local got want_min=$2 owned=" $3 " i
  got=$(nicj "$1" '.irqs[]?' | tr '\n' ' ')
  echo "tuner: [$got] at least: [$want_min] owned: [$3]"
  [ -n "$got" ] || [ -z "$want_min" ] || return 1
  for i in $want_min; do case " $got " in *" $i "*) ;; *) return 1 ;; esac; done
  for i in $got; do case $owned in *" $i "*) ;; *) return 1 ;; esac; done
}
verify probe.virtio_irqs "$VIRT IRQs" nic_irqs_ok "$VIRT" "$VQIRQS" "$(ls "$VPCI/msi_irqs" | tr '\n' ' ')"
# qemu's e1000 uses a legacy INTx line. probes/irq_probe.cc maps INTx lines to no device
# (they can be shared), so an empty list is allowed; a wrong IRQ is not.
verify probe.e1000_irqs "$E1K IRQs (INTx $EIRQ may be left out)" nic_irqs_ok "$E1K" "" \
  "$EIRQ $(ls "$EPCI/msi_irqs" 2>/dev/null | tr '\n' ' ')"

SKIP=$(probe_skip irq probes/irq.cc)
irq_affinity_ok() {
  local i bad= a e
  for i in $VQIRQS $EIRQ; do
    a=$(jq -r --argjson i "$i" '.irqs[]? | select(.irq == $i) | .affinity' $P)
    e=$(jq -r --argjson i "$i" '.irqs[]? | select(.irq == $i) | .effective_affinity' $P)
    grep -qx "$i $a $e" /tmp/irq.before /tmp/irq.after ||
      bad="$bad $i:tuner=$a/$e,kernel=$(grep "^$i " /tmp/irq.before | cut -d' ' -f2-3 | tr ' ' /)"
  done
  echo "IRQs $VQIRQS $EIRQ${bad:+; tuner/kernel (affinity/effective) differ:$bad}"
  [ -z "$bad" ]
}
verify probe.irq_affinity "affinity and effective affinity vs /proc/irq/N:" irq_affinity_ok
check probe.irq_device "$(jq -r --argjson i "${VRXIRQS%% *}" '.irqs[]? | select(.irq == $i) | .device' $P)" \
  = "$VIRT" "IRQ ${VRXIRQS%% *} belongs to $VIRT"

# Every vector of the virtio NIC's PCI function: the probe's role (kind, queue type and
# index, netdev) against the guest's own names (/sys/kernel/irq/N/actions): inputN is
# RX queue N, outputN TX queue N, config a control vector, virtqueues every queue.
# Debian 12's 6.1 has no netdev napi-get, so this checks the names path (source
# "name"); a kernel whose virtio_net registers NAPI IRQs must agree just the same.
virtio_roles_ok() {
  local i name want got bad= n=0
  for i in $(ls "$VPCI/msi_irqs"); do
    name=$(cat /sys/kernel/irq/$i/actions 2>/dev/null)
    case $name in
      "$VDEV"-input.*) want="queue rx ${name##*.} $VIRT" ;;
      "$VDEV"-output.*) want="queue tx ${name##*.} $VIRT" ;;
      "$VDEV"-config) want="control null null $VIRT" ;;
      "$VDEV"-virtqueues) want="queue shared null $VIRT" ;;
      *) continue ;;
    esac
    got=$(jq -r --argjson i "$i" '.irqs[]? | select(.irq == $i) |
      "\(.kind) \(.queue_type) \(.queue_index) \(.device)"' $P)
    n=$((n + 1))
    [ "$got" = "$want" ] || bad="$bad $i($name):tuner='$got',want='$want'"
  done
  echo "$n vectors of ${VPCI##*/}${bad:+; differ:$bad}"
  [ -z "$bad" ] && [ "$n" -gt 0 ]
}
verify probe.virtio_queues "queue roles vs the guest's IRQ names:" virtio_roles_ok
# Nothing else on the machine is called a queue of the virtio NIC.
check probe.virtio_queue_count "$(jq --arg v "$VIRT" '[.irqs[]? | select(.device == $v and .kind == "queue")] | length' $P)" \
  = "$(echo $VQIRQS | wc -w)" "queue vectors of $VIRT: tuner vs /proc/interrupts input/output names"

SKIP=$(probe_skip netlink probes/netlink.cc probes/nic.cc)
for n in $VIRT $E1K; do
  s=$(cat /sys/class/net/$n/speed 2>/dev/null); [ "${s:--1}" -lt 0 ] 2>/dev/null && s=null
  d=$(cat /sys/class/net/$n/duplex 2>/dev/null); [ "$d" = unknown ] || [ -z "$d" ] && d=null
  check probe.link_$n "$(nicj $n '"\(.link.speed_mbps) \(.link.duplex)"')" = "${s:-null} $d" \
    "$n speed/duplex: tuner vs /sys/class/net/$n/{speed,duplex}"
done
check probe.e1000_modes "$(nicj "$E1K" '.link.supported_modes | index("1000baseT/Full") != null')" = true \
  "$E1K supported_modes includes 1000baseT/Full"

# ---- exec --near: the command runs on the virtio NIC's node (CPUs and memory)
run_step exec tuner exec --near "$VIRT" -- cat /proc/self/status /proc/self/numa_maps
SKIP=$STEP_SKIP
check exec.rc "$RC" = 0 "tuner exec --near $VIRT exit status"
check exec.cpus "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /tmp/exec.out)" = "$node_cpus1" \
  "Cpus_allowed_list of the command = node 1's CPUs"
# Mems_allowed_list is the cpuset's, which a memory policy does not change; the
# kernel shows the policy per mapping in numa_maps ("7f... bind:1 anon=3 N1=3").
check exec.mems "$(grep -c ' bind:1 ' /tmp/exec.out)" -gt 0 \
  "the command's mappings carry the bind:1 memory policy (numa_maps)"
check exec.mems_placed "$(grep ' bind:1 ' /tmp/exec.out | grep ' anon=' | grep -v ' file=' | grep -c ' N0=')" = 0 \
  "none of its anonymous pages sit on node 0 (numa_maps N0=)"
SKIP=
