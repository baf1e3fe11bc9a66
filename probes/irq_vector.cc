// find_msi_irq and read_msi_index: see irq_vector.h for what the kernel files hold.
#include "probes/irq_vector.h"

#include <algorithm>
#include <set>
#include <vector>

#include "base/strings.h"
#include "probes/nic.h"

namespace tuner {

std::optional<unsigned> msi_index_of_hwirq(std::string_view text) {
  auto v = parse_u64(trim(text));
  if (!v) return std::nullopt;
  return static_cast<unsigned>(*v & kMaxMsiIndex);
}

Result<unsigned> read_msi_index(const Root& root, unsigned irq) {
  const std::string path = "sys/kernel/irq/" + std::to_string(irq) + "/hwirq";
  auto text = root.read(path);
  if (!text.ok()) return text.error();
  auto index = msi_index_of_hwirq(*text);
  if (!index) return Error::invalid("not a hwirq: '" + std::string(trim(*text)) + "'", path);
  return *index;
}

namespace {

/// The IRQ numbers in sys/bus/pci/devices/PCI/msi_irqs, ascending.
Result<std::vector<unsigned>> msi_irqs(const Root& root, const std::string& pci) {
  if (!is_pci_address(pci)) return Error::invalid("not a PCI address: '" + pci + "'");
  const std::string dir = "sys/bus/pci/devices/" + pci;
  auto names = root.list(dir + "/msi_irqs");
  if (!names.ok()) {
    if (names.error().err != ENOENT) return names.error();
    if (!root.exists(dir)) return Error::missing("PCI function " + pci + " is gone", dir);
    return Error::missing("PCI function " + pci + " has no MSI vectors now (no driver bound?)",
                          dir + "/msi_irqs");
  }
  std::vector<unsigned> out;
  for (const std::string& n : *names)
    if (auto v = parse_u64(n); v && *v <= 0xffffffffu) out.push_back(static_cast<unsigned>(*v));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

Result<unsigned> find_msi_irq(const Root& root, const std::string& pci, unsigned index) {
  auto irqs = msi_irqs(root, pci);
  if (!irqs.ok()) return irqs.error();
  std::optional<unsigned> found;
  for (unsigned irq : *irqs) {
    auto i = read_msi_index(root, irq);
    if (!i.ok()) return i.error();
    if (*i != index) continue;
    if (found)
      return Error::invalid("IRQs " + std::to_string(*found) + " and " + std::to_string(irq) +
                                " both claim MSI vector " + std::to_string(index) + " of " + pci,
                            "sys/bus/pci/devices/" + pci + "/msi_irqs");
    found = irq;
  }
  if (!found)
    return Error::missing(
        "PCI function " + pci + " has no MSI vector " + std::to_string(index) + " now",
        "sys/bus/pci/devices/" + pci + "/msi_irqs");
  return *found;
}

std::optional<std::vector<std::pair<unsigned, unsigned>>> msi_vectors(const Root& root,
                                                                      const std::string& pci) {
  auto irqs = msi_irqs(root, pci);
  if (!irqs.ok() || irqs->empty()) return std::nullopt;
  std::vector<std::pair<unsigned, unsigned>> out;
  std::set<unsigned> seen;
  for (unsigned irq : *irqs) {
    auto i = read_msi_index(root, irq);
    if (!i.ok() || !seen.insert(*i).second) return std::nullopt;
    out.emplace_back(irq, *i);
  }
  return out;
}

std::map<unsigned, MsiVector> msi_owners(const Root& root) {
  std::map<unsigned, MsiVector> out;
  auto addrs = root.list("sys/bus/pci/devices");
  if (!addrs.ok()) return out;
  for (const std::string& addr : *addrs) {
    if (!is_pci_address(addr)) continue;
    if (auto vectors = msi_vectors(root, addr))
      for (const auto& [irq, index] : *vectors) out[irq] = MsiVector{addr, index};
  }
  return out;
}

}  // namespace tuner
