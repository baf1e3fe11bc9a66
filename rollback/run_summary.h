// RunSummary: how a run stands, from its journal alone (DESIGN.md "Durable state"):
// what `history` shows, and what `apply`, `rollback` and `status` decide on.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "rollback/journal.h"
#include "rollback/run_report.h"
#include "rollback/state_dir.h"

namespace tuner {

struct RunSummary {
  std::string run_id, time;
  std::optional<RunKind> kind;  // nullopt: its begin record is lost
  std::vector<std::string> profiles;
  RunStatus status = RunStatus::unfinished;
  /// intents: the knobs the run set out to change: each intent, and each knob a done or
  /// failed record names whose intent line was damaged.
  unsigned intents = 0, done = 0, failed = 0, skipped = 0, restored = 0;
  /// Knobs the last rollback found gone (their object no longer exists).
  unsigned gone = 0;
  /// Knobs the last rollback left as someone else had set them since the run
  /// (changed_since), and no later rollback restored: `rollback --force` restores them.
  std::vector<std::string> left;
  /// Damaged journal lines that were skipped, "file:line: why".
  std::vector<std::string> damaged;
  /// Why the journal could not be read at all (its status then says unfinished: it
  /// needs a person). Empty when it was read.
  std::string error;
  /// A run to undo before anything else may change the machine.
  bool unfinished() const {
    return status == RunStatus::unfinished || status == RunStatus::rollback_failed;
  }
};

RunSummary summarize_run(const std::string& run_id, const JournalText& journal);
/// Reads and summarises one run; a journal that cannot be read at all still gives a
/// summary, with `error` set, so `history` lists every run.
RunSummary read_run_summary(const StateDir& dir, const std::string& run_id);

/// Knobs whose latest rollback record left them changed_since (see RunSummary::left).
std::vector<std::string> left_knobs(const JournalText& journal);

/// The newest unfinished run, if any. Damaged records do not stop it; a journal that
/// cannot be read at all is an Error naming it and the way out.
Result<std::optional<RunSummary>> find_unfinished_run(const StateDir& dir);

}  // namespace tuner
