# shellcheck shell=dash disable=SC2154,SC3043
# Scenario part 7 (last: it rebinds the virtio NICs): IRQs are kept by what they serve.
# The queue IRQs of $VIRT (node 1) are placed and kept; then both virtio functions are
# unbound from virtio-pci and bound again in the other order, which swaps their IRQ
# numbers (the allocator hands out the lowest free ones) and their virtioN names.
# `tuner restore` must pin $VIRT's queues where they now are and leave $VIRT2's IRQs,
# which now hold $VIRT's old numbers, alone; with $VIRT's function unbound, status and
# restore report its IRQs gone and write nothing. Each vector is compared by its MSI
# index (hwirq & 2047), the identity the kernel keeps across the rebind.
KNOBS="tuner/knobs/irq_affinity.cc"
APCI=${VPCI##*/}
BPCI=$(basename "$(readlink -f "/sys/class/net/$VIRT2/device/..")")
DRV=/sys/bus/pci/drivers/virtio-pci
by_vector() {  # PCI: "vector INDEX = CPULIST" for each of its MSI vectors, by index
  local i
  for i in $(ls "/sys/bus/pci/devices/$1/msi_irqs" 2>/dev/null); do
    echo "vector $(msi_index "$i") = $(cat "/proc/irq/$i/smp_affinity_list")"
  done | sort -n -k2
}
irqs_of() { ls "/sys/bus/pci/devices/$1/msi_irqs" 2>/dev/null | sort -n | one_line; }
same_file() {  # FILE WHAT: by_vector output equals FILE
  local d; d=$(by_vector "$2" | diff "$1" - | grep '^[-+][^-+]' | one_line)
  echo "${d:+differs: $d}"; [ -z "$d" ]
}
cat > /etc/tuner/profiles/vm-irq-owner.toml <<EOT
[profile]
name = "vm-irq-owner"
description = "Queue IRQs of the node-1 virtio NIC, kept by owner"
[irq."$VIRT"]
policy = "numa-local"
EOT
P=/etc/tuner/profiles/vm-irq-owner.toml
by_vector "$APCI" > /tmp/owner.a.before
note "irq owner: $VIRT=$APCI IRQs $(irqs_of "$APCI"); $VIRT2=$BPCI IRQs $(irqs_of "$BPCI")"

SKIP=$(stub_reason $KNOBS)
grep -q tuner_selftest= /proc/cmdline && SKIP="self-test: the stand-in tuner names IRQs by number"
[ -z "$SKIP" ] && [ -z "$BPCI" ] && SKIP="no second virtio NIC"
[ -z "$SKIP" ] && [ ! -r "/sys/kernel/irq/$(ls "$VPCI/msi_irqs" | head -1)/hwirq" ] &&
  SKIP="no /sys/kernel/irq/N/hwirq in this kernel"
RC=
[ -z "$SKIP" ] && run_step owner.plan tuner plan --profile $P --json --detailed-exitcode
check owner.plan.rc "${RC:-x}" = 3 "plan --detailed-exitcode: 3, changes pending"
verify owner.plan.ids "every IRQ change names $APCI and a vector, none $BPCI" \
  jq -e --arg a "irq:$APCI/msi" '[.changes[]? | select(.knob | startswith("irq:"))] as $c
    | ($c | length > 0) and all($c[]; .knob | startswith($a) and endswith(":affinity"))' \
  /tmp/owner.plan.out
RC=
[ -z "$SKIP" ] && run_step owner.apply tuner apply --profile $P --no-verify --yes --json
check owner.apply.rc "${RC:-x}" = 0 "apply --no-verify --yes exit status"
by_vector "$APCI" > /tmp/owner.a.applied
placed_on_node1() {  # the vectors apply moved are all on node 1's CPUs, and some moved
  local v moved=0 bad=
  while read -r _ v _ cpus; do
    grep -qx "vector $v = $cpus" /tmp/owner.a.before && continue
    moved=$((moved + 1))
    subset "$cpus" "$node_cpus1" || bad="$bad vector $v:$cpus"
  done < /tmp/owner.a.applied
  echo "$moved moved${bad:+; off node 1:$bad}"; [ $moved -gt 0 ] && [ -z "$bad" ]
}
verify owner.apply.placed "$VIRT's queue vectors on node 1 ($node_cpus1)" placed_on_node1

# ---- both unbound, bound again in the other order: the numbers swap
if [ -z "$SKIP" ]; then
  A_OLD=$(irqs_of "$APCI") B_OLD=$(irqs_of "$BPCI")
  first=$APCI second=$BPCI   # the one with the higher numbers binds first
  [ "${A_OLD%% *}" -lt "${B_OLD%% *}" ] && first=$BPCI second=$APCI
  echo "$APCI" > $DRV/unbind; echo "$BPCI" > $DRV/unbind
  echo "$first" > $DRV/bind; echo "$second" > $DRV/bind
  sleep 1
  note "rebound: $APCI IRQs $A_OLD -> $(irqs_of "$APCI"); $BPCI IRQs $B_OLD -> $(irqs_of "$BPCI");" \
    "netdevs $(ls /sys/bus/pci/devices/$APCI/virtio*/net 2>/dev/null) and $(ls /sys/bus/pci/devices/$BPCI/virtio*/net 2>/dev/null)"
fi
check owner.renumbered "$(irqs_of "$APCI")" != "${A_OLD:-x}" "$APCI's IRQ numbers changed (was ${A_OLD:-?})"
by_vector "$BPCI" > /tmp/owner.b.rebound
RC=
[ -z "$SKIP" ] && run_step owner.status tuner status --json
check owner.status.rc "${RC:-x}" = 3 "status: 3, drift (the rebind reset the affinities)"
verify owner.status.changed "the kept vectors read as changed, none gone" \
  jq -e '[.knobs[] | select(.knob | startswith("irq:"))] as $k
    | ($k | length > 0) and all($k[]; .state == "changed" or .state == "ok")
      and any($k[]; .state == "changed")' /tmp/owner.status.out
RC=
[ -z "$SKIP" ] && run_step owner.restore tuner restore --json
check owner.restore.rc "${RC:-x}" = 0 "restore exit status"
verify owner.restore.kept_nic "$VIRT's vectors pinned again where they are now" \
  same_file /tmp/owner.a.applied "$APCI"
verify owner.restore.other_nic "$VIRT2's vectors (on $VIRT's old numbers) left alone" \
  same_file /tmp/owner.b.rebound "$BPCI"

# ---- the kept NIC's function unbound: its vectors are gone, reported, nothing written
[ -z "$SKIP" ] && echo "$APCI" > $DRV/unbind
RC=
[ -z "$SKIP" ] && run_step owner.gone_status tuner status --json
check owner.gone_status.rc "${RC:-x}" = 3 "status: 3, drift"
verify owner.gone_status.gone "every kept IRQ of $APCI reads as gone" \
  jq -e '[.knobs[] | select(.knob | startswith("irq:"))] as $k
    | ($k | length > 0) and all($k[]; .state == "gone")' /tmp/owner.gone_status.out
RC=
[ -z "$SKIP" ] && run_step owner.gone_restore tuner restore --json
check owner.gone_restore.rc "${RC:-x}" = 0 "restore exit status with the function unbound"
verify owner.gone_restore.reported "each kept IRQ reported gone" \
  jq -e '[.groups[].changes[] | select(.knob | startswith("irq:"))] as $c
    | ($c | length > 0) and all($c[]; .status == "gone")' /tmp/owner.gone_restore.out
verify owner.gone_restore.other_nic "$VIRT2's vectors still left alone" \
  same_file /tmp/owner.b.rebound "$BPCI"

# ---- bound again; rollback puts the vectors back as they were before the apply
[ -z "$SKIP" ] && echo "$APCI" > $DRV/bind && sleep 1
RC=
[ -z "$SKIP" ] && run_step owner.rollback tuner rollback --last --json
check owner.rollback.rc "${RC:-x}" = 0 "rollback --last exit status"
verify owner.rollback.restored "$VIRT's vectors as before the apply" same_file /tmp/owner.a.before "$APCI"
SKIP=
