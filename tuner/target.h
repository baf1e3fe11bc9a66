// What a read-only command looks at: the live machine, a captured root (--root DIR) or
// a hwloc XML export (--topology FILE.xml).
#pragma once

#include <optional>
#include <string>

#include <boost/program_options.hpp>

#include "probes/inventory.h"
#include "probes/root.h"

namespace tuner {

struct Target {
  Root root;
  std::optional<std::string> topology_xml;
  /// True only for the machine we run on: the only one anything may be written to.
  bool writable() const { return root.is_live() && !topology_xml; }
};

/// Adds --root and --topology to a command's options.
void add_target_options(boost::program_options::options_description& desc);
/// Opens the target the options name; bad paths are usage errors (exit 2).
Target open_target(const boost::program_options::variables_map& vm);
/// Probes the target.
Inventory probe_target(const Target& target);

}  // namespace tuner
