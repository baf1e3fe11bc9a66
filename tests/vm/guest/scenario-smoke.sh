# shellcheck shell=dash disable=SC2154,SC3043
# The smoke scenario (tuner_scenario=smoke; the vm/smoke-* tests on Debian 11's and 13's
# kernels): after the harness's own checks and the probe, one plan, apply, plan again
# and rollback of a sysctl and a NIC link (guest/vm-smoke.toml.in), each checked
# against the guest kernel's files. The full scenario covers the rest on one kernel.
P=/etc/tuner/profiles/vm-smoke.toml

run_step plan tuner plan --profile $P --json --detailed-exitcode
SKIP=$STEP_SKIP
check plan.rc "$RC" = 3 "tuner plan --json --detailed-exitcode exit status (3: changes pending)"
has_knob() { jq -e --arg k "$1" '[.changes[]?.knob] | index($k) != null' /tmp/plan.out >/dev/null; }
for k in sysctl:vm.swappiness "nic:$VIRT:link"; do
  verify "plan.has.$k" "change for $k listed" has_knob "$k"
done
same_as_before plan.changed_nothing "after plan"

run_step apply tuner apply --profile $P --no-verify --yes --json
SKIP=$STEP_SKIP
check apply.rc "$RC" = 0 "tuner apply --no-verify --yes exit status"
check apply.sysctl.swappiness "$(cat /proc/sys/vm/swappiness)" = 17 "/proc/sys"
check apply.nic_speed "$(cat /sys/class/net/$VIRT/speed) $(cat /sys/class/net/$VIRT/duplex)" = "1000 full" \
  "$VIRT /sys/class/net speed and duplex"

run_step replan tuner plan --profile $P --json --detailed-exitcode
SKIP=$STEP_SKIP
check replan.rc "$RC" = 0 "plan --detailed-exitcode after apply: 0, nothing pending"
check replan.changes "$(jq -r '[.changes[]?.knob] | join(" ")' /tmp/replan.out 2>/dev/null)" = "" \
  "changes still planned after apply (should be none)"

run_step rollback tuner rollback --last --json
SKIP=$STEP_SKIP
check rollback.rc "$RC" = 0 "tuner rollback --last exit status"
same_as_before rollback.restored "after rollback --last"
SKIP=
