// Apply: Plan -> journaled knob writes (DESIGN.md "Data flow", step 4), as one run of
// the write-ahead protocol whose reader is rollback.h. Every change is announced by an
// fsynced intent record before it is written and read back after, so the journal
// alone is enough to undo a run after a crash.
//
// ApplyRun exposes the protocol's steps (prepare, begin, write a group, undo it, decide,
// finish, abort) so that the verify loop can drive them group by group; apply_plan is
// the unverified driver (--no-verify and restore): every group is "applied".
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "rollback/journal.h"
#include "rollback/rollback.h"
#include "rollback/run_report.h"
#include "rollback/state.h"
#include "rollback/state_dir.h"
#include "tuner/knobs/knob.h"
#include "tuner/plan/plan.h"

namespace tuner {

struct ApplyOptions {
  RunKind kind = RunKind::apply;  // journaled in begin
  bool record_state = true;       // restore re-applies state.json and leaves it as it is
  /// Test hook TUNER_FAULT_AFTER_WRITES: SIGKILL right after this many knob writes
  /// (every write counts: apply, the verify loop's flips and undos), before they are
  /// recorded. 0 = off.
  long fault_after_writes = 0;
  /// Test hook TUNER_FAULT_AFTER_DECISIONS: SIGKILL right after this many group
  /// decisions are journaled. 0 = off.
  long fault_after_decisions = 0;
};

enum class ApplyOutcome {
  nothing_to_change,  // every change was already in place: no run, no journal
  applied,            // all groups applied (some changes may be skipped: refused)
  rolled_back,        // a write failed: everything this run wrote was put back
};

// NOLINTNEXTLINE(bugprone-exception-escape): json's noexcept move, seen through its asserts
struct ApplyResult {
  ApplyOutcome outcome = ApplyOutcome::nothing_to_change;
  RunReport report;
};

/// One run of the write-ahead protocol.
class ApplyRun {
 public:
  /// Builds every knob, makes each desired value canonical and reads each current
  /// value; any failure is an Error and nothing is changed (no journal yet). Changes
  /// already in place are dropped.
  static Result<ApplyRun> prepare(const Plan& plan, const StateDir& dir, KnobFactory make,
                                  ApplyOptions options);
  ApplyRun(ApplyRun&& other) noexcept;
  ApplyRun& operator=(ApplyRun&& other) noexcept;
  ~ApplyRun();

  /// Nothing to change: no journal is needed.
  bool empty() const;
  /// Group names in plan order (a group is a run of consecutive changes).
  std::vector<std::string> groups() const;
  /// The knob ids of a group, in plan order.
  std::vector<std::string> knobs_of(const std::string& group) const;

  /// Creates the journal and its begin record (durable with the first intents).
  Status begin();
  /// Makes every intent of the group durable, then writes each change and reads it
  /// back. A write the kernel refuses (ErrorKind::refused) is skipped and reported;
  /// any other failure is returned and the caller must abort().
  Status write_group(const std::string& group);
  /// The knobs of a group that write_group changed (a refused write is not among them).
  std::vector<std::string> written_knobs(const std::string& group) const;
  /// Puts exactly `live` of the group's written knobs at their after values and the
  /// others back at their before values, writing only what differs: before values
  /// first, newest first (a refused one tried again after the others), then after
  /// values in plan order. Journals nothing: the
  /// intents already say what to restore, so a crash at any point leaves a journal
  /// that rollback undoes. (The verify loop's arms, and a bisect's subsets.)
  Status set_live(const std::string& group, const std::vector<std::string>& live);
  /// A value search: `knob`'s after value becomes `after`. An fsynced intent record
  /// (before: the value the run found) comes first, so the journal lists every
  /// candidate written and a crash at any point leaves a journal that rollback undoes;
  /// a live knob is written now and read back (a done record). The knob must have been
  /// written by write_group, or refused by the kernel there (a search's first candidate:
  /// then only its after value changes; write_refused writes it).
  Status retarget(const std::string& knob, const std::string& after);
  /// The group's knobs the kernel refused in write_group, written again at their after
  /// values (retargeted since: a search's next candidate), each under a fresh intent;
  /// their changes become applied. A refusal again is an Error of kind refused, the knob
  /// still unwritten. (The verify loop's value search.)
  Status write_refused(const std::string& group);
  /// set_live(group, {}): the baseline arm, or a rejected group.
  Status undo_group(const std::string& group);
  /// set_live(group, written_knobs(group)): the candidate arm after an undo.
  Status redo_group(const std::string& group);
  /// Journals the group's decision with its numbers. A kept or applied group's live
  /// knobs go into state.json; its written knobs that are not live (a bisect put them
  /// back) are reported rolled back. A rolled-back group must have been undone first.
  Status decide(const std::string& group, GroupDecision decision, const nlohmann::json& stats);
  /// Ends the run (end {finished}) and returns its report.
  Result<RunReport> finish();
  /// A failure: puts back everything this run wrote, from the journal as a crash would,
  /// and returns the report with every change marked rolled back or restore_failed (or
  /// gone, changed_since: see rollback_run). A change that was never written stays
  /// failed or skipped: nothing of it is "restored".
  RunReport abort();

  RunReport& report();
  const StateDir& dir() const;

  /// The whole run: begin(), then `step` on every group in plan order (or in `order`,
  /// which must name every group once: the verify loop decides gain-only groups first),
  /// then finish(). The report lists the groups in plan order either way. The first step
  /// that fails aborts the run (everything put back): outcome rolled_back, its error
  /// first in the report. An Error only when nothing changed.
  Result<ApplyResult> drive(const std::function<Status(const std::string& group)>& step,
                            const std::vector<std::string>& order = {});

 private:
  struct Impl;
  explicit ApplyRun(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Applies plan without verification, group by group in plan order: each group's
/// decision is "applied". Before anything is written each knob is built, its desired
/// value made canonical and its current value read; any failure there is an Error and
/// nothing is changed. A refused write is skipped and reported; any other write error
/// rolls back the whole run.
Result<ApplyResult> apply_plan(const Plan& plan, const StateDir& dir, const KnobFactory& make,
                               const ApplyOptions& options);

/// TUNER_FAULT_AFTER_WRITES from the environment (0 when unset); bad text is an error.
Result<long> fault_after_writes_from_env();
/// TUNER_FAULT_AFTER_DECISIONS from the environment (0 when unset).
Result<long> fault_after_decisions_from_env();

}  // namespace tuner
