// tuner.plan/1: the plan for tools (DESIGN.md "JSON").
#pragma once

#include <nlohmann/json.hpp>

#include "tuner/plan/plan.h"

namespace tuner {

/// Keys in the order shown: {"schema":"tuner.plan/1","profiles":[..],"changes":[{"knob","group","current",
/// "desired","reason"}],"unchanged":N,"unchanged_knobs":[knob ids],"notes":[..]}; an unknown current is null.
nlohmann::ordered_json plan_to_json(const Plan& plan);

}  // namespace tuner
