// probe_irqs: reads what parse_interrupts() cannot know from the files around it, and
// what each NIC vector does (probes/irq_names.h, the netdev family's napi-get).
#include <map>
#include <set>

#include "base/cpuset.h"
#include "base/strings.h"
#include "probes/irq.h"
#include "probes/irq_names.h"
#include "probes/irq_vector.h"
#include "probes/netdev_netlink.h"

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

/// debugfs is the only place the kernel says an IRQ's affinity is kernel-managed.
bool is_managed(const Root& root, unsigned irq) {
  auto text = root.read("sys/kernel/debug/irq/irqs/" + std::to_string(irq));
  return text.ok() && text->find("IRQD_AFFINITY_MANAGED") != std::string::npos;
}

/// The action names of an IRQ: /sys/kernel/irq/N/actions ("a,b"; since 4.17) splits
/// shared handlers exactly, where /proc/interrupts joins them with ", " and a name may
/// hold ", " itself.
std::vector<std::string> action_names(const Root& root, const Irq& irq,
                                      std::vector<ProbeError>& errors) {
  std::vector<std::string> out;
  auto text = root.read("sys/kernel/irq/" + std::to_string(irq.number) + "/actions");
  if (text.ok()) {
    for (std::string_view n : split(trim(*text), ','))
      if (!n.empty()) out.emplace_back(n);
    return out;
  }
  if (text.error().err != ENOENT) note(errors, text.error());
  std::string_view rest = irq.name;
  while (!rest.empty()) {
    auto sep = rest.find(", ");
    out.emplace_back(rest.substr(0, sep));
    if (sep == std::string_view::npos) break;
    rest.remove_prefix(sep + 2);
  }
  return out;
}

/// The role of an IRQ from its action names: one handler is its name's role; several
/// handlers (a shared line) are control when all of them are, else not placeable.
VectorRole role_of(const std::vector<std::string>& names, const std::vector<std::string>& netdevs,
                   const FunctionVectors& fn, bool by_address) {
  if (names.empty()) return {};
  if (names.size() == 1) return classify_vector(names.front(), netdevs, fn, by_address);
  VectorRole shared;
  shared.kind = IrqKind::control;
  for (const std::string& n : names) {
    VectorRole r = classify_vector(n, netdevs, fn, by_address);
    if (r.kind != IrqKind::control) shared.kind = IrqKind::other;
    if (r.netdev && !shared.netdev) shared.netdev = r.netdev;
  }
  if (shared.kind == IrqKind::other && shared.netdev)
    shared.ambiguous = "a shared line with " + std::to_string(names.size()) + " handlers";
  return shared;
}

void set_role(Irq& irq, const VectorRole& role, const char* source) {
  irq.kind = role.kind;
  irq.queue_index = role.queue_index;
  irq.queue_type = role.queue_type;
  irq.ambiguous = role.ambiguous;
  irq.queue = role.kind == IrqKind::queue ? role.label : std::nullopt;
  if (role.kind != IrqKind::other || role.netdev) irq.source = source;
}

/// The kernel's own map of IRQ to queues, for every netdev whose driver registers its
/// NAPI IRQs; it replaces what the names said for those IRQs. Kernels without napi-get
/// answer EOPNOTSUPP (or EINVAL for an unknown command): then nobody is asked again.
void apply_napi(const Root& root, NetdevNetlink& nl, const std::vector<std::string>& netdevs,
                std::vector<Irq>& irqs, std::vector<ProbeError>& errors) {
  for (const std::string& dev : netdevs) {
    auto text = root.read("sys/class/net/" + dev + "/ifindex");
    auto ifindex = text.ok() ? parse_u64(*text) : std::nullopt;
    if (!ifindex || *ifindex == 0 || *ifindex > 0xffffffffu) continue;
    auto napis = nl.napis(static_cast<uint32_t>(*ifindex));
    if (!napis.ok()) {
      int e = napis.error().err;
      if (e == EOPNOTSUPP || e == EINVAL || e == ENOENT) return;
      note(errors, napis.error());
      continue;
    }
    bool any_irq = false;
    for (const NapiInfo& n : *napis) any_irq |= n.irq.has_value();
    if (!any_irq) continue;  // the driver keeps its IRQs to itself: names decide
    auto queues = nl.queues(static_cast<uint32_t>(*ifindex));
    if (!queues.ok()) {
      note(errors, queues.error());
      continue;
    }
    for (const auto& [number, role] : napi_irq_roles(*napis, *queues)) {
      for (Irq& irq : irqs) {
        if (irq.number != number) continue;
        VectorRole r = role;
        r.label = irq.queue;  // keep the name's label for the old "queue" field
        if (!r.label)
          r.label = std::string(queue_type_name(*r.queue_type)) +
                    (r.queue_index ? "-" + std::to_string(*r.queue_index) : "");
        irq.device = dev;
        set_role(irq, r, "netlink");
      }
    }
  }
}

}  // namespace

std::vector<Irq> probe_irqs(const Root& root, std::vector<ProbeError>& errors,
                            NetdevNetlink* netdev_nl) {
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
  const std::vector<std::string> all_netdevs = class_net.ok() ? *class_net
                                                              : std::vector<std::string>{};

  // Names first, for every IRQ, then each function's vectors are read together: mlx5
  // and gve number their queues relative to their siblings.
  std::vector<std::vector<std::string>> names(irqs.size());
  std::map<std::string, std::vector<std::string>> function_names;
  for (std::size_t i = 0; i < irqs.size(); ++i) {
    names[i] = action_names(root, irqs[i], errors);
    if (auto it = pci.pci_of.find(irqs[i].number); it != pci.pci_of.end())
      function_names[it->second].insert(function_names[it->second].end(), names[i].begin(),
                                        names[i].end());
  }
  std::map<std::string, FunctionVectors> functions;
  for (const auto& [addr, list] : function_names) functions[addr] = summarize_vectors(list);
  // Each vector's index in its function: what identifies it when the numbers change.
  std::map<unsigned, unsigned> msi_index_of;
  for (const auto& [addr, list] : pci.netdevs_of)
    if (auto vectors = msi_vectors(root, addr))
      for (const auto& [irq, index] : *vectors) msi_index_of[irq] = index;

  for (std::size_t i = 0; i < irqs.size(); ++i) {
    Irq& irq = irqs[i];
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

    VectorRole role;
    if (auto it = pci.pci_of.find(irq.number); it != pci.pci_of.end()) {
      irq.pci = it->second;
      if (auto v = msi_index_of.find(irq.number); v != msi_index_of.end())
        irq.msi_index = v->second;
      const std::vector<std::string>& netdevs = pci.netdevs_of[it->second];
      role = role_of(names[i], netdevs, functions[it->second], true);
      // A name no rule knows still belongs to the function's only netdev.
      if (!role.netdev && netdevs.size() == 1) role.netdev = netdevs.front();
    } else {
      // No msi_irqs entry (old capture, INTx): trust only a name that names a netdev.
      role = role_of(names[i], all_netdevs, FunctionVectors{}, false);
    }
    irq.device = role.netdev;
    set_role(irq, role, "name");
    irq.managed = is_managed(root, irq.number);
  }
  if (netdev_nl) apply_napi(root, *netdev_nl, all_netdevs, irqs, errors);
  return irqs;
}

}  // namespace tuner
