// The human-readable summary of `tuner probe`.
#pragma once

#include <string>

#include "probes/inventory.h"
#include "tuner/cli/report/term.h"

namespace tuner {

std::string format_probe_report(const Inventory& inv, const Term& term);

}  // namespace tuner
