// "Near": which NUMA node a device is attached to, from the Inventory. Used by
// `tuner exec --near DEVICE` and by [[numa.bind]] near = "..." in profiles.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/cpuset.h"
#include "base/result.h"
#include "probes/inventory.h"
#include "probes/root.h"

namespace tuner {

struct Near {
  std::string device;           // as given
  std::optional<unsigned> node; // nullopt: the device is known but has no NUMA locality
  CpuSet cpus;                  // the node's CPUs (empty without a node)
  std::string how;              // "eth0 is PCI 0000:3b:00.0 on node 1"
};

/// Resolves DEVICE: "node:N", "gpuN" (N-th GPU in PCI order), a PCI address
/// ("0000:3b:00.0" or "3b:00.0"), a network interface, or another OS device name of a
/// PCI device ("mlx5_0", "nvme0n1"). A device without locality on a machine with a
/// single NUMA node is on that node. An unknown device is an Error listing the known
/// ones.
Result<Near> resolve_near(const Inventory& inv, const std::string& device);

/// Every name resolve_near accepts for this inventory, sorted.
std::vector<std::string> known_devices(const Inventory& inv);

/// Fills inv.topology.numa_nodes from sys/devices/system/node (online, nodeN/cpulist)
/// when the topology probe left it empty; returns true when it added any.
bool fill_nodes_from_sysfs(const Root& root, Inventory& inv);

}  // namespace tuner
