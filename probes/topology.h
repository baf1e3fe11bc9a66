// Topology probe (hwloc): packages, NUMA nodes, cores, PUs, caches, PCI devices with
// their NUMA locality and OS device names.
#pragma once

#include <optional>
#include <string>

#include "base/result.h"
#include "probes/inventory.h"
#include "probes/root.h"

namespace tuner {

/// Loads the topology of the live machine, of a captured tree (root.dir() != "/",
/// through HWLOC_FSROOT semantics), or of a hwloc XML export when xml_file is set.
/// source says which ("live", "root:DIR", "xml:FILE"). Node memory and distances are
/// hwloc's; probe_numa refines them. Errors name the file or root and errno text. The
/// process environment is left as it was (HWLOC_* are set only during the load).
Result<Topology> probe_topology(const Root& root, const std::optional<std::string>& xml_file);

}  // namespace tuner
