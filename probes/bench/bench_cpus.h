// Which CPUs and how much cache the host benchmarks (membw, latency) work with, chosen
// from the Topology alone, so the choice is tested on captured multi-node machines.
// Binding to them is bench_bind's job.
#pragma once

#include <cstdint>
#include <vector>

#include "base/cpuset.h"
#include "probes/inventory.h"

namespace tuner::bench {

/// The CPUs a per-node benchmark starts its threads on, one thread per CPU.
struct NodeCpus {
  unsigned node = 0;  // NUMA node os_index
  CpuSet cpus;
};

/// For each NUMA node with an allowed CPU: one CPU per core (the core's first allowed
/// PU), because SMT siblings share a core's load/store units and add little bandwidth.
/// max_per_node > 0 keeps only the first that many. A topology without cores (some
/// exports) gives one per PU. Nodes are in os_index order; hwloc gives a memory-only
/// node (KNL MCDRAM, CXL) the CPUs it is attached to, so it is listed with them.
std::vector<NodeCpus> cpus_per_node(const Topology& topo, const CpuSet& allowed,
                                    unsigned max_per_node = 0);

/// The latency benchmark's default CPUs: the last allowed CPU of each NUMA node with an
/// allowed CPU. The last rather than the first because CPU 0 of a node carries more
/// housekeeping (boot-time IRQ affinity, timers of unbound work) and the last is the one
/// an isolcpus/nohz_full setup usually frees; one per node because a change can help
/// one node's CPUs and hurt another's. Without NUMA nodes: the last allowed CPU.
CpuSet last_cpu_per_node(const Topology& topo, const CpuSet& allowed);

/// Bytes of last-level cache the CPUs can keep a benchmark's arrays in: the total size
/// of the highest-level data or unified caches that hold any of `cpus`. 0 when the
/// topology lists no such cache.
uint64_t last_level_cache_bytes(const Topology& topo, const CpuSet& cpus);

}  // namespace tuner::bench
