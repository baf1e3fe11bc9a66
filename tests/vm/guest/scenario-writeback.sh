# shellcheck shell=dash disable=SC2154,SC3043
# Scenario part 5: the writeback pairs on the guest's real kernel. vm.dirty_ratio and
# vm.dirty_bytes are one setting (writing one zeroes the other): on a node whose site
# uses byte limits, a profile's dirty_ratio must show the bytes as the current value,
# and rollback must put the bytes back, not write ratio 0 (which left both at 0). A
# site limit stricter than the profile's is kept.
KNOBS="tuner/knobs/sysctl.cc"
VMD=/proc/sys/vm
wb_snapshot() { echo "ratio=$(cat $VMD/dirty_ratio) bytes=$(cat $VMD/dirty_bytes)"; }
WB_BEFORE=$(wb_snapshot)
echo 1073741824 > $VMD/dirty_bytes  # the site's limit: 1 GiB (the kernel zeroes the ratio)
cat > /etc/tuner/profiles/vm-writeback.toml <<EOT
[profile]
name = "vm-writeback"
description = "a dirty_ratio on a node that uses dirty_bytes"
[sysctl]
"vm.dirty_ratio" = "40"
EOT
P=/etc/tuner/profiles/vm-writeback.toml
note "writeback before: $(wb_snapshot)"

SKIP=$(stub_reason $KNOBS)
grep -q tuner_selftest= /proc/cmdline && SKIP="self-test: the stand-in tuner has no writeback pairs"
RC=
[ -z "$SKIP" ] && run_step wb.plan tuner plan --profile $P --json
check wb.plan.rc "${RC:-x}" = 0 "plan exit status"
verify wb.plan.current "the bytes in force are the current value" jq -e \
  '[.changes[] | select(.knob == "sysctl:vm.dirty_ratio" and .current == "vm.dirty_bytes=1073741824" and .desired == "40")] | length == 1' \
  /tmp/wb.plan.out

RC=
[ -z "$SKIP" ] && run_step wb.apply tuner apply --profile $P --no-verify --yes --json
check wb.apply.rc "${RC:-x}" = 0 "apply --no-verify --yes exit status"
check wb.apply.state "$(wb_snapshot)" = "ratio=40 bytes=0" "$VMD/dirty_ratio, dirty_bytes"

RC=
[ -z "$SKIP" ] && run_step wb.rollback tuner rollback --last --json
check wb.rollback.rc "${RC:-x}" = 0 "rollback --last exit status"
check wb.rollback.state "$(wb_snapshot)" = "ratio=0 bytes=1073741824" "the bytes are back, not ratio 0"

# A site limit stricter than the profile's: 64 MiB against 40% of the guest's 1 GiB.
# The plan keeps it and says so (tuner/plan/sysctl_writeback.cc).
echo 67108864 > $VMD/dirty_bytes
RC=
[ -z "$SKIP" ] && run_step wb.strict tuner plan --profile $P --json
check wb.strict.rc "${RC:-x}" = 0 "plan exit status"
verify wb.strict.kept "a stricter site limit is kept, with a note" jq -e \
  '([.changes[] | select(.knob == "sysctl:vm.dirty_ratio")] | length == 0) and ([.notes[] | tostring | select(test("stricter than the profile"))] | length == 1)' \
  /tmp/wb.strict.out

# The guest's own values again.
case "$WB_BEFORE" in
  *"bytes=0") echo "${WB_BEFORE#ratio=}" | cut -d' ' -f1 > $VMD/dirty_ratio ;;
  *) echo "${WB_BEFORE##*bytes=}" > $VMD/dirty_bytes ;;
esac
note "writeback after: $(wb_snapshot) (was $WB_BEFORE)"
SKIP=
