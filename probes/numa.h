// NUMA probe: node memory total/free and the distance matrix. libnuma on the live
// machine; /sys/devices/system/node under a captured root.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "probes/inventory.h"
#include "probes/root.h"

namespace tuner {

/// Fills memory_bytes, free_bytes and distances of topo.numa_nodes; adds to errors
/// what it could not read (that field then keeps the value hwloc gave, or stays null).
void probe_numa(const Root& root, Topology& topo, std::vector<ProbeError>& errors);

/// The totals of a /sys/devices/system/node/nodeN/meminfo.
struct NodeMeminfo {
  uint64_t total_bytes = 0;
  std::optional<uint64_t> free_bytes;
};

/// Parses nodeN/meminfo ("Node 0 MemTotal:  6776604 kB" lines). MemTotal is required;
/// errors name the line ("line 3: ...").
Result<NodeMeminfo> parse_node_meminfo(std::string_view text);

/// Parses nodeN/distance: one distance per online node, in node order ("10 21\n").
Result<std::vector<unsigned>> parse_node_distance(std::string_view text);

}  // namespace tuner
