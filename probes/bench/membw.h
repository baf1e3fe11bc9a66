// membw: STREAM-style triad bandwidth per NUMA node. Threads run on one node's CPUs
// (one per core) and the three arrays live on one node; the diagonal (threads and
// memory on the same node) is the local bandwidth, the rest the node x node matrix.
// Bytes are counted as STREAM counts them: 3 arrays x 8 bytes per element and
// repetition; the write-allocate read of a[] (a fourth 8 bytes of real traffic) is
// not counted, so figures compare with STREAM's and likwid-bench's.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/result.h"
#include "probes/bench/bench.h"
#include "probes/bench/bench_cpus.h"
#include "probes/inventory.h"

namespace tuner::bench {

struct MembwOptions {
  /// Nodes to measure, as thread nodes and as memory nodes; empty = every node with a
  /// CPU this process may run on.
  std::vector<unsigned> nodes;
  /// Also measure threads on node i against memory on node j != i.
  bool matrix = true;
  /// Time spent repeating the triad over all cells, allocation and first touch not
  /// included. Local cells share it (half of it when the matrix is measured too).
  std::chrono::milliseconds duration{1000};
  /// Bytes per array; 0 = cache_multiple x the last-level cache of a node's CPUs
  /// (STREAM's rule is 4x), within [min_array_bytes, max_array_bytes].
  uint64_t array_bytes = 0;
  unsigned cache_multiple = 4;
  uint64_t min_array_bytes = 64ull << 20;
  uint64_t max_array_bytes = 1ull << 30;
  /// Threads per node; 0 = one per core.
  unsigned threads_per_node = 0;
  /// Repetitions per cell at least, the first being a warm-up (STREAM also drops it).
  unsigned min_reps = 3;
};

/// What a run does, decided from the topology before any memory is touched.
struct MembwPlan {
  std::vector<NodeCpus> nodes;  // each measured node and the CPUs its threads run on
  uint64_t elements = 0;        // per array
  std::chrono::nanoseconds local_budget{0}, remote_budget{0};  // per cell
  unsigned min_reps = 3;
  bool matrix = false;
};

/// Checks the options against the topology and the CPUs this process may use, and
/// sizes the arrays. Errors name the option or the node.
Result<MembwPlan> plan_membw(const Topology& topo, const CpuSet& allowed, const MembwOptions& opts);

/// Bytes one triad repetition over n elements is counted as moving: 24 n.
inline uint64_t triad_bytes(uint64_t elements) { return 24 * elements; }

/// Bandwidth in GB/s (10^9 bytes/s) of moving `bytes` in `t`; 0 when t is not positive.
double gigabytes_per_second(uint64_t bytes, std::chrono::nanoseconds t);

/// STREAM's figure: the fastest repetition after the first (a warm-up); the only one
/// when there is one. Zero for none.
std::chrono::nanoseconds best_time(const std::vector<std::chrono::nanoseconds>& reps);

/// One measured cell: threads on cpu_node, arrays on mem_node.
struct MembwCell {
  unsigned cpu_node = 0, mem_node = 0;
  double gbps = 0;
};

/// The metrics of a run, main first: triad_local_sum (the sum over nodes of their
/// local bandwidth), triad_local_min, triad_local_nodeN per node, then
/// triad_nodeI_mem_nodeJ for each remote cell. All GB/s, higher is better.
std::vector<Metric> membw_metrics(const std::vector<MembwCell>& cells);

/// The benchmark; the topology is the inventory's (probe_topology on the live host).
std::unique_ptr<Benchmark> make_membw(Topology topo, MembwOptions opts = {});

}  // namespace tuner::bench
