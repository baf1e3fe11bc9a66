#include "probes/inventory_json.h"

#include "probes/cpu_vulnerabilities.h"
#include "probes/hw_class.h"
#include "probes/irq_names.h"
#include "probes/swap.h"

namespace tuner {
namespace {

using nlohmann::json;

template <typename T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json swaps_json(const std::optional<std::vector<SwapDevice>>& swaps) {
  if (!swaps) return nullptr;
  json out = json::array();
  for (const SwapDevice& d : *swaps)
    out.push_back({{"name", d.name},
                   {"type", d.type},
                   {"zram", is_zram(d)},
                   {"size_kib", d.size_kib},
                   {"used_kib", d.used_kib},
                   {"priority", d.priority}});
  return out;
}

json host_json(const Host& h) {
  return {{"hostname", opt(h.hostname)},
          {"kernel", opt(h.kernel)},
          {"cpu_model", opt(h.cpu_model)},
          {"cpu_vendor", opt(h.cpu_vendor)},
          {"virtualized", opt(h.virtualized)},
          {"hypervisor", opt(h.hypervisor)},
          {"isolcpus", h.isolcpus.to_string()},
          {"nohz_full", h.nohz_full.to_string()},
          {"irqbalance_running", opt(h.irqbalance_running)},
          {"other_net_namespaces", opt(h.other_net_namespaces)},
          {"initial_net_namespace", opt(h.initial_net_namespace)},
          {"nvidia_driver", opt(h.nvidia_driver)},
          {"microcode", opt(h.microcode)},
          {"cpu_vulnerabilities", opt(h.cpu_vulnerabilities)},
          {"swaps", swaps_json(h.swaps)},
          {"platform",
           {{"bios_vendor", opt(h.platform.bios_vendor)},
            {"bios_version", opt(h.platform.bios_version)},
            {"bios_date", opt(h.platform.bios_date)},
            {"system_vendor", opt(h.platform.system_vendor)},
            {"system_product", opt(h.platform.system_product)},
            {"board_vendor", opt(h.platform.board_vendor)},
            {"board_name", opt(h.platform.board_name)}}}};
}

json topology_json(const Topology& t) {
  json nodes = json::array();
  for (const NumaNode& n : t.numa_nodes)
    nodes.push_back({{"os_index", n.os_index},
                     {"cpus", n.cpus.to_string()},
                     {"memory_bytes", opt(n.memory_bytes)},
                     {"free_bytes", opt(n.free_bytes)}});
  json cores = json::array();
  for (const Core& c : t.core_list)
    cores.push_back({{"index", c.logical_index},
                     {"package", c.package},
                     {"numa_node", opt(c.numa_node)},
                     {"pus", c.pus.to_string()}});
  json caches = json::array();
  for (const Cache& c : t.caches)
    caches.push_back({{"level", c.level},
                      {"type", c.type},
                      {"size_bytes", c.size_bytes},
                      {"cpus", c.cpus.to_string()}});
  json pci = json::array();
  for (const PciDevice& d : t.pci) {
    char ids[32];
    std::snprintf(ids, sizeof ids, "%04x:%04x", d.vendor_id, d.device_id);
    pci.push_back({{"address", d.address},
                   {"kind", d.kind},
                   {"id", ids},
                   {"class", d.class_id},
                   {"numa_node", opt(d.numa_node)},
                   {"local_cpus", d.local_cpus.to_string()},
                   {"os_devices", d.os_devices},
                   {"netdevs", d.netdevs},
                   {"driver", opt(d.driver)},
                   {"link",
                    {{"speed_gts", opt(d.link.speed_gts)},
                     {"width", opt(d.link.width)},
                     {"max_speed_gts", opt(d.link.max_speed_gts)},
                     {"max_width", opt(d.link.max_width)}}}});
  }
  return {
      {"source", t.source},  {"packages", t.packages},
      {"cores", t.cores},    {"pus", t.pus},
      {"numa_nodes", nodes}, {"distances", t.distances.empty() ? json(nullptr) : json(t.distances)},
      {"core_list", cores},  {"caches", caches},
      {"pci", pci}};
}

json nic_json(const Nic& n) {
  const LinkInfo& l = n.link;
  json link = {{"up", opt(l.up)},
               {"autoneg", opt(l.autoneg)},
               {"speed_mbps", opt(l.speed_mbps)},
               {"duplex", l.duplex ? json(duplex_name(*l.duplex)) : json(nullptr)},
               {"port", opt(l.port)},
               {"supported_modes", l.supported_modes},
               {"advertised_modes", l.advertised_modes},
               {"partner_modes", l.partner_modes}};
  json channels = nullptr, rings = nullptr, coalesce = nullptr;
  if (n.channels)
    channels = {{"rx", opt(n.channels->rx)},
                {"tx", opt(n.channels->tx)},
                {"other", opt(n.channels->other)},
                {"combined", opt(n.channels->combined)},
                {"rx_max", opt(n.channels->rx_max)},
                {"tx_max", opt(n.channels->tx_max)},
                {"other_max", opt(n.channels->other_max)},
                {"combined_max", opt(n.channels->combined_max)}};
  if (n.rings)
    rings = {{"rx", opt(n.rings->rx)},
             {"tx", opt(n.rings->tx)},
             {"rx_max", opt(n.rings->rx_max)},
             {"tx_max", opt(n.rings->tx_max)}};
  if (n.coalesce)
    coalesce = {{"rx_usecs", opt(n.coalesce->rx_usecs)},
                {"tx_usecs", opt(n.coalesce->tx_usecs)},
                {"rx_frames", opt(n.coalesce->rx_frames)},
                {"tx_frames", opt(n.coalesce->tx_frames)},
                {"adaptive_rx", opt(n.coalesce->adaptive_rx)},
                {"adaptive_tx", opt(n.coalesce->adaptive_tx)}};
  return {{"name", n.name},
          {"driver", opt(n.driver)},
          {"driver_version", opt(n.driver_version)},
          {"firmware_version", opt(n.firmware_version)},
          {"ethtool", n.ethtool ? json(ethtool_backend_name(*n.ethtool)) : json(nullptr)},
          {"pci", opt(n.pci)},
          {"numa_node", opt(n.numa_node)},
          {"operstate", opt(n.operstate)},
          {"mtu", opt(n.mtu)},
          {"mtu_range", n.mtu_range ? json{{"min", n.mtu_range->min}, {"max", n.mtu_range->max}}
                                    : json(nullptr)},
          {"link_type", opt(n.link_type)},
          {"rdma_device", opt(n.rdma_device)},
          {"default_route", opt(n.default_route)},
          {"ssh_session", opt(n.ssh_session)},
          {"mac", opt(n.mac)},
          {"virtual", n.is_virtual},
          {"rx_queues", n.rx_queues},
          {"tx_queues", n.tx_queues},
          {"irqs", n.irqs},
          {"link", link},
          {"channels", channels},
          {"rings", rings},
          {"coalesce", coalesce}};
}

json irq_json(const Irq& i) {
  uint64_t total = 0;
  for (uint64_t c : i.per_cpu) total += c;
  return {{"irq", i.number},
          {"name", i.name},
          {"chip", i.chip},
          {"hwirq", i.hwirq},
          {"device", opt(i.device)},
          {"pci", opt(i.pci)},
          {"msi_index", opt(i.msi_index)},
          {"queue", opt(i.queue)},
          {"affinity", opt(i.affinity)},
          {"effective_affinity", opt(i.effective_affinity)},
          {"node", opt(i.node)},
          {"managed", i.managed},
          {"kind", irq_kind_name(i.kind)},
          {"queue_index", opt(i.queue_index)},
          {"queue_type", i.queue_type ? json(queue_type_name(*i.queue_type)) : json(nullptr)},
          {"ambiguous", opt(i.ambiguous)},
          {"source", opt(i.source)},
          {"count", total},
          {"per_cpu", i.per_cpu}};
}

/// 16 -> "16", 2.5 -> "2.5".
std::string fmt_gts(double v) {
  char text[24];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

json cpufreq_json(const std::optional<std::vector<CpufreqPolicy>>& policies) {
  if (!policies) return nullptr;
  json out = json::array();
  for (const CpufreqPolicy& p : *policies)
    out.push_back({{"policy", p.id},
                   {"cpus", p.cpus.to_string()},
                   {"online", p.online.to_string()},
                   {"driver", opt(p.driver)}});
  return out;
}

json cpuidle_json(const std::optional<Cpuidle>& table) {
  if (!table) return nullptr;
  json states = json::array();
  for (const IdleState& s : table->states)
    states.push_back({{"state", s.index},
                      {"name", s.name},
                      {"polling", s.polling},
                      {"latency_us", opt(s.latency_us)},
                      {"disabled", opt(s.disabled)}});
  return {{"cpu", table->cpu}, {"driver", opt(table->driver)}, {"states", states}};
}

}  // namespace

NodeFacts node_facts(const Inventory& inv) {
  const Host& h = inv.host;
  NodeFacts f = {{"hostname", h.hostname},
                 {"kernel", h.kernel},
                 {"cpu_model", h.cpu_model},
                 {"microcode", h.microcode},
                 // Beside "microcode" in the fleet report: which nodes the kernel calls
                 // vulnerable with the microcode they run.
                 {"microcode.vulnerable",
                  h.cpu_vulnerabilities ? std::optional(vulnerable_names(*h.cpu_vulnerabilities))
                                        : std::nullopt},
                 {"nvidia_driver", h.nvidia_driver},
                 {"bios_vendor", h.platform.bios_vendor},
                 {"bios_version", h.platform.bios_version},
                 {"bios_date", h.platform.bios_date},
                 {"system_vendor", h.platform.system_vendor},
                 {"system_product", h.platform.system_product},
                 {"board_name", h.platform.board_name}};
  for (const Nic& n : inv.nics) {
    if (n.is_virtual) continue;
    f["nic." + n.name + ".driver"] = n.driver;
    f["nic." + n.name + ".driver_version"] = n.driver_version;
    f["nic." + n.name + ".firmware_version"] = n.firmware_version;
  }
  auto link = [](std::optional<double> gts,
                 std::optional<unsigned> width) -> std::optional<std::string> {
    if (!gts && !width) return std::nullopt;
    return (gts ? fmt_gts(*gts) : "?") + " GT/s x" + (width ? std::to_string(*width) : "?");
  };
  for (const PciDevice& d : inv.topology.pci) {
    if (d.kind != "gpu" && d.kind != "nic" && d.kind != "infiniband") continue;
    f["pcie." + d.address] = link(d.link.speed_gts, d.link.width);
    f["pcie." + d.address + ".max"] = link(d.link.max_speed_gts, d.link.max_width);
  }
  return f;
}

json node_facts_json(const NodeFacts& facts) {
  json f = json::object();
  for (const auto& [k, v] : facts) f[k] = opt(v);
  return f;
}

json to_json(const Inventory& inv) {
  json nics = json::array(), irqs = json::array(), errors = json::array();
  for (const Nic& n : inv.nics) nics.push_back(nic_json(n));
  for (const Irq& i : inv.irqs) irqs.push_back(irq_json(i));
  for (const ProbeError& e : inv.errors)
    errors.push_back({{"probe", e.probe}, {"message", e.message}});
  return {{"schema", "tuner.probe/1"},
          {"host", host_json(inv.host)},
          {"topology", topology_json(inv.topology)},
          {"nics", nics},
          {"irqs", irqs},
          {"sysctls", inv.sysctls},
          {"cpufreq", cpufreq_json(inv.cpufreq)},
          {"cpuidle", cpuidle_json(inv.cpuidle)},
          {"node", node_facts_json(inv)},
          {"class", hw_class_json(hw_class(inv, inv.class_label))},
          {"errors", errors}};
}

}  // namespace tuner
