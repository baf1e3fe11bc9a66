# shellcheck shell=bash
# Sourced by tests/vm/*_test.sh. Boots the guest under qemu (TCG, q35, two NUMA nodes)
# with an e1000 NIC on the root bus (the 82545EM model: the e1000 driver refuses
# interrupt coalescing on qemu's default 82540EM, EOPNOTSUPP below the 82545) and a
# multi-queue virtio-net NIC behind a pxb-pcie expander bridge whose NUMA node is 1, so
# the guest's ACPI tables give it node-1 locality. A second multi-queue virtio-net NIC on the root bus is there to swap IRQ
# numbers with the first (guest/scenario-irq-owner.sh); its tap takes no traffic. No traffic leaves the machine: the e1000 sits on a qemu hub with no other
# port, and the virtio NIC's tap device lives in a private network namespace that dies
# with qemu (only tap can give virtio-net more than one queue pair; see netns-qemu.sh).
#
# vm_qemu_run KERNEL INITRD LOG TIMEOUT_S QUEUES   returns qemu's exit status (124: timeout)
# VM_APPEND adds to the kernel command line.

VM_QEMU=${VM_QEMU:-qemu-system-x86_64}
VM_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Prints "tap" when qemu can run inside a private network namespace with a tap device
# (root, /dev/net/tun, unshare), else "hub" (one queue pair).
vm_qemu_backend() {
  if [[ -n ${TUNER_VM_BACKEND:-} ]]; then echo "$TUNER_VM_BACKEND"
  elif [[ $(id -u) -eq 0 && -c /dev/net/tun ]] &&
       unshare -n ip tuntap add dev vmprobe0 mode tap multi_queue 2>/dev/null; then
    # (that tap died with its throwaway namespace)
    echo tap
  else
    echo hub
  fi
}

vm_qemu_args() {
  local kernel=$1 initrd=$2 queues=$3 backend=$4 vnet vnet2
  # hpet: under TCG a TSC calibrated on a busy host can run the guest clock fast.
  if [[ $backend == tap ]]; then
    vnet="tap,id=vnet,ifname=vmtap0,script=no,downscript=no,vhost=off,queues=$queues"
    vnet2="tap,id=vnet2,ifname=vmtap1,script=no,downscript=no,vhost=off,queues=$queues"
  else
    # A hub with no other port: no peer, one queue pair, and no RX traffic.
    vnet="hubport,id=vnet,hubid=1"
    vnet2="hubport,id=vnet2,hubid=2"
    queues=1
  fi
  printf '%s\n' \
    -machine q35 -accel tcg -cpu max -m 1024 -smp 4 \
    -object memory-backend-ram,id=m0,size=512M -object memory-backend-ram,id=m1,size=512M \
    -numa node,nodeid=0,cpus=0-1,memdev=m0 -numa node,nodeid=1,cpus=2-3,memdev=m1 \
    -device pxb-pcie,id=pxb1,bus_nr=128,numa_node=1,bus=pcie.0 \
    -device pcie-root-port,id=rp1,bus=pxb1,chassis=1,slot=0 \
    -netdev "$vnet" \
    -device "virtio-net-pci,netdev=vnet,bus=rp1,mq=on,vectors=$((2 * queues + 2)),mac=52:54:00:00:01:01,romfile=" \
    -netdev "$vnet2" \
    -device "virtio-net-pci,netdev=vnet2,bus=pcie.0,mq=on,vectors=$((2 * queues + 2)),mac=52:54:00:00:02:01,romfile=" \
    -netdev hubport,id=e1k,hubid=0 \
    -device e1000-82545em,netdev=e1k,bus=pcie.0,mac=52:54:00:00:00:01,romfile= \
    -kernel "$kernel" -initrd "$initrd" \
    -append "console=ttyS0 panic=-1 loglevel=3 quiet rdinit=/init clocksource=hpet tuner_backend=$backend ${VM_APPEND:-}" \
    -display none -no-reboot -nodefaults -serial stdio
}

vm_qemu_run() {
  local kernel=$1 initrd=$2 log=$3 limit=$4 queues=$5 backend
  backend=$(vm_qemu_backend)
  local -a args
  mapfile -t args < <(vm_qemu_args "$kernel" "$initrd" "$queues" "$backend")
  echo "vm: qemu backend $backend; console log $log" >&2
  if [[ $backend == tap ]]; then
    timeout -k 5 "$limit" unshare -n bash "$VM_LIB/netns-qemu.sh" "$VM_QEMU" "${args[@]}" \
      </dev/null >"$log" 2>&1
  else
    timeout -k 5 "$limit" "$VM_QEMU" "${args[@]}" </dev/null >"$log" 2>&1
  fi
}
