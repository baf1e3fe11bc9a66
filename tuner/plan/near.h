// "Near": which NUMA node a device is attached to, from the Inventory. The one
// resolver of device names: `tuner exec --near DEVICE` and [[numa.bind]] near = "..."
// in profiles both ask it, so they agree on every name and on the fallbacks.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/cpuset.h"
#include "base/result.h"
#include "probes/inventory.h"
#include "probes/root.h"

namespace tuner {

struct Near {
  std::string device;              // as given
  std::optional<unsigned> node;    // nullopt: the device is known but has no NUMA locality
  CpuSet cpus;                     // the node's CPUs (empty without a node)
  std::string how;                 // "eth0 is PCI 0000:3b:00.0 on node 1"
  std::optional<std::string> pci;  // the PCI device it resolved through, if any
  bool only_node = false;          // no locality of its own: the machine's single node
};

/// How an unknown device is reported: listing every known name (for a person at
/// `exec --near`), or as the one reason (a profile error already says where).
enum class NearErrors { list_known, short_reason };

/// Resolves DEVICE: "node:N", "gpuN" (N-th GPU in PCI order), a PCI address
/// ("0000:3b:00.0", "3b:00.0", nvidia-smi's "00000000:3B:00.0"), a network interface,
/// or another OS device name of a PCI device ("mlx5_0", "nvme0n1"). A device without locality on a machine with a
/// single NUMA node is on that node. An unknown device is an Error (where = device)
/// listing the known ones, or with short_reason saying only why ("this machine has 2
/// GPUs").
Result<Near> resolve_near(const Inventory& inv, const std::string& device,
                          NearErrors errors = NearErrors::list_known);

/// "3B:00.0", "0000:3b:00.0" or nvidia-smi's "00000000:3B:00.0" -> "0000:3b:00.0";
/// nullopt when it is not a PCI address.
std::optional<std::string> normalize_pci(std::string_view s);

/// Every name resolve_near accepts for this inventory, sorted.
std::vector<std::string> known_devices(const Inventory& inv);

/// Fills inv.topology.numa_nodes from sys/devices/system/node (online, nodeN/cpulist)
/// when the topology probe left it empty; returns true when it added any.
bool fill_nodes_from_sysfs(const Root& root, Inventory& inv);

}  // namespace tuner
