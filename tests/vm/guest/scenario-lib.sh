# shellcheck shell=dash disable=SC2154,SC3043
# Helpers for the guest scenario (busybox sh), sourced by /scenario.sh.
export PATH=/bin:/sbin:/usr/bin
SKIP=     # when set, check/verify print "skip CHECK <reason>" instead of judging

# Source files the host found to be stubs ("// STUB:" first line), passed on the kernel
# command line as tuner_stubs=a.cc,b.cc: checks that depend on them are skipped.
STUBS=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^tuner_stubs=//p' | tr ',' ' ')

one_line() { tr '\n\t' '  ' | sed 's/  */ /g; s/ $//'; }

result() {  # STATUS CHECK DETAIL
  echo "TUNER-RESULT $1 $2 $(printf '%s' "$3" | one_line)"
}
note() { echo "TUNER-NOTE $(printf '%s' "$*" | one_line)"; }

# check CHECK A OP B DETAIL: passes when [ "A" OP "B" ].
check() {
  if [ -n "$SKIP" ]; then result skip "$1" "$SKIP"; return 0; fi
  if test "$2" "$3" "$4"; then result pass "$1" "$5"; else
    result fail "$1" "expected '$2' $3 '$4'; $5"; fi
}

# verify CHECK DETAIL CMD...: passes when CMD succeeds; CMD's stdout joins the detail.
verify() {
  local name=$1 detail=$2 out; shift 2
  if [ -n "$SKIP" ]; then result skip "$name" "$SKIP"; return 0; fi
  if out=$("$@" 2>&1); then result pass "$name" "$detail $out"; else
    result fail "$name" "$detail $out"; fi
}

# stub_reason FILE...: prints "stub: FILE ..." for those of FILE that are stubs.
stub_reason() {
  local f hits=
  for f in "$@"; do
    case " $STUBS " in *" $f "*) hits="$hits $f" ;; esac
  done
  [ -n "$hits" ] && echo "stub:$hits"
}

# run_step NAME CMD...: runs CMD, keeps its output in /tmp/NAME.out and on the console
# (between markers), its exit status in RC. Sets STEP_SKIP when tuner said a part of it
# is not implemented.
run_step() {
  local name=$1; shift
  echo "TUNER-STEP $name: $* (uptime $(cut -d" " -f1 /proc/uptime))"
  # A hung step ends here, not at the host's limit for the whole VM. busybox timeout
  # execs CMD in its own pid, so CMD's exit status (137 for SIGKILL) comes through.
  timeout "${STEP_TIMEOUT:-120}" "$@" > "/tmp/$name.out" 2> "/tmp/$name.err"
  RC=$?
  [ $RC = 143 ] && echo "step $name: killed after ${STEP_TIMEOUT:-120} s (hung?)" >> "/tmp/$name.err"
  echo "TUNER-OUT-BEGIN $name rc=$RC"
  head -c 6000 "/tmp/$name.out"; echo; sed 's/^/stderr: /' "/tmp/$name.err" | head -40
  echo "TUNER-OUT-END $name"
  STEP_SKIP=
  if grep -qi 'not implemented' "/tmp/$name.out" "/tmp/$name.err"; then
    STEP_SKIP="$name: $(grep -hi 'not implemented' "/tmp/$name.err" "/tmp/$name.out" | head -3 | one_line)"
  fi
}

# keep_file NAME CMD...: CMD's output goes to the console between markers, and the
# host keeps it as <work>/NAME (the kernels' own files, compared across kernels and
# copied into tests/fixtures when a parser needs them).
keep_file() {
  local name=$1; shift
  echo "TUNER-FILE-BEGIN $name"; "$@"; echo "TUNER-FILE-END $name"
}

# cpulist "0-1,3" -> "0 1 3"
cpulist() {
  echo "$1" | tr ',' '\n' | awk -F- 'NF == 1 && $1 != "" { print $1 }
    NF == 2 { for (i = $1; i <= $2; i++) print i }' | tr '\n' ' '
}
# subset A B: every CPU of list A is in list B, and A is not empty.
subset() {
  local a b c
  a=$(cpulist "$1"); b=" $(cpulist "$2") "
  [ -n "$a" ] || return 1
  for c in $a; do case $b in *" $c "*) ;; *) return 1 ;; esac; done
}

uptime_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }

# wait_link DEV SECONDS: until the link has been up with a known speed for 3 samples
# in a row, 1 s apart. A renegotiation takes the link down asynchronously (e1000's
# watchdog runs every 2 s), so "up right now" may be the state before it.
wait_link() {
  local t0 ok=0; t0=$(uptime_ms)
  while [ $ok -lt 3 ] && [ $(($(uptime_ms) - t0)) -lt $(($2 * 1000)) ]; do
    if [ "$(cat "/sys/class/net/$1/operstate")" = up ] &&
       [ "$(cat "/sys/class/net/$1/speed" 2>/dev/null || echo -1)" -gt 0 ]; then
      ok=$((ok + 1))
    else
      ok=0
    fi
    [ $ok -lt 3 ] && sleep 1
  done
}

autoneg() {  # DEV -> on|off|? (sysfs has no autoneg; ethtool reads it independently)
  if [ -x /usr/bin/ethtool ]; then
    ethtool "$1" 2>/dev/null | sed -n 's/^[[:space:]]*Auto-negotiation: //p'
  else echo "?"; fi
}

# The state the scenario's profiles touch, from the kernel's own files.
# irq_id N: the knob id tuner gives IRQ N's affinity: by owner (its PCI function and MSI
# index, the low 11 bits of /sys/kernel/irq/N/hwirq) when it is a PCI function's
# vector, as the real tuner names them; by number in the harness self-test, whose
# stand-in keeps the old form.
msi_index() { echo $(( $(cat "/sys/kernel/irq/$1/hwirq") & 2047 )); }
irq_pci() { for d in /sys/bus/pci/devices/*; do [ -e "$d/msi_irqs/$1" ] && echo "${d##*/}"; done; }
irq_id() {
  local pci; pci=$(irq_pci "$1")
  if [ -n "$pci" ] && [ -r "/sys/kernel/irq/$1/hwirq" ] && ! grep -q tuner_selftest= /proc/cmdline
  then echo "irq:$pci/msi$(msi_index "$1"):affinity"
  else echo "irq:$1:affinity"; fi
}

# rx_ring: the e1000's current RX ring size, as ethtool -g reads it.
rx_ring() { ethtool -g "$E1K" 2>/dev/null | awk '/^Current/ { cur = 1 } cur && /^RX:/ { print $2; exit }'; }

snapshot() {
  local k i n
  for k in net.core.netdev_max_backlog net.core.somaxconn vm.swappiness; do
    echo "sysctl.$k=$(cat "/proc/sys/$(echo $k | tr . /)")"
  done
  for i in $(ls "$VPCI/msi_irqs") $EIRQ; do
    echo "irq.$i.affinity=$(cat /proc/irq/$i/smp_affinity_list)"
  done
  for n in $VIRT $E1K; do
    echo "nic.$n.speed=$(cat /sys/class/net/$n/speed 2>/dev/null)"
    echo "nic.$n.duplex=$(cat /sys/class/net/$n/duplex 2>/dev/null)"
    echo "nic.$n.autoneg=$(autoneg $n)"
  done
  echo "nic.$E1K.rx-usecs=$(ethtool -c "$E1K" 2>/dev/null | sed -n 's/^rx-usecs:[[:space:]]*//p')"
  echo "nic.$E1K.rx-ring=$(rx_ring)"
  echo "cgroup.e2e.cpus=$(cat /sys/fs/cgroup/e2e/cpuset.cpus)"
  echo "cgroup.e2e.mems=$(cat /sys/fs/cgroup/e2e/cpuset.mems)"
}

# same_as_before CHECK WHAT: the kernel's state equals /tmp/before, or names what differs.
same_as_before() {
  local name=$1 what=$2 d
  snapshot > /tmp/now
  d=$(diff /tmp/before /tmp/now | sed -n 's/^+\([^+]\)/now \1/p; s/^-\([^-]\)/was \1/p' | one_line)
  if [ -n "$SKIP" ]; then result skip "$name" "$SKIP"
  elif [ -z "$d" ]; then result pass "$name" "$what: all $(wc -l < /tmp/now) values as before"
  else result fail "$name" "$what: $d"; fi
}

# value_of KEY FILE: a snapshot line's value
value_of() { sed -n "s/^$1=//p" "$2"; }
