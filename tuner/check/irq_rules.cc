// IRQ rules: a NIC's queue vectors all served by one CPU, or by CPUs of another NUMA
// node than the NIC's; and irqbalance running while a kept tuner run pinned IRQs it has
// not been told to leave alone (it will move them back within ten seconds).
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <set>

#include "tuner/check/check.h"

namespace tuner {
namespace {

/// The CPUs that take the vector: the effective affinity where the kernel says, else the
/// allowed set. nullopt when neither is known or parses.
std::optional<CpuSet> serving_cpus(const Irq& irq) {
  for (const auto* text : {&irq.effective_affinity, &irq.affinity})
    if (*text)
      if (auto set = CpuSet::parse(**text); set.ok() && !set->empty()) return *set;
  return std::nullopt;
}

const char* affinity_file(const Irq& irq) {
  return irq.effective_affinity ? "effective_affinity_list" : "smp_affinity_list";
}

std::string irq_fix(const std::string& nic) {
  return fmt::format(
      "spread the queues over the NIC's node: a profile with [irq.\"{0}\"] policy = "
      "\"numa-local\" (irqbalance = \"ban\" keeps irqbalance off them), then 'tuner apply "
      "--profile PROFILE'",
      nic);
}

void check_nic_irqs(const Inventory& inv, const Nic& nic, CheckReport& out) {
  std::vector<std::pair<const Irq*, CpuSet>> queues;
  for (const Irq& irq : inv.irqs)
    if (irq.device == nic.name && irq.kind == IrqKind::queue && !irq.ambiguous)
      if (auto cpus = serving_cpus(irq)) queues.emplace_back(&irq, *cpus);
  if (queues.empty()) return;

  if (queues.size() >= 2 && inv.topology.all_pus.size() >= 2) {
    CpuSet all;
    for (const auto& [irq, cpus] : queues) all = all.unite(cpus);
    if (all.size() == 1) {
      std::vector<Evidence> ev;
      ev.reserve(queues.size());
      for (const auto& [irq, cpus] : queues)
        ev.push_back(
            {fmt::format("proc/irq/{}/{}", irq->number, affinity_file(*irq)), cpus.to_string()});
      out.findings.push_back(
          {Rule::irq_queues_one_cpu, Severity::warning, nic.name,
           fmt::format("all {} queue IRQs of {} are served by CPU {}: one core does the "
                       "whole NIC's interrupt and softirq work",
                       queues.size(), nic.name, all.to_string()),
           std::move(ev), irq_fix(nic.name)});
    }
  }

  if (!nic.numa_node || inv.topology.numa_nodes.size() < 2) return;
  const NumaNode* node = inv.find_node(static_cast<unsigned>(*nic.numa_node));
  if (!node || node->cpus.empty()) return;
  std::vector<Evidence> ev;
  for (const auto& [irq, cpus] : queues)
    if (cpus.intersect(node->cpus).empty())
      ev.push_back(
          {fmt::format("proc/irq/{}/{}", irq->number, affinity_file(*irq)), cpus.to_string()});
  if (ev.empty()) return;
  size_t remote = ev.size();
  ev.push_back({"sys/class/net/" + nic.name + "/device/numa_node", std::to_string(*nic.numa_node)});
  ev.push_back({fmt::format("node {} CPUs", node->os_index), node->cpus.to_string()});
  out.findings.push_back(
      {Rule::irq_queues_remote_node, Severity::warning, nic.name,
       fmt::format("{} of {} queue IRQs of {} run on CPUs of another NUMA node than the "
                   "NIC (node {}): every packet crosses the socket link",
                   remote, queues.size(), nic.name, *nic.numa_node),
       std::move(ev), irq_fix(nic.name)});
}

void check_irqbalance(const CheckInput& in, CheckReport& out) {
  if (!in.kept) {
    skip(out, Rule::irqbalance_moves_pinned,
         in.kept_skipped.value_or(Unavailable{"kept state not read"}));
    return;
  }
  const auto& running = in.inventory.host.irqbalance_running;
  if (!running) {
    out.skipped.push_back({Rule::irqbalance_moves_pinned,
                           "whether irqbalance runs is unknown (a capture without processes)"});
    return;
  }
  if (!*running) return;
  std::vector<Evidence> ev;
  std::set<std::string> runs;
  for (const auto& [irq, pin] : in.kept->pinned)
    if (!in.kept->banned.contains(irq)) {
      ev.push_back(
          {"state.json " + pin.knob, fmt::format("IRQ {} now, kept by run {}", irq, pin.run)});
      runs.insert(pin.run);
    }
  if (ev.empty()) return;
  size_t pinned = ev.size();
  ev.push_back({"proc/*/comm", "irqbalance"});
  out.findings.push_back(
      {Rule::irqbalance_moves_pinned, Severity::warning, "irqbalance",
       fmt::format("irqbalance runs and is not told to leave {} IRQ(s) alone that run {} "
                   "pinned: it moves them, and the kept placement is lost",
                   pinned, fmt::join(runs, ", ")),
       std::move(ev),
       "ban them from irqbalance: irqbalance = \"ban\" (or \"stop\") in the profile's "
       "[irq.\"NIC\"] rule and 'tuner apply' again; 'tuner status' shows which drifted"});
}

}  // namespace

void check_irqs(const CheckInput& in, CheckReport& out) {
  const Inventory& inv = in.inventory;
  std::optional<Unavailable> why = probe_failed(inv, "irq", inv.irqs.empty());
  if (!why) why = probe_failed(inv, "nic", inv.nics.empty());
  if (in.hwloc_export) why = Unavailable{"a hwloc export holds no IRQs of its machine"};
  if (why) {
    skip(out, Rule::irq_queues_one_cpu, *why);
    skip(out, Rule::irq_queues_remote_node, *why);
  } else {
    for (const Nic& nic : inv.nics)
      if (!nic.is_virtual) check_nic_irqs(inv, nic, out);
  }
  check_irqbalance(in, out);
}

}  // namespace tuner
