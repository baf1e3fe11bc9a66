#!/usr/bin/env bash
# End-to-end test of tuner on Debian's own kernel in a qemu VM (TCG): two NUMA nodes, a
# multi-queue virtio-net NIC on node 1 behind a pxb-pcie bridge, and an e1000. The guest
# runs tests/vm/guest/scenario.sh and prints TUNER-RESULT lines; this script boots it
# once, keeps the console log, and fails on any failed check, a hang, or a missing
# TUNER-DONE. A check that skips because part of tuner is missing (a stub source, a
# command saying "not implemented") fails the test; other skips (no tap backend) are
# listed with their reasons.
#   usage: e2e_test.sh PATH/TO/tuner
# Environment: TUNER_VM_SUITE (the Debian release whose kernel boots: bullseye = 5.10,
# bookworm = 6.1 (default), trixie = 6.12), TUNER_VM_SCENARIO (full (default); smoke: the
# harness, probe and one plan/apply/rollback; or any guest/scenario-PART.sh's PART, run
# alone after the harness and probe: for working on one part), TUNER_VM_CACHE (kernel cache, default
# /var/cache/tuner-vm as root), TUNER_VM_WORK (work dir, default <build>/vm/SUITE-SCENARIO),
# TUNER_VM_TIMEOUT (seconds, default 300).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${TUNER_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
tuner=$(realpath "${1:?usage: e2e_test.sh PATH/TO/tuner}")
for f in "$here"/lib/{kernel,initramfs,qemu}.sh; do source "$f"; done

suite=${TUNER_VM_SUITE:-bookworm}
scenario=${TUNER_VM_SCENARIO:-full}
kernel=$(vm_suite_kernel "$suite") ||
  { echo "FAIL: TUNER_VM_SUITE=$suite: not bullseye, bookworm or trixie"; exit 1; }
[[ $scenario == full || ($scenario =~ ^[a-z0-9-]+$ && -f "$here/guest/scenario-$scenario.sh") ]] ||
  { echo "FAIL: TUNER_VM_SCENARIO=$scenario: not full, smoke or a guest/scenario-PART.sh"; exit 1; }
name=vm/e2e; [[ $scenario == smoke ]] && name=vm/smoke-$kernel
[[ $scenario != full && $scenario != smoke ]] && name="vm/$scenario ($suite, $kernel)"
[[ $scenario == full && $suite != bookworm ]] && name="vm/e2e ($suite, $kernel)"
skip() { echo "SKIP: $name: $*"; exit 77; }
if [[ $(id -u) -eq 0 ]]; then cache=${TUNER_VM_CACHE:-/var/cache/tuner-vm}
else cache=${TUNER_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tuner-vm}; fi
# One work dir per kernel and scenario: CTest runs vm/e2e and the smoke tests from one
# build dir.
work=${TUNER_VM_WORK:-$(dirname "$tuner")/vm/$suite-$scenario}
limit=${TUNER_VM_TIMEOUT:-300}
mkdir -p "$work"
command -v "$VM_QEMU" >/dev/null || skip "$VM_QEMU not installed (packaging/install-deps.sh --test)"
for t in busybox jq cpio zstd depmod; do
  PATH=$PATH:/usr/sbin:/sbin command -v $t >/dev/null ||
    { echo "FAIL: $name: $t not installed (packaging/install-deps.sh --test)"; exit 1; }
done
"$VM_QEMU" -machine q35 -accel tcg -display none -nodefaults -S -no-reboot \
  -device pxb-pcie,bus_nr=128,bus=pcie.0 </dev/null >"$work/qemu-probe.log" 2>&1 &
qp=$!; sleep 1
if ! kill -0 $qp 2>/dev/null; then wait $qp; skip "qemu cannot start: $(tail -3 "$work/qemu-probe.log")"; fi
kill $qp; wait $qp 2>/dev/null

t0=$(date +%s.%N)
vm_kernel_fetch "$cache" "$suite" || { echo "FAIL: cannot get Debian $suite's kernel into $cache/$suite"; exit 1; }
# Source files still stubs: the guest skips the checks that depend on them.
stubs=$(cd "$src" && grep -l '^// STUB:' probes/*.cc tuner/*.cc tuner/knobs/*.cc rollback/*.cc 2>/dev/null | paste -sd, -)
VM_APPEND=
if [[ -n ${TUNER_VM_SELFTEST:-} ]]; then
  # Check the harness, not tuner: a shell stand-in makes the changes (see selftest/).
  echo "vm: SELF-TEST of the harness with selftest/fake-tuner.sh (TUNER_VM_SELFTEST=$TUNER_VM_SELFTEST)"
  export VM_FAKE_TUNER=$here/selftest/fake-tuner.sh
  stubs=$(tr ',' '\n' <<<"$stubs" | grep '^probes/' | paste -sd, -)
  VM_APPEND="tuner_selftest=$TUNER_VM_SELFTEST"
fi
vm_initramfs_build "$work/initrd.gz" "$tuner" "$VM_MODDIR" "$here/guest" \
    virtio_pci virtio_net e1000 || { echo "FAIL: initramfs build"; exit 1; }
t1=$(date +%s.%N)
log=$work/console.log
VM_APPEND+=" tuner_stubs=${stubs:-none} tuner_scenario=$scenario tuner_kver=$VM_KVER"
rm -f "$log"
vm_qemu_run "$VM_KERNEL" "$work/initrd.gz" "$log" "$limit" 4 2>"$work/qemu.err" &
qpid=$!
# Host-side boot time: until the guest's /init prints its first line.
tb=
while kill -0 $qpid 2>/dev/null; do
  [[ -z $tb ]] && grep -q '^TUNER-BOOTED' "$log" 2>/dev/null && tb=$(date +%s.%N)
  sleep 0.25
done
wait $qpid
qrc=$?
t2=$(date +%s.%N)
cat "$work/qemu.err" >&2
tr -d '\r' < "$log" > "$log.txt" && mv "$log.txt" "$log"
# The files the guest kept (guest/scenario-lib.sh keep_file), beside the log.
for f in $(sed -n 's/^TUNER-FILE-BEGIN \([a-z.]*\)$/\1/p' "$log" | sort -u); do
  sed -n "/^TUNER-FILE-BEGIN $f\$/,/^TUNER-FILE-END $f\$/p" "$log" | sed '1d;$d' > "$work/$f"
done

tail_log() { echo "---- console log tail ($log)"; tail -n "${1:-60}" "$log"; echo "----"; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
booted=$(sed -n 's/^TUNER-BOOTED uptime=//p' "$log" | head -1)
done_at=$(sed -n 's/^TUNER-DONE uptime=//p' "$log" | head -1)
echo "vm: $name: Debian $suite's kernel $VM_KVER (${VM_KERNEL##*/}), scenario $scenario, backend $(sed -n 's/^vm: qemu backend \([a-z]*\).*/\1/p' "$work/qemu.err"); prepare $(secs "$t0" "$t1") s," \
     "boot to /init $([[ -n $tb ]] && secs "$t1" "$tb" || echo ?) s (guest uptime ${booted:-?} s)," \
     "qemu total $(secs "$t1" "$t2") s, whole test $(secs "$t0" "$(date +%s.%N)") s"
[[ -n "$stubs" ]] && echo "vm: stub sources (their checks skip): ${stubs//,/ }"

if [[ $qrc -eq 124 || $qrc -eq 137 ]]; then
  echo "FAIL: the VM did not finish within ${limit}s (timeout killed qemu)"; tail_log; exit 1
fi
if [[ -z "$done_at" ]]; then
  echo "FAIL: no TUNER-DONE on the console (qemu exit status $qrc)"; tail_log; exit 1
fi
grep '^TUNER-NOTE' "$log" | sed 's/^TUNER-NOTE /vm: note: /'
pass=$(grep -c '^TUNER-RESULT pass ' "$log")
fails=$(grep '^TUNER-RESULT fail ' "$log")
skips=$(grep '^TUNER-RESULT skip ' "$log")
echo "vm: $pass passed, $(grep -c . <<<"${skips:+$skips}") skipped, $(grep -c . <<<"${fails:+$fails}") failed"
[[ -n "$skips" ]] && { echo "skipped (each with its reason):"; sed 's/^TUNER-RESULT skip /  /' <<<"$skips"; }
if grep -q '^TUNER-ABORT' "$log" || [[ $pass -eq 0 ]]; then
  echo "FAIL: the scenario aborted or passed nothing"; tail_log 120; exit 1
fi
# Every part of tuner the scenario covers exists now: a check skipped because a
# command says "not implemented" or a source is a stub is a regression, not a pass.
missing=$(grep -iE 'not implemented|stub' <<<"${skips:-}" || true)
if [[ -n "$missing" ]]; then
  echo "FAIL: checks skipped for missing features:"; sed 's/^TUNER-RESULT skip /  /' <<<"$missing"
  exit 1
fi
if [[ -n "$fails" ]]; then
  echo "FAILED checks:"; sed 's/^TUNER-RESULT fail /  /' <<<"$fails"
  # The output of the steps whose checks failed.
  for s in $(sed -n 's/^TUNER-RESULT fail \([a-z0-9]*\)\..*/\1/p' <<<"$fails" | sort -u); do
    sed -n "/^TUNER-OUT-BEGIN $s /,/^TUNER-OUT-END $s\$/p" "$log" | head -60
  done
  tail_log 40; exit 1
fi
echo "PASS: $name"
