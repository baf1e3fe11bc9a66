// PCIe link state per device: a GPU trained at x8 instead of x16, or a NIC at Gen3 in
// a Gen4 slot, halves what the fleet paid for without any error anywhere.
#pragma once

#include <optional>
#include <string_view>

#include "probes/inventory.h"
#include "probes/root.h"

namespace tuner {

/// sysfs's link speed text: "16.0 GT/s PCIe" (kernels since 4.19 add " PCIe"),
/// "8 GT/s", "2.5 GT/s". nullopt for "Unknown", "Unknown speed" or anything else.
std::optional<double> parse_link_speed(std::string_view text);

/// Fills each device's link from sys/bus/pci/devices/ADDR/{current,max}_link_{speed,
/// width}, and the bound driver from its `driver` link. Devices without the files
/// (conventional PCI, most VFs) stay unknown; that is not an error. Also takes the
/// device's numa_node from sysfs where it is not -1: the kernel's node wins over hwloc's
/// locality, so NICs, IRQs and the PCI list agree.
void probe_pci_links(const Root& root, std::vector<PciDevice>& devices);

}  // namespace tuner
