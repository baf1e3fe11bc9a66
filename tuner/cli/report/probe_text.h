// The human-readable summary of `tuner probe`.
#pragma once

#include <string>

#include "probes/inventory.h"
#include "tuner/cli/report/term.h"

namespace tuner {

std::string format_probe_report(const Inventory& inv, const Term& term);
/// What the probes could not read, one "tuner: warning: PROBE: MESSAGE" line each: for
/// stderr, so that stdout holds the report alone.
std::string format_probe_warnings(const Inventory& inv, const Term& term);

}  // namespace tuner
