// The fleet summary's comparison of node facts: what is equal on every node, what
// differs, and which facts split the nodes into the same sets.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tuner/cli/report/fleet.h"

namespace tuner {

/// One node's facts as its documents hold them, the document that counts first (a run
/// report's over its probe's): views of the documents, so that a fleet's facts are held
/// once.
struct NodeFactSources {
  std::string node;
  std::vector<const std::map<std::string, std::string>*> sources;
};

/// Fills s.common, s.differing, s.splits and s.without_facts from each node's facts, in
/// node order. `hostname` is not compared (it names the node). Only nodes with facts are
/// compared; among them, one that does not report a fact has "(unknown)".
void compare_facts(const std::vector<NodeFactSources>& nodes, FleetSummary& s);

}  // namespace tuner
