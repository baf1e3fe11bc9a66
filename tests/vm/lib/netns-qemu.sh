#!/usr/bin/env bash
# Runs inside a private network namespace (unshare -n): starts qemu (its arguments are
# this script's), and once qemu has created the virtio NIC's tap device, brings it up and
# sends small UDP bursts from many source ports to the guest's MAC until qemu exits.
# tun spreads flows over its queues by hash, so every virtio RX queue keeps taking
# interrupts; on x86 an IRQ affinity change takes effect at the IRQ's next interrupt, so
# without traffic effective_affinity_list would never follow a new smp_affinity_list.
# Everything here dies with the namespace: no host interface, route or address changes.
set -u
tap=vmtap0 guest_ip=10.99.0.2 guest_mac=52:54:00:00:01:01
ip link set lo up
"$@" &
qemu=$!
for _ in $(seq 200); do
  ip link show "$tap" >/dev/null 2>&1 && break
  kill -0 "$qemu" 2>/dev/null || break
  sleep 0.05
done
if ip link show "$tap" >/dev/null 2>&1; then
  ip addr add 10.99.0.1/24 dev "$tap"
  ip link set "$tap" up
  ip neigh replace "$guest_ip" lladdr "$guest_mac" dev "$tap" nud permanent
  (
    while kill -0 "$qemu" 2>/dev/null; do
      for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
        echo x 2>/dev/null >"/dev/udp/$guest_ip/9" || true
      done
      sleep 0.5
    done
  ) 2>/dev/null &
fi
wait "$qemu"
