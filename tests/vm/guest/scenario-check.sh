# shellcheck shell=dash disable=SC2154,SC3043
# Scenario part 4: `tuner check` on the live guest. The e1000 is forced to 100 Mb/s full
# duplex with autonegotiation off, by ethtool as an admin would (qemu's e1000 takes it
# and keeps reporting 1000 Mb/s): check must report nic.autoneg_off for it, read from the
# kernel's own LINKMODES reply, and exit 1 at the default --fail-on; the virtio NIC,
# which cannot autonegotiate, must not be named. With autoneg back on, the finding goes.
SKIP=$(stub_reason tuner/check/nic_rules.cc tuner/cli/check_command.cc)
grep -q tuner_selftest= /proc/cmdline && SKIP="self-test: the stand-in tuner has no check"
[ -z "$SKIP" ] && [ ! -x /usr/bin/ethtool ] && SKIP="no ethtool in the guest to force the link"
if [ -z "$SKIP" ]; then
  ethtool -s "$E1K" autoneg off speed 100 duplex full
  wait_link "$E1K" 10
  note "forced $E1K: autoneg $(autoneg "$E1K"), speed $(cat /sys/class/net/$E1K/speed)"
  run_step check tuner check --json --window 1s
  SKIP=$STEP_SKIP
fi
check check.rc "${RC:-x}" = 1 "a warning at the default --fail-on: exit 1"
check_autoneg() {  # DEV -> its nic.autoneg_off findings, as "severity evidence-value"
  jq -r --arg d "$1" '.findings[] | select(.rule == "nic.autoneg_off" and .subject == $d)
    | .severity + " " + (.evidence[0].value)' /tmp/check.out
}
check check.schema "$(jq -r '.schema' /tmp/check.out 2>/dev/null)" = "tuner.check/1" "tuner.check/1"
check check.e1000_autoneg_off "$(check_autoneg "$E1K" 2>/dev/null)" = "warning off" \
  "nic.autoneg_off for $E1K (ethtool says autoneg $(autoneg "$E1K"))"
check check.virtio_not_named "$(check_autoneg "$VIRT" 2>/dev/null)" = "" \
  "$VIRT reports no Autoneg mode: nothing to say"
check check.window "$(jq -r '.window_s' /tmp/check.out 2>/dev/null)" = 1 "counters sampled over 1 s"
RC_INFO=
[ -z "$SKIP" ] && { tuner check --window 0 --fail-on info >/dev/null 2>&1; RC_INFO=$?; }
check check.fail_on_info "${RC_INFO:-x}" = 1 "--fail-on info: exit 1 too"
if [ -z "$SKIP" ]; then
  ethtool -s "$E1K" autoneg on
  wait_link "$E1K" 10
  run_step check_after tuner check --json --window 0
fi
check check.after_autoneg_on \
  "$(jq -r '[.findings[] | select(.rule == "nic.autoneg_off")] | length' /tmp/check_after.out 2>/dev/null)" \
  = 0 "autoneg back on: no nic.autoneg_off (ethtool says $(autoneg "$E1K"))"
same_as_before check.restored "after forcing the e1000 and putting autoneg back"
