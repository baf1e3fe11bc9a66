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

class NetdevNetlink;

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

/// Reads /proc/interrupts and each IRQ's affinity files; maps IRQs to PCI devices and
/// netdevs through /sys/bus/pci/devices/*/msi_irqs and the device's net/ (or, for
/// virtio-net, virtio*/net/) folder. Needs no root. Every unreadable file becomes an
/// `errors` entry (probe "irq") naming the path and errno; the rest is still reported.
/// Irq::managed is true only where debugfs shows IRQD_AFFINITY_MANAGED
/// (sys/kernel/debug/irq/irqs/N, CONFIG_GENERIC_IRQ_DEBUGFS, root); elsewhere it stays
/// false because the kernel exposes no other file for it (writes to smp_affinity of a
/// managed IRQ fail with EIO, which the apply step reports).
///
/// Each IRQ's kind, queue_index and queue_type come from its action names
/// (sys/kernel/irq/N/actions, else the /proc/interrupts name) read with its PCI
/// function's other vectors (probes/irq_names.h); with `netdev_nl` (a live root), the
/// kernel's napi-get map replaces the names for the drivers that register NAPI IRQs.
std::vector<Irq> probe_irqs(const Root& root, std::vector<ProbeError>& errors,
                            NetdevNetlink* netdev_nl = nullptr);

}  // namespace tuner
