// `tuner check` documents: the findings as text for a person and as tuner.check/1 JSON
// (DESIGN.md "JSON").
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tuner/check/finding.h"
#include "tuner/cli/report/term.h"

namespace tuner {

/// {"schema":"tuner.check/1","target","profile","window_s","worst","counts":{"info",
/// "warning","error"},"findings":[{"rule","severity","subject","summary","evidence":
/// [{"what","value"}],"fix"}],"skipped":[{"rule","why"}],"errors":[...]}.
nlohmann::ordered_json check_to_json(const CheckReport& report);

/// One block per finding, most severe first; then the rules that were not checked.
/// Probe errors are not in it: on a terminal they go to stderr.
std::string format_check(const CheckReport& report, const Term& term);

}  // namespace tuner
