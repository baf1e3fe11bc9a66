# shellcheck shell=dash disable=SC2154,SC3043
# Scenario part 6b: a shipped network profile on a two-NIC guest whose second virtio NIC
# ($VIRT2) holds the default route, as a node's management port does. Both virtio links
# report 25000 Mb/s (virtio_net takes a reported speed), so both pass the profile's
# min_speed; network-throughput must plan and change only $VIRT, leave every IRQ and
# channel of $VIRT2 as it was, and say why; rollback puts $VIRT back.
KNOBS="tuner/plan/planner.cc probes/default_route.cc"
SHIPPED=/etc/tuner/shipped
BPCI2=$(basename "$(readlink -f "/sys/class/net/$VIRT2/device/..")")
ports_irqs() {  # PCI: "IRQ=CPULIST" for each MSI vector
  local i
  for i in $(ls "/sys/bus/pci/devices/$1/msi_irqs" 2>/dev/null | sort -n); do
    echo "$i=$(cat "/proc/irq/$i/smp_affinity_list")"
  done | one_line
}
ports_queues() { ls "/sys/class/net/$1/queues" | one_line; }

SKIP=$(stub_reason $KNOBS)
grep -q tuner_selftest= /proc/cmdline && SKIP="self-test: the stand-in tuner has no shipped profiles"
[ -z "$SKIP" ] && [ -z "$VIRT2" ] && SKIP="no second virtio NIC"
[ -z "$SKIP" ] && [ ! -f "$SHIPPED/network-throughput.toml" ] && SKIP="no shipped profiles in the guest"
if [ -z "$SKIP" ]; then
  ip link set dev "$VIRT2" up
  ip addr add 10.98.0.2/24 dev "$VIRT2"
  ip route add default via 10.98.0.1 dev "$VIRT2"
  ethtool -s "$VIRT" speed 25000 duplex full autoneg off
  ethtool -s "$VIRT2" speed 25000 duplex full autoneg off
fi
check ports.setup "$(cat "/sys/class/net/$VIRT2/speed" 2>/dev/null)" = 25000 \
  "$VIRT2 at $(cat "/sys/class/net/$VIRT2/speed" 2>/dev/null) Mb/s; routes: $(ip route | one_line)"
B_IRQS=$(ports_irqs "$BPCI2") B_QUEUES=$(ports_queues "$VIRT2")
A_QUEUES=$(ports_queues "$VIRT")

RC=
[ -z "$SKIP" ] && run_step ports.probe tuner probe --json
verify ports.probe.route "the probe names $VIRT2 alone as holding the default route" jq -e \
  --arg b "$VIRT2" '[.nics[] | select(.default_route == true) | .name] == [$b]' /tmp/ports.probe.out

RC=
[ -z "$SKIP" ] && run_step ports.plan tuner --profile-path $SHIPPED plan --profile network-throughput --json
check ports.plan.rc "${RC:-x}" = 0 "plan exit status"
verify ports.plan.only_data "changes name $VIRT ($VPCI) and never $VIRT2 ($BPCI2)" jq -e \
  --arg a "${VPCI##*/}" --arg b "$BPCI2" --arg va "nic:$VIRT:" --arg vb "nic:$VIRT2:" \
  '[.changes[].knob] as $k
    | any($k[]; startswith("irq:" + $a) or startswith($va))
      and all($k[]; (startswith("irq:" + $b) or startswith($vb)) | not)' /tmp/ports.plan.out
verify ports.plan.note "the plan says why $VIRT2 is left alone" jq -e --arg b "$VIRT2" \
  '[.notes[] | select(test($b) and test("holds the default route"))] | length >= 1' \
  /tmp/ports.plan.out

RC=
[ -z "$SKIP" ] && run_step ports.apply tuner --profile-path $SHIPPED apply --profile network-throughput --no-verify --yes --json
check ports.apply.rc "${RC:-x}" = 0 "apply --no-verify --yes exit status"
check ports.apply.other_irqs "$(ports_irqs "$BPCI2")" = "$B_IRQS" "$VIRT2's vectors as they were"
check ports.apply.other_queues "$(ports_queues "$VIRT2")" = "$B_QUEUES" "$VIRT2's queues as they were"
check ports.apply.data_queues "$(ports_queues "$VIRT")" != "$A_QUEUES" "$VIRT's channels changed (were $A_QUEUES)"
# One apply converges: the channel change, the IRQs and the XPS maps for the queues
# after it were all written, so a second plan has nothing left.
RC=
[ -z "$SKIP" ] && run_step ports.replan tuner --profile-path $SHIPPED plan --profile network-throughput --json --detailed-exitcode
check ports.replan.rc "${RC:-x}" = 0 "plan --detailed-exitcode after the apply: 0, nothing left"
RC=
[ -z "$SKIP" ] && run_step ports.rollback tuner rollback --last --json
check ports.rollback.rc "${RC:-x}" = 0 "rollback --last exit status"
check ports.rollback.queues "$(ports_queues "$VIRT")" = "$A_QUEUES" "$VIRT's queues as before"

if [ -z "$SKIP" ]; then
  ip route del default via 10.98.0.1 dev "$VIRT2"
  ip addr del 10.98.0.2/24 dev "$VIRT2"
fi
SKIP=
