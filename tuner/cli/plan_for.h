// The step `plan` and `apply` share: choose the profiles (named, or the best match),
// load and merge them, probe the target and plan. Bad profiles or impossible requests
// are usage errors (exit 2): nothing has been changed yet.
#pragma once

#include <string>
#include <vector>

#include "tuner/cli/cli.h"
#include "tuner/plan/plan.h"
#include "tuner/plan/target.h"

namespace tuner {

/// Plans `names` (merged, later wins; empty = the best-matching profile) for target.
Plan plan_for(const GlobalOptions& g, const std::vector<std::string>& names, const Target& target);

}  // namespace tuner
