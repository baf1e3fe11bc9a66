#include "tuner/plan/near.h"

#include <algorithm>
#include <cctype>

#include <fmt/core.h>

#include "base/strings.h"

namespace tuner {

namespace {

/// "3B:00.0" -> "0000:3b:00.0"; nullopt when it is not a PCI address.
std::optional<std::string> normalize_pci(std::string_view s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (out.size() == 7) out = "0000:" + out;
  if (out.size() != 12 || out[4] != ':' || out[7] != ':' || out[10] != '.') return std::nullopt;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11})
    if (!std::isxdigit(static_cast<unsigned char>(out[i]))) return std::nullopt;
  return out;
}

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

namespace {

/// The UUID of each NVIDIA GPU the driver lists: "GPU UUID:" in
/// proc/driver/nvidia/gpus/PCI/information, by PCI address.
std::vector<std::pair<std::string, std::string>> nvidia_uuids(const Root& root) {
  std::vector<std::pair<std::string, std::string>> out;
  auto dirs = root.list("proc/driver/nvidia/gpus");
  if (!dirs.ok()) return out;
  for (const std::string& pci : *dirs) {
    auto text = root.read("proc/driver/nvidia/gpus/" + pci + "/information");
    if (!text.ok()) continue;
    for (std::string_view line : split(*text, '\n')) {
      if (!starts_with(line, "GPU UUID:")) continue;
      out.emplace_back(std::string(trim(line.substr(9))), pci);
    }
  }
  return out;
}

Error visible_error(std::string what) {
  return Error::invalid(std::move(what), "CUDA_VISIBLE_DEVICES");
}

}  // namespace

Result<std::string> cuda_visible_gpu(const Inventory& inv, const Root& root,
                                     std::string_view visible, unsigned n) {
  auto gpus = inv.gpus();
  std::vector<std::string> entries;
  for (std::string_view e : split(visible, ',')) entries.emplace_back(trim(e));
  if (entries.empty() || entries.front().empty() || entries.front() == "-1" ||
      entries.front() == "NoDevFiles")
    return visible_error("'" + std::string(visible) + "' hides every GPU from this process");
  if (n >= entries.size())
    return visible_error(fmt::format("gpu{} asked, but '{}' makes {} GPU{} visible", n, visible,
                                     entries.size(), entries.size() == 1 ? "" : "s"));
  const std::string& e = entries[n];
  if (starts_with(e, "MIG-"))
    return visible_error("'" + e +
                         "' is a MIG instance: it shares its GPU's PCI device; name "
                         "the GPU (gpuN without CUDA_VISIBLE_DEVICES, or its PCI address)");
  if (starts_with(e, "GPU-")) {
    std::vector<std::string> found;
    for (const auto& [uuid, pci] : nvidia_uuids(root))
      if (starts_with(uuid, e)) found.push_back(pci);
    if (found.size() == 1) return found.front();
    return visible_error(found.empty()
                             ? "no GPU has UUID '" + e + "' (proc/driver/nvidia/gpus/*/information)"
                             : "'" + e + "' is the start of " + std::to_string(found.size()) +
                                   " GPUs' UUIDs");
  }
  auto index = e.find_first_not_of("0123456789") == std::string::npos ? parse_u64(e) : std::nullopt;
  if (!index)
    return visible_error("entry " + std::to_string(n) + " '" + e +
                         "' is neither a GPU index nor a GPU-UUID (CUDA stops at it)");
  if (*index >= gpus.size())
    return visible_error(fmt::format("entry {} names GPU {}, and this machine has {} GPU{}", n,
                                     *index, gpus.size(), gpus.size() == 1 ? "" : "s"));
  return gpus[*index]->address;
}

}  // namespace tuner
