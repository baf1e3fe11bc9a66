#!/bin/sh
# The package lifecycle in the systemd guest (tests/vm/package_lifecycle.sh), one part a
# boot (the count in /var/lib/tuner-vm/boot). /root/debs holds the package cpack built
# (build.deb) and the same files and maintainer scripts versioned lower (prev.deb, "the
# previous build"); dpkg runs the maintainer scripts as apt-get would.
# 1. install, purge, reinstall, keep a setting (vm.swappiness 1), remove, reinstall,
#    upgrade to build.deb: after each step every unit is enabled, masked or disabled as
#    docs/operators.md says, and tuner-status.timer runs while the package is installed.
#    The admin's own choices (a unit disabled, one masked) survive remove, reinstall
#    and upgrade. Then the guest reboots.
# 2. After the reboot the kept setting is back (tuner-restore.service ran), the timer
#    runs; then each service fails on purpose and tuner's message must be in its journal
#    (journalctl -u), while tuner-status.service's hourly report (stdout) stays out.
# Results go to the serial console as TUNER-RESULT lines; the harness reads them.
exec >/dev/ttyS0 2>&1
state=/var/lib/tuner-vm
profile=/root/vm-swappiness.toml
units="tuner-restore.service tuner-after-tuned.service tuner-provision.service tuner-status.timer"
mkdir -p "$state"
boot=$(($(cat "$state/boot" 2>/dev/null || echo 0) + 1))
echo "$boot" >"$state/boot"
echo; echo "TUNER-BOOT $boot"
echo "TUNER-INFO scenario starts at uptime $(cut -d' ' -f1 /proc/uptime) s"
expect() { # NAME WANT GOT
  if [ "$2" = "$3" ]; then
    echo "TUNER-RESULT pass $1 $3"
  else
    echo "TUNER-RESULT fail $1 want '$2', got '$3'"
  fi
}
uptime_s() { cut -d. -f1 /proc/uptime; }
# dpkg_step NAME ARGS...: a dpkg run that must succeed; its output is kept for the harness.
dpkg_step() {
  name=$1
  shift
  t=$(uptime_s)
  DEBIAN_FRONTEND=noninteractive dpkg "$@" >"$state/$name.log" 2>&1
  rc=$?
  echo "TUNER-INFO dpkg $name: $(($(uptime_s) - t)) s"
  expect "$name.dpkg" 0 "$rc"
  [ "$rc" = 0 ] || sed "s/^/  $name: /" "$state/$name.log"
}
# units_are STEP RESTORE AFTER_TUNED PROVISION TIMER: each unit's `systemctl is-enabled`.
units_are() {
  step=$1
  shift
  for u in $units; do
    expect "$step.$u" "$1" "$(systemctl is-enabled "$u" 2>/dev/null)"
    shift
  done
}
timer_is() { expect "$1.timer-active" "$2" "$(systemctl is-active tuner-status.timer)"; }
# Whatever tuner's units left in systemd's configuration and deb-systemd-helper's state
# (links, masks, records), but the scenario's own unit.
unit_traces() {
  find /etc/systemd/system /var/lib/systemd/deb-systemd-helper-enabled \
    /var/lib/systemd/deb-systemd-helper-masked -name 'tuner-*' ! -name 'tuner-vm-*' 2>/dev/null |
    sort | tr '\n' ' '
}
# journal_has UNIT TEXT: TEXT in this boot's journal of UNIT (journald may take a moment).
journal_has() {
  i=0
  while [ $i -lt 10 ]; do
    journalctl --sync 2>/dev/null
    journalctl -b -u "$1" -o cat --no-pager 2>/dev/null | grep -qF "$2" && { echo yes; return; }
    sleep 1
    i=$((i + 1))
  done
  echo no
  journalctl -b -u "$1" -o cat --no-pager 2>/dev/null | tail -n 8 | sed "s/^/  journal $1: /" >&2
}
swappiness() { cat /proc/sys/vm/swappiness; }
case $boot in
  1)
    prev=$(dpkg-deb -f /root/debs/prev.deb Version)
    build=$(dpkg-deb -f /root/debs/build.deb Version)
    echo "TUNER-INFO previous $prev, build $build"
    # The kernel's own value, for boot 2 to tell a restored 1 from it.
    expect guest.swappiness-not-1 yes "$([ "$(swappiness)" != 1 ] && echo yes || echo no)"

    dpkg_step install -i /root/debs/prev.deb
    units_are install enabled enabled enabled enabled
    timer_is install active
    expect install.state-dir 700 "$(stat -c %a /var/lib/tuner)"

    # purge (nothing kept): nothing of the units is left anywhere.
    dpkg_step purge -P tuner
    expect purge.unit-traces "" "$(unit_traces)"
    expect purge.state-dir gone "$([ -e /var/lib/tuner ] && echo left || echo gone)"
    expect purge.timer-gone "" "$(systemctl list-units --all --plain --no-legend 'tuner-status.*' | awk '{print $1}' | tr '\n' ' ')"

    # reinstall after purge: a first install again.
    dpkg_step reinstall-after-purge -i /root/debs/prev.deb
    units_are reinstall-after-purge enabled enabled enabled enabled
    timer_is reinstall-after-purge active
    tuner apply --yes --no-verify --profile "$profile" >"$state/apply.out" 2>&1
    expect reinstall-after-purge.apply 1 "$(swappiness)"
    # The admin's choices, which reinstall and upgrade must keep: provisioning disabled,
    # the unit after tuned masked.
    systemctl disable tuner-provision.service >/dev/null 2>&1
    systemctl mask tuner-after-tuned.service >/dev/null 2>&1

    # remove: the units are gone and masked (debhelper's convention); what tuner kept
    # stays in force, with its journals.
    dpkg_step remove -r tuner
    units_are remove masked masked masked masked
    timer_is remove inactive
    expect remove.says-kept yes "$(grep -q 'settings tuner kept stay in force' "$state/remove.log" && echo yes || echo no)"
    expect remove.kept-in-force 1 "$(swappiness)"
    expect remove.state-kept yes "$([ -s /var/lib/tuner/state.json ] && echo yes || echo no)"

    # reinstall: tuner's masks are gone, the admin's mask and disable stay, the timer
    # runs, the way back is there.
    dpkg_step reinstall -i /root/debs/prev.deb
    units_are reinstall enabled masked disabled enabled
    timer_is reinstall active
    tuner status >"$state/status-reinstall.out" 2>&1
    expect reinstall.status-no-drift 0 $?

    # upgrade over the previous build; the kept setting is restored at the next boot.
    dpkg_step upgrade -i /root/debs/build.deb
    expect upgrade.version "$build" "$(dpkg-query -W -f '${Version}' tuner)"
    units_are upgrade enabled masked disabled enabled
    timer_is upgrade active
    ;;
  2)
    expect boot.kept-restored 1 "$(swappiness)"
    expect boot.restore-ran success "$(systemctl show -p Result --value tuner-restore.service)"
    expect boot.restore-active active "$(systemctl is-active tuner-restore.service)"
    units_are boot enabled masked disabled enabled
    timer_is boot active

    # tuner-status.service: a run that succeeds writes its files and leaves its report
    # for people (stdout: the kept sysctl) out of the journal.
    mkdir -p /var/lib/prometheus/node-exporter
    systemctl start tuner-status.service
    expect status.ok-run 0 $?
    expect status.file-says-kept yes "$(grep -q '^tuner_kept_settings 1$' /var/lib/prometheus/node-exporter/tuner-status.prom && echo yes || echo no)"
    expect status.no-report-in-journal 0 "$(journalctl -b -u tuner-status.service -o cat --no-pager | grep -c swappiness)"

    # Each service fails, and its journal says why in tuner's words.
    cp /var/lib/tuner/state.json "$state/state.json.good"
    echo '{' >/var/lib/tuner/state.json
    why='state.json: not a JSON object'
    systemctl start tuner-status.service 2>/dev/null
    expect status.fails failed "$(systemctl is-active tuner-status.service)"
    expect status.error-in-journal yes "$(journal_has tuner-status.service "$why")"
    systemctl restart tuner-restore.service 2>/dev/null
    expect restore.fails failed "$(systemctl is-active tuner-restore.service)"
    expect restore.error-in-journal yes "$(journal_has tuner-restore.service "$why")"
    systemctl unmask tuner-after-tuned.service >/dev/null 2>&1
    systemctl start tuner-after-tuned.service 2>/dev/null
    expect after-tuned.fails failed "$(systemctl is-active tuner-after-tuned.service)"
    expect after-tuned.error-in-journal yes "$(journal_has tuner-after-tuned.service "$why")"
    cp "$state/state.json.good" /var/lib/tuner/state.json
    echo TUNER_PROFILE=no-such-profile >/etc/tuner/provision.env
    systemctl start tuner-provision.service 2>/dev/null
    expect provision.fails failed "$(systemctl is-active tuner-provision.service)"
    expect provision.error-in-journal yes "$(journal_has tuner-provision.service "no profile named 'no-such-profile'")"
    expect provision.attempt-in-journal yes "$(journal_has tuner-provision.service "attempt 1 of 3 failed")"
    echo "TUNER-DONE"
    ;;
esac
echo "TUNER-INFO scenario ends at uptime $(cut -d' ' -f1 /proc/uptime) s"
sync
systemctl poweroff --no-block
