// Earlier verdicts: what this node's own verify loop last decided about a plan's groups,
// read from the journals in the state dir. `apply` verifies every group again; from the
// same start, with the same benchmarks, a group it rolled back is rolled back again and
// the node ends as it was. `tuner plan` marks such a group (`rejected_here`), so that
// a prediction (the Ansible module's check mode) does not count it as a change.
#pragma once

#include <map>
#include <string>

#include "rollback/state_dir.h"
#include "tuner/plan/plan.h"
#include "tuner/verify/outcome.h"

namespace tuner::verify {

/// The newest decision of this node's verify loop on one group of a plan.
struct EarlierVerdict {
  std::string run_id, time;  // the apply run that decided, and when it began
  Reason outcome = Reason::harm;
};

/// For each group of plan: the newest finished apply run whose decision on a group of
/// that name was made on exactly the plan's changes (the same knobs, each from the
/// plan's current value to its desired one), when that decision was a rollback by the
/// node's own verify loop (not a class decision reused from canaries). Groups kept by
/// their newest such decision, never decided on these changes, or changed by something
/// else since, are absent: apply may write them. Runs whose journal cannot be read are
/// passed over (`tuner history` names them).
std::map<std::string, EarlierVerdict> rejected_here(const StateDir& dir, const Plan& plan);

}  // namespace tuner::verify
