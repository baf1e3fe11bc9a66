# shellcheck shell=dash disable=SC2154,SC3043
# Scenario part 4: RPS and XPS on the guest's multi-queue virtio NIC (4 queue pairs on
# node 1, whose 2 CPUs are 2 cores). With [irq] numa-local, xps = "follow-irq" must give
# each TX queue the CPUs of its output.N IRQ as placed (with SMT siblings and the
# nearest other CPUs: every CPU is in a map), and rps = "numa-local" must plan
# nothing (a queue per core already) and say so. Then rps/xps = "off" take away masks
# set by hand. Each apply is read back from sysfs and rolled back with rollback --last.
KNOBS="tuner/knobs/nic_queue_cpus.cc"
Q=/sys/class/net/$VIRT/queues
NTX=$(ls -d $Q/tx-* | wc -l)
NRX=$(ls -d $Q/rx-* | wc -l)
rpsxps_snapshot() {
  local q i
  for q in $Q/rx-*; do echo "${q##*/}.rps=$(cat $q/rps_cpus)"; done
  for q in $Q/tx-*; do echo "${q##*/}.xps=$(cat $q/xps_cpus 2>&1)"; done
  for i in $VQIRQS; do echo "irq.$i=$(cat /proc/irq/$i/smp_affinity_list)"; done
}
mask_list() {  # a hex mask of at most 32 CPUs ("c") -> cpulist "2-3" (runs joined)
  local m c=0 out='' lo=-1; m=$(printf '%d' "0x$(echo "$1" | tr -d ,)")
  while [ $c -le 32 ]; do
    if [ $((m >> c & 1)) = 1 ]; then [ $lo -lt 0 ] && lo=$c
    elif [ $lo -ge 0 ]; then
      out="$out${out:+,}$lo$([ $((c - 1)) -gt $lo ] && echo "-$((c - 1))")"; lo=-1
    fi
    c=$((c + 1))
  done
  echo "$out"
}
out_irq() { awk -v d="$VDEV" -v q="$1" '$NF == d "-output." q { sub(":", "", $1); print $1 }' /proc/interrupts; }
rpsxps_same() {  # FILE: the masks and IRQs equal FILE
  local d; d=$(rpsxps_snapshot | diff "$1" - | grep '^[-+][^-+]' | one_line)
  echo "${d:+differs: $d}"; [ -z "$d" ]
}
cat > /etc/tuner/profiles/vm-rps-xps.toml <<EOT
[profile]
name = "vm-rps-xps"
description = "RPS and XPS on the qemu guest's virtio NIC"
[irq."$VIRT"]
policy = "numa-local"
[nic."$VIRT"]
rps = "numa-local"
xps = "follow-irq"
EOT
P=/etc/tuner/profiles/vm-rps-xps.toml
rpsxps_snapshot > /tmp/rpsxps.before
note "rps/xps before: $(one_line < /tmp/rpsxps.before)"

SKIP=$(stub_reason $KNOBS)
grep -q tuner_selftest= /proc/cmdline && SKIP="self-test: the stand-in tuner has no rps/xps"
[ -z "$SKIP" ] && [ "$NTX" -lt 2 ] && SKIP="one TX queue (no tap backend): XPS has nothing to steer"
if [ -z "$SKIP" ]; then
  run_step rpsxps.plan tuner plan --profile $P --json --detailed-exitcode
  SKIP=$STEP_SKIP
fi
check rpsxps.plan.rc "${RC:-x}" = 3 "plan --detailed-exitcode: 3, changes pending"
planned() {  # FILE KNOB: the desired value of KNOB's change, or "" when none
  jq -r --arg k "$2" '.changes[]? | select(.knob == $k) | .desired' "$1"
}
cpus_of() {  # a cpulist "0-2,5" -> "0 1 2 5"
  echo "$1" | tr , '\n' | while IFS=- read -r lo hi; do [ -n "$lo" ] && seq "$lo" "${hi:-$lo}"; done | tr '\n' ' '
}
xps_holds() {  # Q WANT GOT: tx-Q's map GOT holds its IRQ's CPUs WANT; adds to bad and all
  local c
  for c in $(cpus_of "$2"); do
    case " $(cpus_of "$3") " in *" $c "*) ;; *) bad="$bad tx-$1:$3(irq:$2)"; break ;; esac
  done
  all="$all $(cpus_of "$3")"
}
xps_covers() {  # every online CPU is in some TX queue's map (all)
  local c
  for c in $(cpus_of "$(cat /sys/devices/system/cpu/online)"); do
    case " $all " in *" $c "*) ;; *) bad="$bad cpu$c:in-no-map" ;; esac
  done
}
xps_follows_plan() {  # each tx-N: the plan's (or current) XPS holds its IRQ's planned (or current) CPUs
  local q i want got bad='' all=''
  for q in $(seq 0 $((NTX - 1))); do
    i=$(out_irq $q)
    want=$(planned /tmp/rpsxps.plan.out "$(irq_id "$i")"); [ -n "$want" ] || want=$(cat /proc/irq/$i/smp_affinity_list)
    got=$(planned /tmp/rpsxps.plan.out "nic:$VIRT:xps:tx-$q"); [ -n "$got" ] || got=$(mask_list "$(cat $Q/tx-$q/xps_cpus)")
    xps_holds $q "$want" "$got"
  done
  xps_covers
  echo "${bad:+mismatch:$bad}"; [ -z "$bad" ]
}
verify rpsxps.plan.xps "xps tx-N holds the CPUs of IRQ output.N as placed; every CPU mapped" xps_follows_plan
verify rpsxps.plan.xps_changes "at least one TX queue moves with its IRQ" \
  jq -e --arg p "nic:$VIRT:xps:" '[.changes[]? | select(.knob | startswith($p))] | length >= 1' /tmp/rpsxps.plan.out
if [ "$NRX" -ge 2 ]; then
  verify rpsxps.plan.rps_note "$NRX RX queues for node 1's 2 cores: no rps change, a note" \
    jq -e --arg p "nic:$VIRT:rps:" '([.changes[]? | select(.knob | startswith($p))] | length == 0)
      and ([.notes[]? | select(test("a queue per core already"))] | length == 1)' /tmp/rpsxps.plan.out
else
  check rpsxps.plan.rps_note "$(planned /tmp/rpsxps.plan.out "nic:$VIRT:rps:rx-0")" = "$node_cpus1" "one RX queue: node 1's CPUs"
fi
verify rpsxps.plan.changed_nothing "after plan" rpsxps_same /tmp/rpsxps.before

RC=
[ -z "$SKIP" ] && run_step rpsxps.apply tuner apply --profile $P --no-verify --yes --json
check rpsxps.apply.rc "${RC:-x}" = 0 "apply --no-verify --yes exit status"
xps_on_irq_cpus() {  # each tx-N's xps_cpus holds its output.N IRQ's smp_affinity_list
  local q i want got bad='' all=''
  for q in $(seq 0 $((NTX - 1))); do
    i=$(out_irq $q); want=$(cat /proc/irq/$i/smp_affinity_list)
    got=$(mask_list "$(cat $Q/tx-$q/xps_cpus)")
    xps_holds $q "$want" "$got"
  done
  xps_covers
  echo "${bad:+mismatch:$bad}"; [ -z "$bad" ]
}
verify rpsxps.apply.xps "xps_cpus of each TX queue holds its IRQ's CPUs; every CPU mapped" xps_on_irq_cpus
RC=
[ -z "$SKIP" ] && run_step rpsxps.replan tuner plan --profile $P --json --detailed-exitcode
check rpsxps.replan.rc "${RC:-x}" = 0 "plan after apply: 0, nothing pending"
RC=
[ -z "$SKIP" ] && run_step rpsxps.rollback tuner rollback --last --json
check rpsxps.rollback.rc "${RC:-x}" = 0 "rollback --last exit status"
verify rpsxps.rollback.restored "after rollback --last" rpsxps_same /tmp/rpsxps.before

# ---- "off": masks set by hand (CPUs 0-1) are emptied, and rollback puts them back
TX0=$(cat $Q/tx-0/xps_cpus)
for q in $Q/rx-*; do echo 3 > $q/rps_cpus; done
echo 3 > $Q/tx-0/xps_cpus
rpsxps_snapshot > /tmp/rpsxps.hand
cat > $P <<EOT
[profile]
name = "vm-rps-xps"
description = "RPS and XPS off on the qemu guest's virtio NIC"
[nic."$VIRT"]
rps = "off"
xps = "off"
EOT
RC=
[ -z "$SKIP" ] && run_step rpsxps.off tuner apply --profile $P --no-verify --yes --json
check rpsxps.off.rc "${RC:-x}" = 0 "apply rps/xps = \"off\" exit status"
all_empty() {
  local q bad=
  for q in $Q/rx-*; do [ -z "$(mask_list "$(cat $q/rps_cpus)")" ] || bad="$bad ${q##*/}:$(cat $q/rps_cpus)"; done
  for q in $Q/tx-*; do [ -z "$(mask_list "$(cat $q/xps_cpus)")" ] || bad="$bad ${q##*/}:$(cat $q/xps_cpus)"; done
  echo "${bad:+not empty:$bad}"; [ -z "$bad" ]
}
verify rpsxps.off.empty "every rps_cpus and xps_cpus is 0" all_empty
RC=
[ -z "$SKIP" ] && run_step rpsxps.off_rollback tuner rollback --last --json
check rpsxps.off_rollback.rc "${RC:-x}" = 0 "rollback --last exit status"
verify rpsxps.off_rollback.restored "the hand-set masks are back" rpsxps_same /tmp/rpsxps.hand
for q in $Q/rx-*; do echo 0 > $q/rps_cpus; done
echo "$TX0" > $Q/tx-0/xps_cpus
SKIP=
