// The plan as a diff a reviewer reads in seconds.
#pragma once

#include <string>

#include "tuner/cli/report/term.h"
#include "tuner/plan/plan.h"

namespace tuner {

/// Header, one block per group ("  ~ knob", "    - current", "    + desired", the
/// reason dimmed), a summary line, then notes. Colour only when term has it.
std::string format_plan(const Plan& plan, const Term& term);

}  // namespace tuner
