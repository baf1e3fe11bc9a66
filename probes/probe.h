// Runs every probe and builds the Inventory.
#pragma once

#include <optional>
#include <string>

#include "probes/inventory.h"
#include "probes/root.h"

namespace tuner {

struct ProbeOptions {
  std::optional<std::string> topology_xml;  // --topology FILE.xml
  bool netlink = true;                      // only used on a live root
};

/// Probes root (live or captured). Never throws for a probe failure: it lands in
/// inventory.errors and the rest still reports.
Inventory probe_inventory(const Root& root, const ProbeOptions& options);

/// The sysctls `tuner probe` reports by default.
const std::vector<std::string>& default_probe_sysctls();

}  // namespace tuner
