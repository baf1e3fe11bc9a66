#include "tuner/cli/report/probe_text.h"

#include <fmt/core.h>

#include "base/strings.h"
#include "probes/hw_class.h"

namespace tuner {
namespace {

template <typename T>
std::string or_unknown(const std::optional<T>& v) {
  if (!v) return "?";
  if constexpr (std::is_same_v<T, bool>) return *v ? "yes" : "no";
  else if constexpr (std::is_same_v<T, Duplex>) return duplex_name(*v);
  else return fmt::format("{}", *v);
}

std::string human_bytes(uint64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  auto v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  return fmt::format("{:.1f} {}", v, units[u]);
}

}  // namespace

std::string format_probe_report(const Inventory& inv, const Term& t) {
  std::string out;
  const Host& h = inv.host;
  // Each on one line whatever it holds: a newline in a hostname cannot forge a line.
  out += t.bold("host") + fmt::format("  {} kernel {} cpu {}{}\n",
                                      escape_controls(or_unknown(h.hostname)),
                                      escape_controls(or_unknown(h.kernel)),
                                      escape_controls(or_unknown(h.cpu_model)),
                                      h.hypervisor ? " (virtual: " + *h.hypervisor + ")" : "");
  if (!h.isolcpus.empty() || !h.nohz_full.empty())
    out += fmt::format("      isolcpus {} nohz_full {}\n", h.isolcpus.to_string(),
                       h.nohz_full.to_string());
  out += fmt::format("      irqbalance {}  nvidia driver {}  microcode {}\n",
                     or_unknown(h.irqbalance_running), or_unknown(h.nvidia_driver),
                     or_unknown(h.microcode));
  const Host::Platform& pf = h.platform;
  if (pf.bios_version || pf.system_product || pf.board_name)
    out += fmt::format(
        "      system {} {}  board {} {}  bios {} {} ({})\n", or_unknown(pf.system_vendor),
        or_unknown(pf.system_product), or_unknown(pf.board_vendor), or_unknown(pf.board_name),
        or_unknown(pf.bios_vendor), or_unknown(pf.bios_version), or_unknown(pf.bios_date));

  HwClass cls = hw_class(inv, inv.class_label);
  out += fmt::format("      class {} ({} facts{}; probe --json lists them)\n", cls.key,
                     cls.facts.size(), inv.class_label.empty() ? "" : ", label " + inv.class_label);

  const Topology& topo = inv.topology;
  out += t.bold("topology") + fmt::format("  {} packages, {} cores, {} PUs, {} NUMA nodes\n",
                                          topo.packages, topo.cores, topo.pus,
                                          topo.numa_nodes.size());
  for (const NumaNode& n : topo.numa_nodes)
    out += fmt::format("  node {}: cpus {}  memory {}  free {}\n", n.os_index, n.cpus.to_string(),
                       n.memory_bytes ? human_bytes(*n.memory_bytes) : "?",
                       n.free_bytes ? human_bytes(*n.free_bytes) : "?");
  for (const PciDevice& d : topo.pci) {
    std::string names;
    for (const std::string& n : d.os_devices) names += (names.empty() ? "" : ",") + n;
    std::string link;
    if (d.link.speed_gts || d.link.width) {
      auto gts = [](std::optional<double> v) { return v ? fmt::format("{:g}", *v) : "?"; };
      auto lanes = [](std::optional<unsigned> v) { return v ? std::to_string(*v) : "?"; };
      link = fmt::format("  pcie {} GT/s x{} (max {} GT/s x{})", gts(d.link.speed_gts),
                         lanes(d.link.width), gts(d.link.max_speed_gts), lanes(d.link.max_width));
    }
    out += fmt::format("  pci {} {:<6} node {:<2} {}{}\n", d.address, d.kind,
                       d.numa_node ? std::to_string(*d.numa_node) : "-", names, link);
  }

  if (!inv.nics.empty()) out += t.bold("nics") + "\n";
  for (const Nic& n : inv.nics) {
    const LinkInfo& l = n.link;
    std::string versions;
    if (n.driver_version || n.firmware_version)
      versions = fmt::format(" version {} firmware {}", or_unknown(n.driver_version),
                             or_unknown(n.firmware_version));
    std::string link = l.up ? (*l.up ? t.green("up") : t.red("down")) : "?";
    out += fmt::format("  {:<12} {:<10} pci {:<13} node {:<2} link {} speed {} duplex {} autoneg {}"
                       " irqs {}{}\n",
                       n.name, n.driver.value_or("-"), n.pci.value_or("-"),
                       n.numa_node ? std::to_string(*n.numa_node) : "-", link,
                       l.speed_mbps ? std::to_string(*l.speed_mbps) : "?", or_unknown(l.duplex),
                       or_unknown(l.autoneg), n.irqs.size(), versions);
  }
  out += t.bold("irqs") + fmt::format("  {} numbered IRQs\n", inv.irqs.size());
  if (!inv.sysctls.empty()) out += t.bold("sysctls") + "\n";
  for (const auto& [k, v] : inv.sysctls) out += fmt::format("  {} = {}\n", k, v);
  if (inv.cpufreq && !inv.cpufreq->empty()) {
    const CpufreqPolicy& first = inv.cpufreq->front();
    out += t.bold("cpufreq") + fmt::format("  {} policies, driver {}\n", inv.cpufreq->size(),
                                           first.driver.value_or("?"));
  }
  if (inv.cpuidle) {
    // The exit latencies a resume latency limit is weighed against.
    std::string states;
    for (const IdleState& s : inv.cpuidle->states)
      states += fmt::format("{}{} {} us{}", states.empty() ? "" : ", ", escape_controls(s.name),
                            s.latency_us ? std::to_string(*s.latency_us) : "?",
                            s.disabled == true ? " (disabled)" : "");
    out += t.bold("cpuidle") + fmt::format("  {} on CPU {}: {}\n",
                                           escape_controls(inv.cpuidle->driver.value_or("?")),
                                           inv.cpuidle->cpu, states);
  }
  return out;
}

std::string format_probe_warnings(const Inventory& inv, const Term& t) {
  std::string out;
  for (const ProbeError& e : inv.errors)
    out += "tuner: " + t.yellow("warning") + fmt::format(": {}: {}\n", e.probe, e.message);
  return out;
}

}  // namespace tuner
