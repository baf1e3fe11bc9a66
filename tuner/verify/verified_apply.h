// apply with verification: the verify loop's driver of ApplyRun (rollback/apply.h), as
// apply_plan is the unverified one. Benchmarks are built and checked before anything is
// changed; then each group is written, measured against its baseline and kept or put
// back, in plan order.
#pragma once

#include <string>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "probes/inventory.h"
#include "probes/root.h"
#include "rollback/apply.h"
#include "tuner/profile/profile.h"
#include "tuner/verify/loop.h"

namespace tuner::verify {

struct VerifiedApplyOptions {
  ApplyOptions apply;
  LoopOptions loop;                         // the profile's [verify] is laid over it
  std::vector<std::string> bench_override;  // apply --bench NAME...
};

/// The loop's options from a profile's [verify]: min_effect, false_keep_rate,
/// max_trials, guards (over the defaults in o); guards watch the inventory's physical NICs and
/// every NIC the plan changes.
LoopOptions loop_options(const Profile& profile, const Inventory& inventory, const Plan& plan,
                         LoopOptions o);

/// Applies plan with verification. Errors before any change (a knob that cannot be built
/// or read, a benchmark that cannot run here) are returned as an Error; failures after
/// (a knob write) roll the whole run back, as apply_plan does: outcome rolled_back.
Result<ApplyResult> apply_verified(const Plan& plan, const Profile& profile,
                                   const Inventory& inventory, const StateDir& dir,
                                   const KnobFactory& make, const Root& root, Clock& clock,
                                   const VerifiedApplyOptions& options, ProgressFn progress = {});

}  // namespace tuner::verify
