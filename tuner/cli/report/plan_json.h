// tuner.plan/1: the plan for tools (DESIGN.md "JSON").
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "tuner/plan/plan.h"
#include "tuner/verify/earlier_verdicts.h"
#include "tuner/verify/verified_apply.h"

namespace tuner {

/// Keys in the order shown: {"schema":"tuner.plan/1","profiles":[..],"changes":[{"knob","group","current",
/// "desired","reason"}],"unchanged":N,"unchanged_knobs":[knob ids],"notes":[..]}; an unknown current is null.
nlohmann::ordered_json plan_to_json(const Plan& plan);

/// What `plan --decisions` adds: the class the node is of, the file, and per group what
/// the run will do with the class's decision (verify::class_action).
struct PlanClassActions {
  std::string file, class_key;
  bool found = false;  // the file has a decision for this class and these profiles
  bool require_decision = false;
  std::map<std::string, verify::ClassAction> groups;
};

/// plan_to_json, and a top-level "class_decisions" {file, class, found,
/// require_decision} with each group's "class_decision" {decision, action, why}.
nlohmann::ordered_json plan_to_json(const Plan& plan, const PlanClassActions& actions);

/// For the text plan: "Class decisions (FILE, class hw-...): ..." one line per group.
std::string class_actions_text(const PlanClassActions& actions);

/// Sets every group's "rejected_here" in a tuner.plan/1 document: {run_id, time,
/// outcome} of this node's verify loop rolling back exactly its planned changes
/// (verify::rejected_here), else null.
void add_rejected_here(nlohmann::ordered_json& plan,
                       const std::map<std::string, verify::EarlierVerdict>& rejected);

/// For the text plan: one line per group rejected here before; empty when none.
std::string rejected_here_text(const std::map<std::string, verify::EarlierVerdict>& rejected);

}  // namespace tuner
