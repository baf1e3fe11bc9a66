// Rollback: puts back what a run changed, from its journal alone, in any process
// (DESIGN.md "Rollback"). The knobs themselves live in tuner/knobs; the engine gets a
// KnobFactory so it can be tested with a fake machine that records what was done.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "rollback/journal.h"
#include "rollback/run_report.h"
#include "rollback/run_summary.h"
#include "rollback/state_dir.h"
#include "tuner/knobs/knob.h"

namespace tuner {

/// Builds a knob from its id (make_knob with a KnobContext, or a fake in tests).
using KnobFactory = std::function<Result<std::unique_ptr<Knob>>(const std::string& id)>;

/// One knob to put back: the before of its first intent in the run, ordered newest
/// change first.
struct RestoreStep {
  std::string knob, group;
  std::string value;    // what to write back
  std::string changed;  // what the run set it to (its last intent's after)
  /// Every value this run wrote or read back after writing: a live value among them is
  /// still tuner's; any other was set by someone else since.
  std::vector<std::string> run_values;
  bool written = false;  // a done record says the write happened
  /// The journal lost its before-value (its intent record is damaged): never guessed,
  /// never written; `lost` says where.
  std::string lost;
};
std::vector<RestoreStep> restore_steps(const JournalText& journal);

struct RollbackOptions {
  /// Restore knobs someone else changed since the run wrote them, too; on a run
  /// already rolled back, restore the knobs its rollback left (RunSummary::left).
  bool force = false;
};

/// Rolls back run_id: appends rollback_begin, then for each step reads the live value:
/// equal to the before-value, nothing is written (restored, or not_applied when the
/// run never wrote it); a value this run did not write is left as it is
/// (changed_since) unless options.force; a knob whose object is gone is reported gone.
/// Otherwise the before-value is written. Appends a rollback record per knob and end
/// {rolled_back | rollback_failed}; only a failed write that a retry could mend makes
/// it rollback_failed. Knobs no longer tuner's are removed from state.json. A restore
/// the kernel refuses (Error::refused) is tried once more after all the others, since
/// another knob's run value may be what it refuses (intel_pstate's energy preference
/// under the performance governor). Damaged journal records are skipped and reported
/// (RunReport::warnings). Refuses a run already rolled back (unless force and knobs
/// were left) or abandoned.
Result<RunReport> rollback_run(const StateDir& dir, const std::string& run_id,
                               const KnobFactory& make, const RollbackOptions& options = {});

/// Marks an unfinished run abandoned (end {abandoned}): its changes stay as they are.
/// Works on a journal with damaged records too.
Status abandon_run(const StateDir& dir, const std::string& run_id);

}  // namespace tuner
