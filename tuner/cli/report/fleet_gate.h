// `tuner report --fail-on failed|drift`: the fleet summary as a CI gate.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "tuner/cli/report/fleet.h"

namespace tuner {

/// What the gate fails on; neither (the default): the summary always exits 0.
struct FleetGate {
  bool failed = false;  // a node's run failed
  bool drift = false;   // a node's kept setting drifted, or its run is unfinished
};

/// --fail-on's values, each "failed" or "drift" or a comma list of them; an Error names
/// a word it does not know.
Result<FleetGate> parse_fleet_gate(const std::vector<std::string>& values);

/// The exit status and why, for stderr ("3 nodes failed").
struct FleetVerdict {
  int exit = 0;
  std::string why;
};

/// The exit status of `tuner report` under the gate, each the status the node's own
/// tuner gives: 1 when `failed` is asked and a node failed (apply: rolled back); else,
/// with `drift`, 4 when a node's status names an unfinished run and 3 when a kept setting
/// drifted (tuner status); else 0.
FleetVerdict fleet_verdict(const FleetSummary& s, const FleetGate& gate);

}  // namespace tuner
