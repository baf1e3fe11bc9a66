#include "probes/nic.h"

#include <algorithm>
#include <cctype>
#include <cerrno>

#include "base/strings.h"
#include "probes/nic_capture.h"

namespace tuner {
namespace {

std::optional<std::string> read_trimmed(const Root& root, const std::string& path) {
  auto text = root.read(path);
  if (!text) return std::nullopt;
  return std::string(trim(*text));
}

bool hex_run(std::string_view s, size_t n) {
  return s.size() == n && std::ranges::all_of(s, [](char c) {
           return std::isxdigit(static_cast<unsigned char>(c)) != 0;
         });
}

// The device directory under sys/devices that a netdev's "device" link points to, as a
// root-relative path; nullopt for a virtual interface.
std::optional<std::string> device_dir(const Root& root, const std::string& name) {
  std::string base = "sys/class/net/" + name;
  auto device = root.readlink(base + "/device");
  if (!device) return std::nullopt;
  // /sys/class/net/X is itself a link into sys/devices; resolve it first so the
  // device link's ".." components climb the real tree (older kernels: a plain dir).
  std::string net_dir = base;
  if (auto target = root.readlink(base))
    net_dir = target->front() == '/' ? *target : "sys/class/net/" + *target;
  if (device->front() == '/') return normalize_path(*device);
  return normalize_path(net_dir + "/" + *device);
}

void add_ethtool(Ethtool& nl, Nic& nic, std::vector<ProbeError>& errors) {
  auto note = [&](const Error& e) {
    if (e.err == EOPNOTSUPP) return;  // the driver lacks the operation: fields stay empty
    errors.push_back({"netlink", e.message()});
  };
  LinkInfo link;
  if (auto r = nl.get_link_info(nic.name, link); !r) note(r.error());
  if (auto r = nl.get_link_modes(nic.name, link); !r) note(r.error());
  if (auto r = nl.get_link_state(nic.name, link); !r) note(r.error());
  nic.link = std::move(link);
  nic.ethtool = nl.backend();
  if (auto ch = nl.get_channels(nic.name)) nic.channels = *ch;
  else note(ch.error());
  if (auto rings = nl.get_rings(nic.name)) nic.rings = *rings;
  else note(rings.error());
  if (auto c = nl.get_coalesce(nic.name)) nic.coalesce = *c;
  else note(c.error());
  if (auto range = nl.get_mtu_range(nic.name)) nic.mtu_range = *range;
  else note(range.error());
}

}  // namespace

bool is_pci_address(std::string_view name) {
  // domain:bus:slot.function, e.g. 0000:3b:00.0; domains can be wider than 4 digits.
  auto parts = split(name, ':');
  if (parts.size() != 3 || parts[0].size() < 4 || !hex_run(parts[0], parts[0].size())) return false;
  if (!hex_run(parts[1], 2)) return false;
  std::string_view sf = parts[2];
  return sf.size() == 4 && hex_run(sf.substr(0, 2), 2) && sf[2] == '.' && sf[3] >= '0' &&
         sf[3] <= '7';
}

std::string normalize_path(std::string_view path) {
  std::vector<std::string_view> out;
  for (auto part : split(path, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!out.empty()) out.pop_back();
      continue;
    }
    out.push_back(part);
  }
  std::string s;
  for (auto p : out) {
    if (!s.empty()) s += '/';
    s += p;
  }
  return s;
}

std::optional<std::string> pci_ancestor(std::string_view device_path) {
  auto parts = split(device_path, '/');
  for (auto it = parts.rbegin(); it != parts.rend(); ++it)
    if (is_pci_address(*it)) return std::string(*it);
  return std::nullopt;
}

std::vector<Nic> probe_nics(const Root& root, Ethtool* et, std::vector<ProbeError>& errors) {
  std::vector<Nic> nics;
  auto names = root.list("sys/class/net");
  if (!names) {
    errors.push_back({"nic", names.error().message()});
    return nics;
  }
  for (const auto& name : *names) {
    std::string base = "sys/class/net/" + name;
    Nic nic;
    nic.name = name;
    nic.operstate = read_trimmed(root, base + "/operstate");
    if (auto mtu = read_trimmed(root, base + "/mtu"))
      if (auto v = parse_u64(*mtu); v && *v <= UINT32_MAX) nic.mtu = static_cast<uint32_t>(*v);
    nic.mac = read_trimmed(root, base + "/address");
    if (auto type = read_trimmed(root, base + "/type"))
      if (auto v = parse_u64(*type); v && *v <= UINT16_MAX)
        nic.link_type = static_cast<unsigned>(*v);
    if (auto queues = root.list(base + "/queues")) {
      for (const auto& q : *queues) {
        if (starts_with(q, "rx-")) ++nic.rx_queues;
        else if (starts_with(q, "tx-")) ++nic.tx_queues;
      }
    }
    auto dev = device_dir(root, name);
    nic.is_virtual = !dev.has_value();
    if (dev) {
      if (auto driver = root.link_name(base + "/device/driver")) nic.driver = *driver;
      if (auto rdma = root.list(base + "/device/infiniband"); rdma.ok() && !rdma->empty())
        nic.rdma_device = rdma->front();
      // A virtio or USB netdev's own device is not PCI; its PCI parent has the locality.
      if (auto pci = pci_ancestor(*dev)) {
        nic.pci = *pci;
        std::string pci_dir = dev->substr(0, dev->rfind(*pci) + pci->size());
        if (auto node = read_trimmed(root, pci_dir + "/numa_node"))
          if (auto v = parse_i64(*node); v && *v >= 0) nic.numa_node = static_cast<int>(*v);
      }
    }
    if (et) add_ethtool(*et, nic, errors);
    else add_capture_nic_facts(root, nic);
    nics.push_back(std::move(nic));
  }
  return nics;
}

}  // namespace tuner
