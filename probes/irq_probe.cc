// probe_irqs: reads what parse_interrupts() cannot know from the files around it.
#include <map>

#include "base/cpuset.h"
#include "base/strings.h"
#include "probes/irq.h"

namespace tuner {

namespace {

void note(std::vector<ProbeError>& errors, const Error& e) {
  errors.push_back({"irq", e.message()});
}

/// A cpulist file, canonicalised; nullopt (and an errors entry unless `optional` and
/// the file does not exist) when it cannot be read or parsed.
std::optional<std::string> read_cpulist(const Root& root, const std::string& path, bool optional,
                                        std::vector<ProbeError>& errors) {
  auto text = root.read(path);
  if (!text.ok()) {
    if (!(optional && text.error().err == ENOENT)) note(errors, text.error());
    return std::nullopt;
  }
  auto set = CpuSet::parse(*text);
  if (!set.ok()) {
    note(errors, Error::invalid("bad cpulist \"" + std::string(trim(*text)) + "\"", path));
    return std::nullopt;
  }
  return set->to_string();
}

struct PciIrqs {
  std::map<unsigned, std::string> pci_of;                      // IRQ -> PCI address
  std::map<std::string, std::vector<std::string>> netdevs_of;  // PCI address -> netdevs
};

/// Netdevs of a PCI function: ADDR/net/*, or ADDR/virtio*/net/* for virtio-net, whose
/// netdev hangs off the virtio device rather than the PCI function.
std::vector<std::string> pci_netdevs(const Root& root, const std::string& dev) {
  if (auto names = root.list(dev + "/net"); names.ok() && !names->empty()) return *names;
  std::vector<std::string> out;
  if (auto children = root.list(dev); children.ok()) {
    for (const std::string& c : *children) {
      if (!starts_with(c, "virtio")) continue;
      if (auto names = root.list(dev + "/" + c + "/net"); names.ok())
        out.insert(out.end(), names->begin(), names->end());
    }
  }
  return out;
}

PciIrqs map_pci_irqs(const Root& root, std::vector<ProbeError>& errors) {
  PciIrqs m;
  const std::string base = "sys/bus/pci/devices";
  auto addrs = root.list(base);
  if (!addrs.ok()) {
    // A capture without PCI (or a container without /sys) is not an error worth a line
    // per IRQ; one line says the map is missing.
    if (addrs.error().err != ENOENT) note(errors, addrs.error());
    return m;
  }
  for (const std::string& addr : *addrs) {
    const std::string dev = base + "/" + addr;
    auto irqs = root.list(dev + "/msi_irqs");
    if (!irqs.ok()) {
      if (irqs.error().err != ENOENT) note(errors, irqs.error());
      continue;  // no MSI: legacy INTx lines are shared, so they map to no one device
    }
    for (const std::string& n : *irqs)
      if (auto v = parse_u64(n); v && *v <= 0xffffffffu) m.pci_of[static_cast<unsigned>(*v)] = addr;
    if (!irqs->empty()) m.netdevs_of[addr] = pci_netdevs(root, dev);
  }
  return m;
}

/// The netdev an IRQ belongs to: the one its name mentions, else the only one.
std::optional<std::string> pick_netdev(const std::vector<std::string>& netdevs,
                                       std::string_view irq_name) {
  for (const std::string& n : netdevs) {
    if (irq_name == n) return n;
    // "eth0-TxRx-3", "i40e-eth0-TxRx-3": the name at the start or after a '-'.
    for (std::size_t at = irq_name.find(n + "-"); at != std::string_view::npos;
         at = irq_name.find(n + "-", at + 1))
      if (at == 0 || irq_name[at - 1] == '-') return n;
  }
  if (netdevs.size() == 1) return netdevs.front();
  return std::nullopt;
}

/// debugfs is the only place the kernel says an IRQ's affinity is kernel-managed.
bool is_managed(const Root& root, unsigned irq) {
  auto text = root.read("sys/kernel/debug/irq/irqs/" + std::to_string(irq));
  return text.ok() && text->find("IRQD_AFFINITY_MANAGED") != std::string::npos;
}

}  // namespace

std::vector<Irq> probe_irqs(const Root& root, std::vector<ProbeError>& errors) {
  auto text = root.read("proc/interrupts");
  if (!text.ok()) {
    note(errors, text.error());
    return {};
  }
  auto parsed = parse_interrupts(*text);
  if (!parsed.ok()) {
    note(errors, parsed.error());
    return {};
  }
  std::vector<Irq> irqs = std::move(parsed).value();
  PciIrqs pci = map_pci_irqs(root, errors);
  auto class_net = root.list("sys/class/net");

  for (Irq& irq : irqs) {
    const std::string dir = "proc/irq/" + std::to_string(irq.number) + "/";
    irq.affinity = read_cpulist(root, dir + "smp_affinity_list", false, errors);
    // effective_affinity_list appeared in Linux 4.13; its absence is not an error.
    irq.effective_affinity = read_cpulist(root, dir + "effective_affinity_list", true, errors);
    if (auto node = root.read(dir + "node"); node.ok()) {
      if (auto v = parse_i64(*node); v && *v >= -1 && *v < 1 << 16) irq.node = static_cast<int>(*v);
      else
        note(errors, Error::invalid("bad node \"" + std::string(trim(*node)) + "\"", dir + "node"));
    } else if (node.error().err != ENOENT) {
      note(errors, node.error());
    }

    if (auto it = pci.pci_of.find(irq.number); it != pci.pci_of.end()) {
      irq.pci = it->second;
      irq.device = pick_netdev(pci.netdevs_of[it->second], irq.name);
    } else if (class_net.ok()) {
      // No msi_irqs entry (old capture, INTx): trust a name that starts "<netdev>-".
      for (const std::string& n : *class_net)
        if (starts_with(irq.name, n + "-") && (!irq.device || n.size() > irq.device->size()))
          irq.device = n;
    }
    irq.queue = irq_queue_name(irq.name, irq.device.value_or(""));
    irq.managed = is_managed(root, irq.number);
  }
  return irqs;
}

}  // namespace tuner
