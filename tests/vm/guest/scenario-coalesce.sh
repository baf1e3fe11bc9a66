# shellcheck shell=dash disable=SC2154,SC3043
# Scenario part 5: nic:IF:coalesce on the e1000, against ethtool -c's own reading of the
# kernel. The profile asks rx-usecs 100 (the driver's interrupt throttle rate, 10000
# interrupts/s) and rx-frames 32, which e1000 lacks: probe reports its coalescing, plan
# lists rx-usecs with a note on rx-frames, apply lands it, status reads it as kept,
# restore puts it back after ethtool reset it, and rollback --last restores the original.
CPROFILE=/etc/tuner/profiles/vm-e1000-coalesce.toml
rx_usecs() { ethtool -c "$E1K" 2>/dev/null | sed -n 's/^rx-usecs:[[:space:]]*//p'; }
# The harness first (in the self-test too): the VM's e1000 model must have coalescing.
SKIP=
ORIG=$(rx_usecs)
check coalesce.e1000_has_it "${ORIG:-none}" != none \
  "ethtool -c $E1K: rx-usecs ${ORIG:-not reported} (qemu's e1000-82545em has coalescing)"
SKIP=$(stub_reason tuner/knobs/nic_coalesce.cc)
grep -q tuner_selftest= /proc/cmdline && SKIP=${SKIP:-self-test: the stand-in tuner has no coalesce}

# ---- probe: the inventory's coalescing is the kernel's
[ -z "$SKIP" ] && run_step coalesce.probe tuner probe --json
check coalesce.probe.rx_usecs \
  "$(jq -r --arg d "$E1K" '.nics[] | select(.name == $d) | .coalesce.rx_usecs' /tmp/coalesce.probe.out 2>/dev/null)" \
  = "$ORIG" "probe's coalesce.rx_usecs for $E1K vs ethtool -c"
check coalesce.probe.rx_frames \
  "$(jq -r --arg d "$E1K" '.nics[] | select(.name == $d) | .coalesce.rx_frames' /tmp/coalesce.probe.out 2>/dev/null)" \
  = null "rx_frames: e1000 does not support it, so the kernel does not report it"

# ---- plan: rx-usecs only, rx-frames left out with a note
RC=
[ -z "$SKIP" ] && run_step coalesce.plan tuner plan --profile $CPROFILE --json --detailed-exitcode
check coalesce.plan.rc "${RC:-x}" = 3 "plan --detailed-exitcode: 3, changes pending"
check coalesce.plan.change \
  "$(jq -r '[.changes[] | .knob + " " + (.current // "null") + " -> " + .desired] | join("; ")' /tmp/coalesce.plan.out 2>/dev/null)" \
  = "nic:$E1K:coalesce rx-usecs=$ORIG -> rx-usecs=100" "the one change planned"
verify coalesce.plan.note "a note names rx-frames as unsupported" \
  jq -e '[.notes[] | select(test("does not support coalesce rx-frames"))] | length == 1' /tmp/coalesce.plan.out

# ---- apply: the driver takes it
RC=
[ -z "$SKIP" ] && run_step coalesce.apply tuner apply --profile $CPROFILE --no-verify --yes --json
check coalesce.apply.rc "${RC:-x}" = 0 "apply --no-verify --yes exit status"
check coalesce.apply.ethtool "$(rx_usecs)" = 100 "ethtool -c $E1K rx-usecs after apply"
RC=
[ -z "$SKIP" ] && run_step coalesce.status tuner status --json
check coalesce.status.rc "${RC:-x}" = 0 "status: 0, every kept value in force"
check coalesce.status.kept \
  "$(jq -r --arg k "nic:$E1K:coalesce" '.knobs[] | select(.knob == $k) | .state + " " + .kept + " " + .before' /tmp/coalesce.status.out 2>/dev/null)" \
  = "ok rx-usecs=100 rx-usecs=$ORIG" "status: state, kept value, value before"

# ---- reset behind tuner's back (as a driver reload would): status sees it, restore fixes it
RC=
if [ -z "$SKIP" ]; then
  ethtool -C "$E1K" rx-usecs "$ORIG"
  run_step coalesce.drift tuner status --json
fi
check coalesce.drift.rc "${RC:-x}" = 3 "status after ethtool -C rx-usecs $ORIG: 3, drift"
check coalesce.drift.state \
  "$(jq -r --arg k "nic:$E1K:coalesce" '.knobs[] | select(.knob == $k) | .state + " " + .live' /tmp/coalesce.drift.out 2>/dev/null)" \
  = "changed rx-usecs=$ORIG" "status: changed, with the live value"
RC=
[ -z "$SKIP" ] && run_step coalesce.restore tuner restore
check coalesce.restore.rc "${RC:-x}" = 0 "restore exit status"
check coalesce.restore.ethtool "$(rx_usecs)" = 100 "ethtool -c $E1K rx-usecs after restore"

# ---- rollback --last: the original throttle rate
RC=
[ -z "$SKIP" ] && run_step coalesce.rollback tuner rollback --last --json
check coalesce.rollback.rc "${RC:-x}" = 0 "rollback --last exit status"
check coalesce.rollback.ethtool "$(rx_usecs)" = "$ORIG" "ethtool -c $E1K rx-usecs after rollback"
same_as_before coalesce.restored "after the coalesce apply and rollback"

# ---- a value search of rx-usecs: the synthetic benchmark's best (50) is found and kept
SPROFILE=/etc/tuner/profiles/vm-e1000-coalesce-search.toml
RC=
[ -z "$SKIP" ] && run_step coalesce.search.plan tuner plan --profile $SPROFILE --json
check coalesce.search.plan.candidates \
  "$(jq -r '.searches[0] | .setting + " " + ([.candidates[].value] | join(","))' /tmp/coalesce.search.plan.out 2>/dev/null)" \
  = "nic:$E1K:coalesce.rx_usecs 20,50,100" "plan --json: the searched setting and its candidates"
RC=
[ -z "$SKIP" ] && run_step coalesce.search.apply tuner apply --profile $SPROFILE --yes --json
check coalesce.search.apply.rc "${RC:-x}" = 0 "apply (verified, searching) exit status"
check coalesce.search.chosen \
  "$(jq -r '.groups[0].decision + " " + (.groups[0].stats.search.chosen // "none")' /tmp/coalesce.search.apply.out 2>/dev/null)" \
  = "kept 50" "the group's decision and the candidate chosen"
check coalesce.search.ethtool "$(rx_usecs)" = 50 "ethtool -c $E1K rx-usecs after the search"
RC=
[ -z "$SKIP" ] && run_step coalesce.search.rollback tuner rollback --last --json
check coalesce.search.rollback.rc "${RC:-x}" = 0 "rollback --last exit status"
check coalesce.search.rollback.ethtool "$(rx_usecs)" = "$ORIG" "ethtool -c $E1K rx-usecs after rollback"
same_as_before coalesce.search.restored "after the coalesce search and rollback"
SKIP=
