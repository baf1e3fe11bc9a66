# shellcheck shell=dash disable=SC2154,SC3043
# Scenario part 3: the [cpu] and [mm] knob kinds on the guest's real sysfs: transparent
# hugepages (enabled, defrag) and every CPU's PM QoS resume latency. qemu's TCG CPUs
# have no cpufreq driver, so governor and EPP can only be checked as the plan's note
# (their knobs are tested on fake sysfs trees: tuner/plan/cpu_mm_test.cc).
KNOBS="tuner/knobs/cpu_latency.cc tuner/knobs/cpu_policy.cc tuner/knobs/thp.cc"
THP=/sys/kernel/mm/transparent_hugepage
bracketed() { sed -n 's/.*\[\([^]]*\)\].*/\1/p' "$1"; }
cpumm_snapshot() {
  local c
  echo "thp=$(bracketed $THP/enabled) defrag=$(bracketed $THP/defrag)"
  for c in /sys/devices/system/cpu/cpu[0-9]*; do
    echo "${c##*/}.resume_latency=$(cat $c/power/pm_qos_resume_latency_us 2>/dev/null)"
  done
}
# Values other than the kernel's current ones, so that every knob has a change to make.
THP_NOW=$(bracketed $THP/enabled)
DEFRAG_NOW=$(bracketed $THP/defrag)
THP_WANT=madvise; [ "$THP_NOW" = madvise ] && THP_WANT=always
DEFRAG_WANT=defer+madvise; [ "$DEFRAG_NOW" = defer+madvise ] && DEFRAG_WANT=defer
CPUS=$(cd /sys/devices/system/cpu && echo cpu[0-9]* | sed 's/cpu//g')
cat > /etc/tuner/profiles/vm-cpu-mm.toml <<EOT
[profile]
name = "vm-cpu-mm"
description = "the [cpu] and [mm] knob kinds in the qemu guest"
[cpu]
governor = "performance"
epp = "performance"
resume_latency_us = 20
[mm]
thp = "$THP_WANT"
thp_defrag = "$DEFRAG_WANT"
EOT
P=/etc/tuner/profiles/vm-cpu-mm.toml
cpumm_snapshot > /tmp/cpumm.before
note "cpu/mm before: $(one_line < /tmp/cpumm.before)"

SKIP=$(stub_reason $KNOBS)
[ -z "$SKIP" ] && [ ! -e $THP/enabled ] && SKIP="the guest kernel has no $THP"
grep -q tuner_selftest= /proc/cmdline && SKIP="self-test: the stand-in tuner has no [cpu] or [mm]"
if [ -z "$SKIP" ]; then
  run_step cpumm.plan tuner plan --profile $P --json --detailed-exitcode
  SKIP=$STEP_SKIP
fi
check cpumm.plan.rc "${RC:-x}" = 3 "plan --detailed-exitcode: 3, changes pending"
cpumm_has() { jq -e --arg k "$1" --arg v "$2" \
  '[.changes[]? | select(.knob == $k and .desired == $v)] | length == 1' /tmp/cpumm.plan.out >/dev/null; }
verify cpumm.plan.thp "mm:thp -> $THP_WANT (now $THP_NOW)" cpumm_has mm:thp "$THP_WANT"
verify cpumm.plan.defrag "mm:thp_defrag -> $DEFRAG_WANT (now $DEFRAG_NOW)" cpumm_has mm:thp_defrag "$DEFRAG_WANT"
cpumm_all_cpus() {
  local c miss=
  for c in $CPUS; do cpumm_has "cpu:$c:resume_latency" 20 || miss="$miss $c"; done
  echo "${miss:+no change for CPUs$miss}"; [ -z "$miss" ]
}
verify cpumm.plan.resume_latency "cpu:N:resume_latency -> 20 for CPUs $CPUS" cpumm_all_cpus
if [ -e /sys/devices/system/cpu/cpufreq/policy0 ]; then
  result skip cpumm.plan.no_cpufreq "this guest has cpufreq policies"
else
  verify cpumm.plan.no_cpufreq "no cpufreq in the guest: governor and epp are a note, not an error" \
    jq -e '[.notes[]? | tostring | select(test("no cpufreq"))] | length == 1' /tmp/cpumm.plan.out
fi
same_cpumm() {  # FILE: the knobs' sysfs state equals FILE
  local d; d=$(cpumm_snapshot | diff "$1" - | grep '^[-+][^-+]' | one_line)
  echo "${d:+differs: $d}"; [ -z "$d" ]
}
verify cpumm.plan.changed_nothing "after plan" same_cpumm /tmp/cpumm.before

RC=
[ -z "$SKIP" ] && run_step cpumm.apply tuner apply --profile $P --no-verify --yes --json
check cpumm.apply.rc "${RC:-x}" = 0 "apply --no-verify --yes exit status"
check cpumm.apply.thp "$(bracketed $THP/enabled)" = "$THP_WANT" "$THP/enabled"
check cpumm.apply.defrag "$(bracketed $THP/defrag)" = "$DEFRAG_WANT" "$THP/defrag"
cpumm_latency_is() {  # VALUE: every CPU's pm_qos_resume_latency_us
  local c bad=
  for c in $CPUS; do
    v=$(cat /sys/devices/system/cpu/cpu$c/power/pm_qos_resume_latency_us)
    [ "$v" = "$1" ] || bad="$bad cpu$c=$v"
  done
  echo "${bad:+not $1:$bad}"; [ -z "$bad" ]
}
verify cpumm.apply.resume_latency "pm_qos_resume_latency_us = 20 on every CPU" cpumm_latency_is 20

RC=
[ -z "$SKIP" ] && run_step cpumm.replan tuner plan --profile $P --json --detailed-exitcode
check cpumm.replan.rc "${RC:-x}" = 0 "plan after apply: 0, nothing pending (the knobs read what they wrote)"

RC=
[ -z "$SKIP" ] && run_step cpumm.rollback tuner rollback --last --json
check cpumm.rollback.rc "${RC:-x}" = 0 "rollback --last exit status"
verify cpumm.rollback.restored "after rollback --last" same_cpumm /tmp/cpumm.before
SKIP=
