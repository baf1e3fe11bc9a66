#!/bin/sh
# The systemd guest's scenario, one step a boot (the count in /var/lib/tuner-vm/boot):
# 1. tuned (Debian 12's, throughput-performance) has set vm.swappiness to 10; tuner
#    keeps 1; `tuner check` names tuned's profile at info (tuner-after-tuned.service is
#    enabled, so tuner writes last at boot).
# 2. After a reboot: 1 survived; tuner-restore ran before tuned and tuner-after-tuned
#    after it; no drift. Then tuner-after-tuned.service is disabled.
# 3. After a reboot: tuned's 10 is back, and `tuner check` says why: a warning, tuned
#    writes last at boot; `tuner status` reports the drift.
# Results go to the serial console as TUNER-RESULT lines; the harness reads them.
exec >/dev/ttyS0 2>&1
state=/var/lib/tuner-vm
profile=/etc/tuner/profiles/vm-swappiness.toml
mkdir -p "$state"
boot=$(($(cat "$state/boot" 2>/dev/null || echo 0) + 1))
echo "$boot" >"$state/boot"
echo; echo "TUNER-BOOT $boot"
expect() { # NAME WANT GOT
  if [ "$2" = "$3" ]; then
    echo "TUNER-RESULT pass $1 $3"
  else
    echo "TUNER-RESULT fail $1 want '$2', got '$3'"
  fi
}
prop() { systemctl show -p "$2" --value "$1"; }
tuned_finding() { # FILE: the tuned.overrides finding for vm.swappiness, as one line
  jq -c '[.findings[] | select(.rule == "tuned.overrides" and .subject == "sysctl:vm.swappiness")]' "$1"
}
case $boot in
  1)
    expect boot1.tuned-active active "$(systemctl is-active tuned.service)"
    expect boot1.tuned-profile throughput-performance "$(cat /etc/tuned/active_profile)"
    expect boot1.tuned-sets-swappiness 10 "$(cat /proc/sys/vm/swappiness)"
    tuner apply --yes --no-verify --profile "$profile" >"$state/apply.out" 2>&1
    expect boot1.apply-exit 0 $?
    expect boot1.applied 1 "$(cat /proc/sys/vm/swappiness)"
    tuner check --json --window 0 --fail-on never --profile "$profile" >"$state/check1.json"
    f=$(tuned_finding "$state/check1.json")
    expect boot1.check-finds-tuned 1 "$(echo "$f" | jq length)"
    expect boot1.check-severity info "$(echo "$f" | jq -r '.[0].severity')"
    expect boot1.check-tuned-value 10 "$(echo "$f" | jq -r '.[0].evidence[] | select(.what | startswith("tuned [sysctl]")) | .value')"
    ;;
  2)
    expect boot2.kept-survives-reboot 1 "$(cat /proc/sys/vm/swappiness)"
    restore=$(prop tuner-restore.service ActiveEnterTimestampMonotonic)
    tuned=$(prop tuned.service ActiveEnterTimestampMonotonic)
    after=$(prop tuner-after-tuned.service InactiveExitTimestampMonotonic)
    expect boot2.after-tuned-ran active "$(systemctl is-active tuner-after-tuned.service)"
    expect boot2.restore-before-tuned yes "$([ "$restore" -gt 0 ] && [ "$restore" -lt "$tuned" ] && echo yes || echo "no: $restore $tuned")"
    expect boot2.after-tuned-after-tuned yes "$([ "$after" -ge "$tuned" ] && echo yes || echo "no: $tuned $after")"
    tuner status >"$state/status2.out" 2>&1
    expect boot2.status-no-drift 0 $?
    systemctl disable tuner-after-tuned.service >/dev/null 2>&1
    expect boot2.after-tuned-disabled disabled "$(systemctl is-enabled tuner-after-tuned.service)"
    ;;
  3)
    expect boot3.tuned-wins-without-after-unit 10 "$(cat /proc/sys/vm/swappiness)"
    tuner check --json --window 0 --fail-on never >"$state/check3.json"
    f=$(tuned_finding "$state/check3.json")
    expect boot3.check-finds-tuned 1 "$(echo "$f" | jq length)"
    expect boot3.check-severity warning "$(echo "$f" | jq -r '.[0].severity')"
    expect boot3.check-says-tuned-last tuned "$(echo "$f" | jq -r '.[0].evidence[] | select(.what == "at boot") | .value' | cut -d: -f1)"
    tuner status >"$state/status3.out" 2>&1
    expect boot3.status-drift 3 $?
    echo "TUNER-DONE"
    ;;
esac
sync
systemctl poweroff --no-block
