#include "probes/inventory.h"

#include <array>

#include "base/enum_names.h"

namespace tuner {
namespace {

constexpr std::array<EnumName<Duplex>, 3> kDuplexes = {{
    {Duplex::full, "full"},
    {Duplex::half, "half"},
    {Duplex::unknown, "unknown"},
}};
static_assert(in_enum_order(kDuplexes));

constexpr std::array<EnumName<EthtoolBackend>, 2> kEthtoolBackends = {{
    {EthtoolBackend::netlink, "netlink"},
    {EthtoolBackend::ioctl, "ioctl"},
}};
static_assert(in_enum_order(kEthtoolBackends));

}  // namespace

const char* duplex_name(Duplex duplex) { return enum_name(kDuplexes, duplex); }

std::optional<Duplex> parse_duplex(std::string_view name) {
  return enum_from_name(kDuplexes, name);
}

const char* ethtool_backend_name(EthtoolBackend backend) {
  return enum_name(kEthtoolBackends, backend);
}

std::optional<EthtoolBackend> parse_ethtool_backend(std::string_view name) {
  return enum_from_name(kEthtoolBackends, name);
}

std::string MtuRange::text() const {
  return max ? std::to_string(min) + " to " + std::to_string(max) + " bytes"
             : std::to_string(min) + " bytes and up";
}

const Nic* Inventory::find_nic(const std::string& name) const {
  for (const Nic& n : nics)
    if (n.name == name) return &n;
  return nullptr;
}

const NumaNode* Inventory::find_node(unsigned os_index) const {
  for (const NumaNode& n : topology.numa_nodes)
    if (n.os_index == os_index) return &n;
  return nullptr;
}

const Irq* Inventory::find_irq(unsigned number) const {
  for (const Irq& i : irqs)
    if (i.number == number) return &i;
  return nullptr;
}

std::vector<const PciDevice*> Inventory::gpus() const {
  std::vector<const PciDevice*> out;
  for (const PciDevice& d : topology.pci)
    if (d.kind == "gpu") out.push_back(&d);
  return out;
}

}  // namespace tuner
