#include "probes/hw_class.h"

#include <algorithm>
#include <optional>
#include <vector>

#include <fmt/core.h>

namespace tuner {

namespace {

std::string or_unknown(const std::optional<std::string>& v) { return v && !v->empty() ? *v : "?"; }

template <typename N>
std::string or_unknown(const std::optional<N>& v) {
  return v ? std::to_string(*v) : "?";
}

/// "15b3:1017": what model a PCI function is.
std::string pci_model(const PciDevice& d) {
  return fmt::format("{:04x}:{:04x}", d.vendor_id, d.device_id);
}

/// The fastest mode the port supports ("100000baseCR4/Full" -> 100000), else its
/// current speed: what the port is, not what it negotiated today (tuner may change that,
/// and a node must not change class by being tuned).
std::optional<std::uint32_t> port_speed(const Nic& n) {
  std::optional<std::uint32_t> best;
  for (const std::string& mode : n.link.supported_modes) {
    std::uint32_t mbps = 0;
    std::size_t i = 0;
    for (; i < mode.size() && i < 9 && mode[i] >= '0' && mode[i] <= '9'; ++i)
      mbps = mbps * 10 + static_cast<std::uint32_t>(mode[i] - '0');
    if (i > 0 && mode.compare(i, 4, "base") == 0 && (!best || mbps > *best)) best = mbps;
  }
  return best ? best : n.link.speed_mbps;
}

}  // namespace

std::string numa_memory_gib(std::optional<std::uint64_t> memory_bytes) {
  if (!memory_bytes || *memory_bytes == 0) return "?";
  // The kernel's MemTotal is the installed memory less what firmware and the kernel
  // reserve, which differs between twins by megabytes: the smallest usual installed
  // size (2^k or 3 x 2^(k-1) GiB) that holds it is the same on both.
  const double gib = static_cast<double>(*memory_bytes) / (1ULL << 30);
  for (std::uint64_t p = 1; p < (1ULL << 40); p *= 2) {
    if (gib <= static_cast<double>(p)) return std::to_string(p);
    if (p >= 2 && gib <= 1.5 * static_cast<double>(p)) return std::to_string(p + p / 2);
  }
  return "?";
}

std::string hw_class_key(const std::map<std::string, std::string>& facts) {
  std::uint64_t h = kFnv1a64Basis;
  for (const auto& [name, value] : facts) {
    h = fnv1a64(name, h);
    h = fnv1a64("=", h);
    h = fnv1a64(value, h);
    h = fnv1a64("\n", h);
  }
  return "hw-" + hex64(h);
}

HwClass hw_class(const Inventory& inv, const std::string& label) {
  HwClass c;
  auto& f = c.facts;
  const Host& h = inv.host;
  f["cpu_vendor"] = or_unknown(h.cpu_vendor);
  f["cpu_model"] = or_unknown(h.cpu_model);
  f["microcode"] = or_unknown(h.microcode);
  f["bios_vendor"] = or_unknown(h.platform.bios_vendor);
  f["bios_version"] = or_unknown(h.platform.bios_version);
  f["system_vendor"] = or_unknown(h.platform.system_vendor);
  f["system_product"] = or_unknown(h.platform.system_product);
  f["board_name"] = or_unknown(h.platform.board_name);
  f["kernel"] = or_unknown(h.kernel);
  f["nvidia_driver"] = h.nvidia_driver ? *h.nvidia_driver : "none";

  const Topology& t = inv.topology;
  f["pus"] = std::to_string(t.pus);
  f["cores"] = std::to_string(t.cores);
  f["numa_nodes"] = std::to_string(t.numa_nodes.size());
  for (const NumaNode& n : t.numa_nodes) {
    f[fmt::format("numa.{}.pus", n.os_index)] = n.cpus.to_string();
    // Memory per node: the writeback and buffer rules plan by it (issue 41).
    f[fmt::format("numa.{}.mem_gib", n.os_index)] = numa_memory_gib(n.memory_bytes);
  }

  std::vector<const PciDevice*> gpus = inv.gpus();
  f["gpus"] = std::to_string(gpus.size());
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    f[fmt::format("gpu.{}.model", i)] = pci_model(*gpus[i]);
    f[fmt::format("gpu.{}.numa_node", i)] = or_unknown(gpus[i]->numa_node);
  }

  // Physical NICs by PCI address (names differ between twins; slots do not).
  std::vector<const Nic*> nics;
  for (const Nic& n : inv.nics)
    if (!n.is_virtual) nics.push_back(&n);
  std::stable_sort(nics.begin(), nics.end(), [](const Nic* a, const Nic* b) {
    return std::make_pair(a->pci.value_or("~"), a->name) <
           std::make_pair(b->pci.value_or("~"), b->name);
  });
  f["nics"] = std::to_string(nics.size());
  for (std::size_t i = 0; i < nics.size(); ++i) {
    const Nic& n = *nics[i];
    std::string p = fmt::format("nic.{}.", i);
    f[p + "driver"] = or_unknown(n.driver);
    f[p + "firmware"] = or_unknown(n.firmware_version);
    f[p + "speed"] = or_unknown(port_speed(n));
    f[p + "numa_node"] = or_unknown(n.numa_node);
    std::string model = "?";
    for (const PciDevice& d : t.pci)
      if (n.pci && d.address == *n.pci) model = pci_model(d);
    f[p + "model"] = model;
  }
  if (!label.empty()) f["label"] = label;
  c.key = hw_class_key(f);
  return c;
}

nlohmann::json hw_class_json(const HwClass& c) { return {{"key", c.key}, {"facts", c.facts}}; }

Status check_class_label(std::string_view label) {
  if (label.empty() || label.size() > 64)
    return Error::invalid(
        fmt::format("--class-label: {} characters: expected 1 to 64", label.size()), "");
  for (char ch : label) {
    bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '.' || ch == '_' || ch == ':' || ch == '/' || ch == '-';
    if (!ok)
      return Error::invalid(
          "--class-label: only letters, digits and . _ : / - are allowed (no blanks or "
          "control characters)",
          "");
  }
  return Ok{};
}

}  // namespace tuner
