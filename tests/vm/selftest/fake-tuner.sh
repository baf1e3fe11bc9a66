#!/bin/sh
# A stand-in tuner for checking the harness itself (TUNER_VM_SELFTEST=1), never for
# testing tuner: it makes exactly the changes tests/vm/guest/vm-e2e.toml.in asks for, with
# busybox and ethtool, journals them, and honours TUNER_FAULT_AFTER_WRITES, so that
# the scenario's plan/apply/rollback/crash checks can be seen to pass on a correct
# implementation and fail on a wrong one (TUNER_VM_SELFTEST=bad skips the IRQ writes and
# the sysctl rollback). `probe` is the real binary.
cmd=$1; shift
[ "$cmd" = probe ] && exec /usr/bin/tuner.real probe "$@"
profile=; for a in "$@"; do case $prev in --profile) profile=$a ;; esac; prev=$a; done
J=/var/lib/tuner/runs; mkdir -p $J
BAD=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^tuner_selftest=//p')
VIRT='' E1K=''
for n in /sys/class/net/*; do
  case $(basename "$(readlink "$n/device/driver" 2>/dev/null)"):$(cat "$n/address") in
    virtio_net:52:54:00:00:01:01) VIRT=${n##*/} ;; e1000:*) E1K=${n##*/} ;; esac
done
VDEV=$(basename "$(readlink -f /sys/class/net/$VIRT/device)")
node1=$(cat /sys/devices/system/node/node1/cpulist)
cpus1=$(echo "$node1" | tr ',' '\n' | awk -F- 'NF==1{print $1} NF==2{for(i=$1;i<=$2;i++)print i}' | tr '\n' ' ')

nic_get() { echo "$(cat /sys/class/net/$1/speed) $(cat /sys/class/net/$1/duplex) $(ethtool $1 | sed -n 's/^[[:space:]]*Auto-negotiation: //p')"; }
nic_set() {  # DEV "speed duplex autoneg"
  set -- $1 $2
  if [ "$4" = on ]; then ethtool -s $1 autoneg on
  elif [ "$2" -lt 0 ] 2>/dev/null || [ "$3" = unknown ]; then ethtool -s $1 speed 4294967295 autoneg off
  else ethtool -s $1 speed $2 duplex $3 autoneg $4; fi
}
get() { case $1 in nic:*) nic_get "$2" ;; *) cat "$2" ;; esac; }
put() { case $1 in nic:*) nic_set "$2" "$3" ;; *) echo "$3" > "$2" ;; esac; }

# The changes: knob|path|desired
changes() {
  case $profile in
  *e1000-forced*) echo "nic:$E1K:link|$E1K|100 full off" ;;
  *)
    echo "sysctl:net.core.netdev_max_backlog|/proc/sys/net/core/netdev_max_backlog|4321"
    [ "$(cat /proc/sys/net/core/somaxconn)" -lt 8192 ] && echo "sysctl:net.core.somaxconn|/proc/sys/net/core/somaxconn|8192"
    echo "sysctl:vm.swappiness|/proc/sys/vm/swappiness|17"
    if [ "$BAD" != bad ]; then
      set -- $cpus1   # queue pair q (input.q, output.q) on node 1's CPU q mod n
      for i in $(awk -v d="$VDEV" '$NF ~ "^" d "-(input|output)\\." { sub(":", "", $1); print $1 }' /proc/interrupts); do
        q=$(awk -v i="$i:" '$1 == i { sub(/.*\./, "", $NF); print $NF }' /proc/interrupts)
        set -- $cpus1; shift $((q % $#))
        echo "irq:$i:affinity|/proc/irq/$i/smp_affinity_list|$1"
      done
    fi
    echo "nic:$VIRT:link|$VIRT|1000 full off"
    echo "numa:cgroup:/sys/fs/cgroup/e2e|/sys/fs/cgroup/e2e/cpuset.cpus|$node1"
    echo "numa:cgroup:/sys/fs/cgroup/e2e|/sys/fs/cgroup/e2e/cpuset.mems|1" ;;
  esac
}

undo() {  # JOURNAL: restore newest first
  grep '^intent|' "$1" | tac | while IFS='|' read -r _ knob path before; do
    [ "$BAD" = bad ] && case $knob in sysctl:*) continue ;; esac
    put "$knob" "$path" "$before"
  done
  echo end >> "$1"
}

case $cmd in
plan)
  changes | while IFS='|' read -r knob path want; do
    [ "$(get "$knob" "$path")" = "$want" ] && continue
    echo "{\"knob\":\"$knob\",\"current\":\"$(get "$knob" "$path")\",\"desired\":\"$want\"}"
  done > /tmp/fake.plan
  echo "{\"schema\":\"tuner.plan/1\",\"changes\":[$(paste -sd, /tmp/fake.plan)],\"unchanged\":0}"
  case " $* " in *" --detailed-exitcode "*) [ -s /tmp/fake.plan ] && exit 3 ;; esac
  exit 0 ;;
apply)
  for f in $J/*.journal; do
    [ -f "$f" ] && ! grep -q '^end' "$f" && { echo "tuner: apply: run ${f##*/} is unfinished; run tuner rollback" >&2; exit 1; }
  done
  run=$J/$(date +%s)-$$.journal; echo begin > "$run"; k=0
  changes > /tmp/fake.changes
  while IFS='|' read -r knob path want; do
    before=$(get "$knob" "$path")
    [ "$before" = "$want" ] && continue
    echo "intent|$knob|$path|$before" >> "$run"; sync
    put "$knob" "$path" "$want"; k=$((k + 1))
    [ "$k" = "${TUNER_FAULT_AFTER_WRITES:-0}" ] && kill -9 $$
    sleep 0.2
    got=$(get "$knob" "$path")
    if [ "$got" != "$want" ]; then
      echo "tuner: $knob: read back '$got' after writing '$want'; rolled back" >&2
      undo "$run"; exit 1
    fi
  done < /tmp/fake.changes
  echo end >> "$run"; echo "{\"schema\":\"tuner.run/1\",\"run_id\":\"${run##*/}\",\"changed\":true}" ;;
rollback)
  if [ "$1" = --last ]; then f=$(ls $J/*.journal | sort | tail -1)
  else f=$(for f in $J/*.journal; do grep -q '^end' "$f" || echo "$f"; done | tail -1); fi
  [ -n "$f" ] || { echo "tuner: rollback: nothing to roll back" >&2; exit 1; }
  sed -i '/^end$/d' "$f"; undo "$f"; echo '{"schema":"tuner.run/1"}' ;;
restore)  # the stand-in keeps no state.json: it re-applies the main profile
  changes | while IFS='|' read -r knob path want; do
    [ "$(get "$knob" "$path")" = "$want" ] || put "$knob" "$path" "$want"
  done ;;
*) echo "tuner: $cmd: not implemented yet" >&2; exit 1 ;;
esac
