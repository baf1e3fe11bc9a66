#include "tuner/plan/near.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/core.h>

#include "base/strings.h"

namespace tuner {

namespace {

const PciDevice* find_pci(const Inventory& inv, const std::string& address) {
  for (const PciDevice& d : inv.topology.pci)
    if (d.address == address) return &d;
  return nullptr;
}

const PciDevice* find_os_device(const Inventory& inv, const std::string& name) {
  for (const PciDevice& d : inv.topology.pci)
    if (std::find(d.os_devices.begin(), d.os_devices.end(), name) != d.os_devices.end() ||
        std::find(d.netdevs.begin(), d.netdevs.end(), name) != d.netdevs.end())
      return &d;
  return nullptr;
}

Result<Near> on_node(const Inventory& inv, Near near, std::optional<int> node) {
  if (!node || *node < 0) {
    if (inv.topology.numa_nodes.size() == 1) {
      near.node = inv.topology.numa_nodes[0].os_index;
      near.cpus = inv.topology.numa_nodes[0].cpus;
      near.how += ", no NUMA locality, on the only node " + std::to_string(*near.node);
      near.only_node = true;
      return near;
    }
    near.how += ", no NUMA locality";
    return near;
  }
  const NumaNode* n = inv.find_node(static_cast<unsigned>(*node));
  if (!n)
    return Error::invalid(
        near.how + " on NUMA node " + std::to_string(*node) + ", which the topology does not have",
        near.device);
  near.node = n->os_index;
  near.cpus = n->cpus;
  near.how += " on node " + std::to_string(*node);
  return near;
}

Result<Near> pci_near(const Inventory& inv, Near near, const PciDevice& d) {
  near.how += (near.how.empty() ? "PCI " : " is PCI ") + d.address;
  near.pci = d.address;
  return on_node(inv, std::move(near), d.numa_node);
}

}  // namespace

std::optional<std::string> normalize_pci(std::string_view s) {
  auto parts = split(s, ':');
  if (parts.size() == 2) parts.insert(parts.begin(), "0");
  if (parts.size() != 3) return std::nullopt;
  auto dot = parts[2].find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  auto hex = [](std::string_view h, std::size_t digits) -> std::optional<uint32_t> {
    uint32_t v = 0;
    auto [p, ec] = std::from_chars(h.data(), h.data() + h.size(), v, 16);
    if (h.empty() || h.size() > digits || ec != std::errc() || p != h.data() + h.size() ||
        !std::isxdigit(static_cast<unsigned char>(h[0])))
      return std::nullopt;
    return v;
  };
  auto domain = hex(parts[0], 8), bus = hex(parts[1], 2);
  auto dev = hex(parts[2].substr(0, dot), 2), fn = hex(parts[2].substr(dot + 1), 1);
  if (!domain || !bus || !dev || !fn || *dev > 0x1f || *fn > 7) return std::nullopt;
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", *domain, *bus, *dev, *fn);
}

std::vector<std::string> known_devices(const Inventory& inv) {
  std::vector<std::string> out;
  for (const NumaNode& n : inv.topology.numa_nodes)
    out.push_back("node:" + std::to_string(n.os_index));
  for (std::size_t i = 0; i < inv.gpus().size(); ++i) out.push_back("gpu" + std::to_string(i));
  for (const Nic& n : inv.nics) out.push_back(n.name);
  for (const PciDevice& d : inv.topology.pci) {
    out.push_back(d.address);
    for (const std::string& o : d.os_devices) out.push_back(o);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Result<Near> resolve_near(const Inventory& inv, const std::string& device, NearErrors errors) {
  Near near{device, std::nullopt, {}, "", std::nullopt, false};
  std::string reason =
      "no network interface, PCI device, GPU or NUMA node of that name on this machine";
  if (starts_with(device, "node:")) {
    auto n = parse_u64(device.substr(5));
    if (n && device.substr(5).find_first_not_of("0123456789") == std::string::npos) {
      near.how = "NUMA node " + std::to_string(*n);
      if (const NumaNode* node = inv.find_node(static_cast<unsigned>(*n))) {
        near.node = node->os_index;
        near.cpus = node->cpus;
        return near;
      }
      std::vector<unsigned> ids;
      for (const NumaNode& nn : inv.topology.numa_nodes) ids.push_back(nn.os_index);
      reason = "NUMA node " + std::to_string(*n) +
               " does not exist on this machine (it has nodes " + CpuSet(ids).to_string() + ")";
    } else {
      reason = "not a NUMA node: write node:N";
    }
  } else if (starts_with(device, "gpu") && device.size() > 3 &&
             device.find_first_not_of("0123456789", 3) == std::string::npos) {
    auto gpus = inv.gpus();
    auto i = parse_u64(device.substr(3));
    if (i && *i < gpus.size()) {
      near.how = device;
      return pci_near(inv, near, *gpus[*i]);
    }
    reason = "this machine has " + std::to_string(gpus.size()) + " GPU" +
             (gpus.size() == 1 ? "" : "s");
  } else if (auto pci = normalize_pci(device)) {
    if (const PciDevice* d = find_pci(inv, *pci)) return pci_near(inv, near, *d);
  } else if (const Nic* nic = inv.find_nic(device)) {
    near.how = device;
    if (nic->numa_node && *nic->numa_node >= 0) return on_node(inv, near, nic->numa_node);
    if (nic->pci)
      if (const PciDevice* d = find_pci(inv, *nic->pci)) return pci_near(inv, near, *d);
    if (nic->is_virtual) near.how += " (a virtual interface)";
    return on_node(inv, near, std::nullopt);
  } else if (const PciDevice* d = find_os_device(inv, device)) {
    near.how = device;
    return pci_near(inv, near, *d);
  }
  if (errors == NearErrors::short_reason) return Error::invalid(reason, device);
  std::string known;
  for (const std::string& k : known_devices(inv)) known += (known.empty() ? "" : ", ") + k;
  return Error::invalid(
      "unknown device (known: " + (known.empty() ? std::string("none") : known) + ")", device);
}

bool fill_nodes_from_sysfs(const Root& root, Inventory& inv) {
  if (!inv.topology.numa_nodes.empty()) return false;
  auto online = root.read("sys/devices/system/node/online");
  if (!online.ok()) return false;
  auto nodes = CpuSet::parse(*online);
  if (!nodes.ok()) return false;
  for (unsigned n : nodes->cpus()) {
    auto list = root.read("sys/devices/system/node/node" + std::to_string(n) + "/cpulist");
    if (!list.ok()) continue;
    auto cpus = CpuSet::parse(*list);
    if (!cpus.ok()) continue;
    NumaNode node;
    node.os_index = n;
    node.cpus = *cpus;
    inv.topology.numa_nodes.push_back(node);
  }
  return !inv.topology.numa_nodes.empty();
}

}  // namespace tuner
