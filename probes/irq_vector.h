// IRQ identity by owner: a PCI function's MSI/MSI-X vector, which keeps its index when
// the IRQ numbers change (module load order, firmware, kernel updates, added devices,
// unbinding and binding a driver). /sys/kernel/irq/N/hwirq (Linux 4.17+) is the vector's
// hwirq in the PCI-MSI domain: the MSI index in its low 11 bits (up to 2048 vectors, the
// MSI-X limit). With one shared PCI-MSI domain (5.10, 6.1) the requester id and PCI domain
// sit above it (pci_msi_domain_calc_hwirq); with per-device MSI domains (x86 6.2+, seen on
// 6.12) it is the index alone (probes/irq_kernels_test.cc: both, captured in tests/vm). The IRQs of a function are the names in /sys/bus/pci/devices/PCI/msi_irqs.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "probes/root.h"

namespace tuner {

/// The highest MSI index: MSI-X tables have at most 2048 entries.
inline constexpr unsigned kMaxMsiIndex = 2047;

/// The MSI index in a hwirq as /sys/kernel/irq/N/hwirq prints it ("524289" -> 1);
/// nullopt when the text is not a decimal number.
std::optional<unsigned> msi_index_of_hwirq(std::string_view text);

/// IRQ `irq`'s MSI index, read from sys/kernel/irq/N/hwirq.
Result<unsigned> read_msi_index(const Root& root, unsigned irq);

/// The IRQ that now serves vector `index` of PCI function `pci` (an address that
/// is_pci_address accepts). Error::missing when the function is gone or has no such
/// vector now; Error::invalid when two of its IRQs claim the index (a hwirq this file
/// cannot read), so an owner is never guessed.
Result<unsigned> find_msi_irq(const Root& root, const std::string& pci, unsigned index);

/// Each IRQ of function `pci` with its MSI index, when every one of them has a distinct
/// index; nullopt when the function has no MSI IRQs or any index cannot be read.
std::optional<std::vector<std::pair<unsigned, unsigned>>> msi_vectors(const Root& root,
                                                                      const std::string& pci);

/// Who serves through each MSI IRQ now, by IRQ number: a PCI function and its vector
/// index. An IRQ no function lists in msi_irqs (an INTx line, a freed number), or of a
/// function whose indexes cannot be read apart, is not in the map. One pass over
/// sys/bus/pci/devices, for callers that look up several IRQs.
struct MsiVector {
  std::string pci;
  unsigned index = 0;
};
std::map<unsigned, MsiVector> msi_owners(const Root& root);

}  // namespace tuner
