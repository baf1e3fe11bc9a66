// Apply: Plan -> journaled knob writes (DESIGN.md "Data flow", step 4). Every change is
// announced by an fsynced intent record before it is written and read back after, so
// the journal alone is enough to undo a run after a crash. The verify loop is not here:
// with --no-verify each group's decision is "applied".
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "rollback/run_report.h"
#include "rollback/state_dir.h"
#include "tuner/knobs/knob.h"
#include "tuner/plan/plan.h"

namespace tuner {

/// Builds a knob from its id (make_knob with a KnobContext, or a fake in tests).
using KnobFactory = std::function<Result<std::unique_ptr<Knob>>(const std::string& id)>;

struct ApplyOptions {
  std::string kind = "apply";   // journaled in begin: "apply" or "restore"
  bool record_state = true;     // restore re-applies state.json and leaves it as it is
  /// Test hook TUNER_FAULT_AFTER_WRITES: SIGKILL right after this many knob writes,
  /// before they are recorded as done. 0 = off.
  long fault_after_writes = 0;
};

enum class ApplyOutcome {
  nothing_to_change,  // every change was already in place: no run, no journal
  applied,            // all groups applied (some changes may be skipped: refused)
  rolled_back,        // a write failed: everything this run wrote was put back
};

struct ApplyResult {
  ApplyOutcome outcome = ApplyOutcome::nothing_to_change;
  RunReport report;
};

/// Applies plan, group by group in plan order. Before anything is written each knob is
/// built, its desired value made canonical and its current value read; any failure
/// there is an Error and nothing is changed. A write the kernel refuses (Error::refused)
/// is skipped and reported; any other write error rolls back the whole run.
Result<ApplyResult> apply_plan(const Plan& plan, const StateDir& dir, const KnobFactory& make,
                               const ApplyOptions& options);

/// TUNER_FAULT_AFTER_WRITES from the environment (0 when unset); bad text is an error.
Result<long> fault_after_writes_from_env();

}  // namespace tuner
