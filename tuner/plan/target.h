// What a read-only command looks at: the live machine, a captured root (--root DIR) or
// a hwloc XML export (--topology FILE.xml). The CLI builds one from its options
// (tuner/cli/target_options.h).
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "probes/inventory.h"
#include "probes/root.h"

namespace tuner {

struct Target {
  explicit Target(Root r, std::optional<std::string> xml = std::nullopt, std::string label = {})
      : root(std::move(r)), topology_xml(std::move(xml)), class_label(std::move(label)) {}

  Root root;
  std::optional<std::string> topology_xml;
  /// --class-label: the operator's own split of the hardware class (probes/hw_class.h).
  std::string class_label;
  /// True only for the machine we run on: the only one anything may be written to.
  bool writable() const { return root.is_live() && !topology_xml; }
};

/// Probes the target. An export that is not one (an empty file, /etc/passwd) is bad
/// input: throws FatalError(bad_input). Otherwise a failed probe is an entry in errors.
Inventory probe_target(const Target& target);

}  // namespace tuner
