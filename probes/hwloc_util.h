// Small hwloc helpers shared by the topology probe and its PCI part: an owning
// topology handle, bitmap conversion, and the environment hwloc reads at load time.
#pragma once

#include <hwloc.h>

#include <optional>
#include <string>
#include <vector>

#include "base/cpuset.h"

namespace tuner {

/// Owns a hwloc topology; destroys it on scope exit.
class HwlocTopology {
 public:
  HwlocTopology() = default;
  HwlocTopology(const HwlocTopology&) = delete;
  HwlocTopology& operator=(const HwlocTopology&) = delete;
  ~HwlocTopology() {
    if (topo_) hwloc_topology_destroy(topo_);
  }
  /// hwloc_topology_init; false (errno set) on failure.
  bool init() { return hwloc_topology_init(&topo_) == 0; }
  hwloc_topology_t get() const { return topo_; }

 private:
  hwloc_topology_t topo_ = nullptr;
};

/// Sets (or, with nullopt, unsets) environment variables for its lifetime and puts the
/// previous values back afterwards: hwloc takes HWLOC_FSROOT and friends from the
/// environment at load time, and one probe must not change how the next one loads.
class ScopedEnv {
 public:
  ScopedEnv() = default;
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv();
  void set(const std::string& name, const std::optional<std::string>& value);

 private:
  struct Saved {
    std::string name;
    std::optional<std::string> old;
  };
  std::vector<Saved> saved_;
};

/// A finite hwloc bitmap as a CpuSet (cpuset bits are PU os indexes, nodeset bits
/// NUMA node os indexes). NULL or infinite bitmaps give an empty set.
CpuSet to_cpuset(hwloc_const_bitmap_t bitmap);

/// os_index of the NUMA node nearest a CPU-side object: the first node attached to the
/// closest ancestor (or the object itself) that has memory. nullopt when that is the
/// whole machine on a multi-node system, i.e. the object has no locality.
std::optional<unsigned> nearest_numa_node(hwloc_topology_t topo, hwloc_obj_t obj);

}  // namespace tuner
