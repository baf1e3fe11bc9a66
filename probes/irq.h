// IRQ probe: /proc/interrupts, /proc/irq/N/*, and the PCI msi_irqs map to devices.
#pragma once

#include <string_view>
#include <vector>

#include "base/result.h"
#include "probes/inventory.h"
#include "probes/root.h"

namespace tuner {

/// Parses /proc/interrupts text: numbered IRQs only (NMI, LOC, ... are skipped).
Result<std::vector<Irq>> parse_interrupts(std::string_view text);

/// Reads /proc/interrupts and each IRQ's affinity files; maps IRQs to PCI devices and
/// netdevs through /sys/bus/pci/devices/*/msi_irqs and /sys/class/net.
std::vector<Irq> probe_irqs(const Root& root, std::vector<ProbeError>& errors);

}  // namespace tuner
