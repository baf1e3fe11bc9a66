// The fleet summary's hardware classes (docs/fleet-decisions.md): the nodes of each
// class, the facts that set it apart, the canaries' merged decisions, which nodes
// reused them, and the decisions a guard soak found suspect.
#pragma once

#include <string>
#include <vector>

#include "tuner/cli/report/fleet.h"

namespace tuner {

/// One node's documents that say its class: its run report and probe (the newest of
/// each) and its decision records.
struct ClassNode {
  std::string node;
  const NodeReport* run = nullptr;
  const NodeReport* probe = nullptr;
  std::vector<const NodeReport*> records;
};

/// Fills s.class_decisions (merge_decisions of every record; a node's older records
/// of one class go to s.duplicates), s.classes and s.without_class. A node's class is
/// its run report's, else its probe's, else its newest decision record's.
void summarize_classes(const std::vector<ClassNode>& nodes, FleetSummary& s);

/// The text's "classes" and "class decisions" sections; "" when no document names a
/// class.
std::string format_classes_text(const FleetSummary& s, const Term& t);

/// tuner.fleet/1 `classes`.
nlohmann::json classes_json(const FleetSummary& s);

/// "gpu-a01 kept (+6.1%)", "gpu-a02 rolled_back (no_gain)": one canary's verdict.
std::string canary_verdict(const MergedGroup::Canary& c);

}  // namespace tuner
