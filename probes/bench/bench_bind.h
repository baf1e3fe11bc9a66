// Binding for the host benchmarks: threads to CPUs (sched_setaffinity on the calling
// thread) and memory to a NUMA node (mmap + mbind MPOL_BIND, so pages land on that node
// whichever thread touches them first). Direct syscalls rather than libnuma's
// allocators, which print to stderr on failure; errors here are Results.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/cpuset.h"
#include "base/result.h"

namespace tuner::bench {

/// The CPUs the calling thread may run on (sched_getaffinity), i.e. what cgroups,
/// taskset or an outer `tuner exec` left us. Empty on failure.
CpuSet allowed_cpus();

/// Pins the calling thread (not the process) to `cpus`.
Status bind_this_thread(const CpuSet& cpus);

/// True when the kernel has NUMA memory policy (set_mempolicy works); false on kernels
/// built without CONFIG_NUMA, where memory cannot be placed on a node.
bool numa_policy_available();

/// Free bytes on a NUMA node now (node's MemFree), or an Error naming the node.
Result<uint64_t> node_free_bytes(unsigned node);

/// The node holding the page at addr (move_pages query, the page must be touched).
Result<int> node_of_page(const void* addr);

/// Anonymous memory bound to one NUMA node; unmapped on destruction. Pages are not
/// touched: the benchmark touches them from its own bound threads.
class NodeMemory {
 public:
  /// Maps `bytes` (rounded up to pages) bound to `node` with MPOL_BIND.
  static Result<NodeMemory> map(std::size_t bytes, unsigned node);
  /// Maps `bytes` under the thread's memory policy (first touch places the pages), for
  /// a single-node host whose kernel or seccomp profile refuses mbind.
  static Result<NodeMemory> unbound(std::size_t bytes);
  NodeMemory() = default;
  NodeMemory(NodeMemory&& other) noexcept;
  NodeMemory& operator=(NodeMemory&& other) noexcept;
  NodeMemory(const NodeMemory&) = delete;
  NodeMemory& operator=(const NodeMemory&) = delete;
  ~NodeMemory();

  double* doubles() const { return static_cast<double*>(addr_); }
  std::size_t bytes() const { return bytes_; }

 private:
  void* addr_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace tuner::bench
