#include "tuner/plan/irq_placement.h"

#include <algorithm>
#include <map>
#include <optional>

namespace tuner {

CpuSet irq_allowed_cpus(const CpuSet& candidates, const Host& host) {
  return candidates.minus(host.isolcpus).minus(host.nohz_full);
}

CpuSet socket_cpus(const Topology& topo, const NumaNode& node) {
  std::optional<unsigned> package;
  for (const Core& c : topo.core_list)
    if (c.numa_node == node.os_index) package = c.package;
  CpuSet socket = node.cpus;
  if (!package) return socket;
  auto index = [&](unsigned os_index) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < topo.numa_nodes.size(); ++i)
      if (topo.numa_nodes[i].os_index == os_index) return i;
    return std::nullopt;
  };
  auto from = index(node.os_index);
  for (const Core& c : topo.core_list) {
    if (c.package != *package || !c.numa_node || *c.numa_node == node.os_index) continue;
    auto to = index(*c.numa_node);
    if (!from || !to || *from >= topo.distances.size() || *to >= topo.distances[*from].size())
      continue;  // distances unknown: not a guess
    if (topo.distances[*from][*to] < kSplitSocketDistance) socket = socket.unite(c.pus);
  }
  return socket;
}

std::size_t count_cores(const Topology& topo, const CpuSet& allowed) {
  if (topo.core_list.empty()) return allowed.size();
  std::size_t n = 0;
  for (const Core& c : topo.core_list)
    if (!c.pus.intersect(allowed).empty()) ++n;
  return n;
}

std::vector<unsigned> irq_cpu_order(const std::vector<Core>& cores, const CpuSet& allowed) {
  // Each core's allowed PUs, in the core's own order (its first PU is the primary
  // thread, so a core whose primary is isolated still offers its sibling), cores
  // grouped by NUMA node in the order the nodes first appear.
  std::vector<std::optional<unsigned>> nodes;
  std::vector<std::vector<std::vector<unsigned>>> by_node;
  CpuSet listed;
  for (const Core& core : cores) {
    std::vector<unsigned> pus;
    for (unsigned pu : core.pus.cpus())
      if (allowed.contains(pu) && !listed.contains(pu)) pus.push_back(pu);
    listed = listed.unite(core.pus);
    if (pus.empty()) continue;
    auto at = std::find(nodes.begin(), nodes.end(), core.numa_node);
    if (at == nodes.end()) {
      nodes.push_back(core.numa_node);
      by_node.emplace_back();
      at = nodes.end() - 1;
    }
    by_node[static_cast<std::size_t>(at - nodes.begin())].push_back(std::move(pus));
  }
  // Across nodes, a core of each node in turn: a spread over the machine reaches every
  // node with its first IRQs instead of filling node 0's cores first.
  std::vector<std::vector<unsigned>> per_core;
  for (std::size_t i = 0;; ++i) {
    bool any = false;
    for (const auto& node_cores : by_node)
      if (i < node_cores.size()) {
        per_core.push_back(node_cores[i]);
        any = true;
      }
    if (!any) break;
  }
  CpuSet unlisted = allowed.minus(listed);
  for (unsigned pu : unlisted.cpus()) per_core.push_back({pu});

  std::vector<unsigned> order;
  std::size_t depth = 0;
  for (const auto& pus : per_core) depth = std::max(depth, pus.size());
  for (std::size_t round = 0; round < depth; ++round)
    for (const auto& pus : per_core)
      if (round < pus.size()) order.push_back(pus[round]);
  return order;
}

std::vector<unsigned> irq_cpu_order_near(const std::vector<Core>& cores, const CpuSet& near,
                                         const CpuSet& further) {
  // The round of a PU is its place among its core's allowed PUs: 0 for the first.
  auto rounds = [&](const CpuSet& allowed) {
    std::map<unsigned, std::size_t> round;
    for (const Core& core : cores) {
      std::size_t k = 0;
      for (unsigned pu : core.pus.cpus())
        if (allowed.contains(pu)) round.emplace(pu, k++);
    }
    return round;
  };
  auto near_round = rounds(near), further_round = rounds(further);
  std::vector<unsigned> near_order = irq_cpu_order(cores, near);
  std::vector<unsigned> further_order = irq_cpu_order(cores, further);
  std::vector<unsigned> order;
  for (std::size_t k = 0; order.size() < near_order.size() + further_order.size(); ++k)
    for (const auto& [list, round] :
         {std::pair(&near_order, &near_round), std::pair(&further_order, &further_round)})
      for (unsigned pu : *list) {
        auto it = round->find(pu);
        // PUs no core lists (a topology without cores) count as round 0.
        if ((it == round->end() ? 0 : it->second) == k) order.push_back(pu);
      }
  return order;
}

std::vector<unsigned> assign_round_robin(std::size_t irq_count,
                                         const std::vector<unsigned>& order) {
  std::vector<unsigned> out;
  if (order.empty()) return out;
  out.reserve(irq_count);
  for (std::size_t i = 0; i < irq_count; ++i) out.push_back(order[i % order.size()]);
  return out;
}

Result<KnobId> irq_affinity_id(const Irq& irq) {
  if (irq.pci && irq.msi_index) return KnobId::irq_vector(*irq.pci, *irq.msi_index);
  return KnobId::irq_affinity(irq.number);
}

}  // namespace tuner
