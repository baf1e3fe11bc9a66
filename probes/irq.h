// IRQ probe: /proc/interrupts, /proc/irq/N/*, and the PCI msi_irqs map to devices.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "probes/inventory.h"
#include "probes/root.h"

namespace tuner {

/// Parses /proc/interrupts text: numbered IRQs only (NMI, LOC, ERR, MIS, IPI0, ... are
/// skipped). Irq::per_cpu is indexed by COLUMN, not by CPU number: the header lists only
/// online CPUs ("CPU0 CPU1 CPU4" when 2 and 3 are offline), so per_cpu[2] counts CPU4;
/// parse_interrupts_cpus() gives the column -> CPU map. Irq::hwirq keeps the hwirq and
/// the flow handler as printed ("5-edge", "524288-edge"; "27 Level" on kernels with
/// GENERIC_IRQ_SHOW_LEVEL such as arm64; "" on old kernels that printed "PCI-MSI-edge"
/// as one chip column). Irq::name is the rest of the line, internal spaces kept
/// ("i8042, serio", "qib0 (sdma 0)"). Malformed or truncated text is an Error whose
/// `where` is "interrupts:LINE" (1-based); nothing partial is returned.
Result<std::vector<Irq>> parse_interrupts(std::string_view text);

/// The CPU number of each count column of /proc/interrupts (from its header line).
Result<std::vector<unsigned>> parse_interrupts_cpus(std::string_view text);

/// The queue an IRQ serves, from its action name, when the name says so and ends in a
/// queue index: "eth0-TxRx-3" -> "TxRx-3", "i40e-eth0-TxRx-0" -> "TxRx-0",
/// "mlx5_comp3@pci:0000:3b:00.0" -> "comp3", "virtio1-input.0" -> "input.0",
/// "eth0-rx-0" -> "rx-0", "eth0-3" -> "3". Control vectors ("mlx5_async0@...",
/// "virtio1-config", "eth0") give nullopt. `netdev` is the owning interface or "".
std::optional<std::string> irq_queue_name(std::string_view name, std::string_view netdev);

/// Reads /proc/interrupts and each IRQ's affinity files; maps IRQs to PCI devices and
/// netdevs through /sys/bus/pci/devices/*/msi_irqs and the device's net/ (or, for
/// virtio-net, virtio*/net/) folder. Needs no root. Every unreadable file becomes an
/// `errors` entry (probe "irq") naming the path and errno; the rest is still reported.
/// Irq::managed is true only where debugfs shows IRQD_AFFINITY_MANAGED
/// (sys/kernel/debug/irq/irqs/N, CONFIG_GENERIC_IRQ_DEBUGFS, root); elsewhere it stays
/// false because the kernel exposes no other file for it (writes to smp_affinity of a
/// managed IRQ fail with EIO, which the apply step reports).
std::vector<Irq> probe_irqs(const Root& root, std::vector<ProbeError>& errors);

}  // namespace tuner
