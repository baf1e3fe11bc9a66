// NUMA probe: node memory total/free and the distance matrix. libnuma on the live
// machine; /sys/devices/system/node under a captured root.
#pragma once

#include <vector>

#include "probes/inventory.h"
#include "probes/root.h"

namespace tuner {

/// Fills memory_bytes, free_bytes and distances of topo.numa_nodes; adds to errors
/// what it could not read.
void probe_numa(const Root& root, Topology& topo, std::vector<ProbeError>& errors);

}  // namespace tuner
