#include "probes/probe.h"

#include "probes/cpufreq.h"
#include "probes/cpuidle.h"
#include "probes/default_route.h"
#include "probes/drvinfo.h"
#include "probes/ethtool.h"
#include "probes/host.h"
#include "probes/irq.h"
#include "probes/netdev_netlink.h"
#include "probes/nic.h"
#include "probes/numa.h"
#include "probes/pci_link.h"
#include "probes/ssh_session.h"
#include "probes/sysctl.h"
#include "probes/topology.h"

namespace tuner {

const std::vector<std::string>& default_probe_sysctls() {
  static const std::vector<std::string> keys = {
      "kernel.numa_balancing",
      "vm.zone_reclaim_mode",
      "vm.swappiness",
      "net.core.rmem_max",
      "net.core.wmem_max",
      "net.core.somaxconn",
      "net.core.netdev_max_backlog",
      "net.ipv4.tcp_rmem",
      "net.ipv4.tcp_wmem",
      "net.ipv4.tcp_congestion_control",
  };
  return keys;
}

namespace {

void host_from_topology_info(const std::map<std::string, std::string>& info, Host& host) {
  auto get = [&info](const char* key) -> std::optional<std::string> {
    auto it = info.find(key);
    if (it == info.end()) return std::nullopt;
    return it->second;
  };
  host.hostname = get("HostName");
  host.kernel = get("OSRelease");
  host.cpu_model = get("CPUModel");
  host.cpu_vendor = get("CPUVendor");
  Host::Platform& p = host.platform;
  p.bios_vendor = get("DMIBIOSVendor");
  p.bios_version = get("DMIBIOSVersion");
  p.bios_date = get("DMIBIOSDate");
  p.system_vendor = get("DMISysVendor");
  p.system_product = get("DMIProductName");
  p.board_vendor = get("DMIBoardVendor");
  p.board_name = get("DMIBoardName");
}

/// The server port of the SSH session tuner runs in: live only (a capture's sessions
/// are its machine's, not this process's).
std::optional<uint16_t> ssh_connection_port_here(const Root& root) {
  const char* value = root.is_live() ? std::getenv("SSH_CONNECTION") : nullptr;
  return value ? ssh_connection_port(value) : std::nullopt;
}

/// Whether an SSH session arrives through `n` (or a device stacked on it, as for the
/// default route), and from where.
void mark_ssh_session(const Root& root, const std::map<std::string, std::string>& sessions,
                      Nic& n) {
  std::set<std::string> holders;
  for (const auto& [dev, peer] : sessions) holders.insert(dev);
  auto carrier = carries_default_route(root, n.name, holders);
  n.ssh_session = carrier.has_value();
  if (!carrier) return;
  auto peer = sessions.find(carrier->holder);
  if (peer == sessions.end()) return;
  n.ssh_session_peer = carrier->holder == n.name ? peer->second
                                                 : peer->second + " via " + carrier->holder;
}

}  // namespace

Inventory probe_inventory(const Root& root, const ProbeOptions& options) {
  Inventory inv;
  // An XML export describes another machine: this host's kernel, isolcpus or
  // irqbalance would be facts about the wrong node (the XML's own are taken below).
  if (!options.topology_xml) inv.host = probe_host(root, inv.errors);

  auto topo = probe_topology(root, options.topology_xml);
  if (topo.ok()) {
    inv.topology = std::move(topo).value();
    if (!options.topology_xml) probe_numa(root, inv.topology, inv.errors);
  } else {
    inv.errors.push_back({"topology", topo.error().message()});
  }

  // An XML export describes another machine: its NICs come from the XML, and this
  // machine's IRQs, NICs and sysctls would be a lie. What the XML says about its own
  // machine (host name, kernel, CPU, DMI) is that machine's, and is used.
  if (options.topology_xml) {
    host_from_topology_info(inv.topology.info, inv.host);
    for (const PciDevice& d : inv.topology.pci) {
      for (const std::string& name : d.netdevs) {
        Nic n;
        n.name = name;
        n.pci = d.address;
        n.numa_node = d.numa_node;
        inv.nics.push_back(std::move(n));
      }
    }
    return inv;
  }

  probe_pci_links(root, inv.topology.pci);
  // The netdev family (6.3+) is optional: without it, or without napi-get, the IRQ
  // names say what each vector does.
  std::unique_ptr<NetdevNetlink> netdev_nl;
  if (root.is_live() && options.netlink)
    if (auto opened = open_netdev_netlink(); opened.ok()) netdev_nl = std::move(opened).value();
  inv.irqs = probe_irqs(root, inv.errors, netdev_nl.get());

  // Netlink where the kernel has the family, else the ioctl (TUNER_ETHTOOL_BACKEND).
  std::unique_ptr<Ethtool> ethtool;
  if (root.is_live() && options.netlink) {
    auto opened = open_ethtool();
    if (opened.ok()) ethtool = std::move(opened).value();
    else inv.errors.push_back({"netlink", opened.error().message()});
  }
  inv.nics = probe_nics(root, ethtool.get(), inv.errors);
  auto routed = probe_default_route_ports(root);
  auto sessions = probe_ssh_session_ports(root, ssh_connection_port_here(root));
  for (Nic& n : inv.nics) {
    if (routed) {
      auto carrier = carries_default_route(root, n.name, *routed);
      n.default_route = carrier.has_value();
      if (carrier && carrier->through_ovs) n.default_route_ovs = carrier->holder;
    }
    if (sessions) mark_ssh_session(root, *sessions, n);
    for (const Irq& i : inv.irqs)
      if (i.device && *i.device == n.name) n.irqs.push_back(i.number);
    // One answer per device: the PCI record's (sysfs numa_node, else hwloc's
    // locality when sysfs says -1, as a single-node machine does).
    if (n.pci)
      for (const PciDevice& d : inv.topology.pci)
        if (d.address == *n.pci && d.numa_node) n.numa_node = d.numa_node;
    // Versions through the ioctl, in this process's namespace: only for the live
    // machine, and only for NICs with a device (a veth's "1.0" says nothing).
    if (root.is_live() && !n.is_virtual) {
      if (auto info = read_drvinfo(n.name); info.ok()) {
        n.driver_version = info->version;
        n.firmware_version = info->firmware_version;
      } else if (info.error().err != EOPNOTSUPP && info.error().err != ENODEV) {
        inv.errors.push_back({"nic", info.error().message()});
      }
    }
  }

  for (const std::string& key : default_probe_sysctls()) {
    auto v = read_sysctl(root, key);
    if (v.ok()) inv.sysctls[key] = *v;
    // A missing sysctl (no such module, older kernel) is not an error worth reporting.
    else if (v.error().err != ENOENT) inv.errors.push_back({"sysctl", v.error().message()});
  }
  inv.cpufreq = probe_cpufreq(root, inv.errors);
  inv.cpuidle = probe_cpuidle(root, inv.errors);
  return inv;
}

}  // namespace tuner
