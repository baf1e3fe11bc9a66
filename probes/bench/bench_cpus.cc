#include "probes/bench/bench_cpus.h"

#include <algorithm>

namespace tuner::bench {

std::vector<NodeCpus> cpus_per_node(const Topology& topo, const CpuSet& allowed,
                                    unsigned max_per_node) {
  std::vector<NodeCpus> out;
  for (const NumaNode& node : topo.numa_nodes) {
    CpuSet usable = node.cpus.intersect(allowed);
    if (usable.empty()) continue;
    NodeCpus entry{node.os_index, {}};
    if (topo.core_list.empty()) {
      entry.cpus = usable;
    } else {
      for (const Core& core : topo.core_list) {
        CpuSet mine = core.pus.intersect(usable);
        if (!mine.empty()) entry.cpus.add(mine.cpus().front());
      }
    }
    if (max_per_node > 0 && entry.cpus.size() > max_per_node) {
      std::vector<unsigned> first(entry.cpus.cpus().begin(),
                                  entry.cpus.cpus().begin() + max_per_node);
      entry.cpus = CpuSet(std::move(first));
    }
    if (!entry.cpus.empty()) out.push_back(std::move(entry));
  }
  return out;
}

CpuSet last_cpu_per_node(const Topology& topo, const CpuSet& allowed) {
  CpuSet out;
  for (const NumaNode& node : topo.numa_nodes) {
    CpuSet usable = node.cpus.intersect(allowed);
    if (!usable.empty()) out.add(usable.cpus().back());
  }
  if (out.empty() && topo.numa_nodes.empty() && !allowed.empty()) out.add(allowed.cpus().back());
  return out;
}

uint64_t last_level_cache_bytes(const Topology& topo, const CpuSet& cpus) {
  unsigned top = 0;
  for (const Cache& c : topo.caches)
    if (c.type != "instruction" && !c.cpus.intersect(cpus).empty()) top = std::max(top, c.level);
  uint64_t total = 0;
  for (const Cache& c : topo.caches)
    if (c.level == top && c.type != "instruction" && !c.cpus.intersect(cpus).empty())
      total += c.size_bytes;
  return total;
}

}  // namespace tuner::bench
