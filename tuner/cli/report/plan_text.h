// The plan as a diff a reviewer reads in seconds.
#pragma once

#include <string>

#include "tuner/cli/report/term.h"
#include "tuner/plan/plan.h"

namespace tuner {

/// Header, one block per group ("  ~ knob", "    - current", "    + desired", the
/// reason dimmed), a summary line, then notes. Three or more changes of a group that
/// differ only in their knob's number (a setting per CPU or cpufreq policy) are one
/// entry: "  ~ cpu:N:resume_latency  for N in 0-383 (384 knobs)". Colour only when
/// term has it; --json lists every change.
std::string format_plan(const Plan& plan, const Term& term);

}  // namespace tuner
