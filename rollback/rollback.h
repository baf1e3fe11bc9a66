// Rollback: puts back what a run changed, from its journal alone, in any process
// (DESIGN.md "Rollback"). The knobs themselves live in tuner/knobs; the engine gets a
// RestoreFn so it can be tested with a fake that records what it was asked to do.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "rollback/journal.h"
#include "rollback/run_report.h"
#include "rollback/state_dir.h"

namespace tuner {

/// What `history` shows and what `apply`/`rollback` decide on.
struct RunSummary {
  std::string run_id, kind, time;
  std::vector<std::string> profiles;
  RunStatus status = RunStatus::unfinished;
  unsigned intents = 0, done = 0, failed = 0, skipped = 0, restored = 0;
  /// A run to undo before anything else may change the machine.
  bool unfinished() const {
    return status == RunStatus::unfinished || status == RunStatus::rollback_failed;
  }
};

RunSummary summarize_run(const std::string& run_id, const JournalText& journal);

/// One knob to put back: the before of its first intent in the run, ordered newest
/// change first.
struct RestoreStep {
  std::string knob, group;
  std::string value;    // what to write back
  std::string changed;  // what the run set it to (its last intent's after)
};
std::vector<RestoreStep> restore_steps(const JournalText& journal);

/// Writes value to the knob (and reads back). Rebuilt from the id by the caller.
using RestoreFn = std::function<Status(const std::string& knob, const std::string& value)>;

/// Rolls back run_id: appends rollback_begin, restores every step through restore,
/// appends a rollback record per knob and end {rolled_back | rollback_failed}, and
/// removes restored knobs this run had set from state.json. A failure to restore one
/// knob does not stop the others; it is reported with why. A restore the kernel
/// refuses (Error::refused) is tried once more after all the others, since another
/// knob's run value may be what it refuses (intel_pstate's energy preference under the
/// performance governor). Refuses a run that is already rolled back or abandoned.
Result<RunReport> rollback_run(const StateDir& dir, const std::string& run_id,
                               const RestoreFn& restore);

/// Marks an unfinished run abandoned (end {abandoned}): its changes stay as they are.
Status abandon_run(const StateDir& dir, const std::string& run_id);

/// The newest unfinished run, if any.
Result<std::optional<RunSummary>> find_unfinished_run(const StateDir& dir);

}  // namespace tuner
