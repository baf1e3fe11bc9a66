// tuner.run/1 reports for people: one line per change, a verified group's numbers.
#pragma once

#include <string>

#include "rollback/run_report.h"
#include "tuner/cli/report/term.h"
#include "tuner/verify/outcome.h"

namespace tuner {

/// A verified group's numbers for people: benchmark medians, effect with interval, p,
/// trials, tripped guards, why it failed.
std::string format_group_stats(const verify::GroupOutcome& outcome, const Term& term);
/// Human-readable report: one line per change, with why for skipped and failed ones; a
/// verified group's numbers (its `stats`, read with verify::outcome_from_json).
std::string format_run_report(const RunReport& r, const Term& term);

}  // namespace tuner
