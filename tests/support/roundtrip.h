// Test support: the property of issue #8, "plan, apply, plan gives nothing to do;
// rollback, plan gives the first plan again", driven through the real apply_plan
// (rollback/apply.h) and rollback_run (rollback/rollback.h) with knobs from a test's
// KnobFactory. Which machine (a fake one in a temp dir, or the live kernel in a private
// network namespace) is the caller's: `plan` probes it and plans each time it is asked.
#pragma once

#include <functional>
#include <string>

#include "rollback/apply.h"
#include "rollback/rollback.h"
#include "tuner/plan/plan.h"

namespace tuner::testing {

/// A plan as text to compare: one line per change (knob, group, current, desired,
/// reason), then the count of settings already in place and the notes.
inline std::string describe_plan(const Plan& p) {
  std::string out;
  for (const Change& c : p.changes)
    out += c.knob + " [" + c.group + "] " + c.current.value_or("(null)") + " -> " + c.desired +
           " | " + c.reason + "\n";
  out += "unchanged " + std::to_string(p.unchanged) + "\n";
  for (const std::string& n : p.notes) {
    // How many other network namespaces exist is the host's, not the plan's: tests
    // running beside this one create and remove namespaces between the plans.
    if (n.starts_with("net.* sysctls are per network namespace")) continue;
    out += "note: " + n + "\n";
  }
  return out;
}

/// The plans before apply, after apply and after rollback; error says which step could
/// not run ("" when all did).
struct RoundTrip {
  Plan first, after_apply, after_rollback;
  std::string error;
};

inline RoundTrip round_trip(const std::function<Result<Plan>()>& plan, const KnobFactory& make,
                            const std::string& state_dir) {
  RoundTrip rt;
  auto fail = [&rt](const std::string& step, const Error& e) {
    rt.error = step + ": " + e.message();
    return rt;
  };
  auto first = plan();
  if (!first.ok()) return fail("plan", first.error());
  rt.first = *first;
  auto dir = StateDir::open(state_dir, true);
  if (!dir.ok()) return fail("state dir", dir.error());
  auto applied = apply_plan(rt.first, *dir, make, {});
  if (!applied.ok()) return fail("apply", applied.error());
  if (applied->outcome != ApplyOutcome::applied) {
    std::string why;
    for (const RunMessage& e : applied->report.errors) why += (why.empty() ? "" : "; ") + e.message;
    rt.error = "apply did not apply: " + why;
    return rt;
  }
  for (const GroupReport& g : applied->report.groups)
    for (const ChangeReport& c : g.changes)
      if (c.status != ChangeStatus::applied) {
        rt.error = "apply: " + c.knob + " was " + change_status_name(c.status) + ": " + c.error;
        return rt;
      }
  auto again = plan();
  if (!again.ok()) return fail("plan after apply", again.error());
  rt.after_apply = *again;
  auto undone = rollback_run(*dir, applied->report.run_id, make);
  if (!undone.ok()) return fail("rollback", undone.error());
  if (!undone->errors.empty()) {
    rt.error = "rollback: " + undone->errors.front().message;
    return rt;
  }
  auto last = plan();
  if (!last.ok()) return fail("plan after rollback", last.error());
  rt.after_rollback = *last;
  return rt;
}

}  // namespace tuner::testing
