// RunReport: what an apply, rollback or restore did, for people and for the
// tuner.run/1 JSON document (DESIGN.md "JSON"). Statuses and decisions are enums in
// the program; their names appear only in JSON and the journal.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/inventory_json.h"

namespace tuner {

/// What happened to one change.
enum class ChangeStatus {
  applied,         // written and read back
  skipped,         // the kernel refused it (a managed IRQ): never changed
  failed,          // the write failed: the run was rolled back
  restored,        // a rollback wrote its before value back
  rolled_back,     // applied, then put back (the run failed, or its group was rejected)
  restore_failed,  // applied, and putting it back failed
  not_applied,     // never written (its group was rolled back before, not measurable;
                   // or its write failed): a rollback has nothing to put back
  gone,            // its object no longer exists (an interface, IRQ, unit, cgroup or
                   // process): nothing to restore, and not a failure
  changed_since,   // someone else changed it after tuner wrote it: a rollback left it
                   // as it is (`rollback --force` restores it anyway)
};

/// What became of a group of changes.
enum class GroupDecision {
  applied,      // written without verification (--no-verify, restore)
  kept,         // verified: the benchmark proved a gain and no guard tripped
  rolled_back,  // put back: no proven gain, harm, a tripped guard, or a failure
};

/// How a run stands, from its journal.
enum class RunStatus {
  unfinished,       // no end record: crashed or still running, or a rollback started
  finished,         // ended normally
  rolled_back,      // everything it changed was put back
  rollback_failed,  // a rollback ran and could not restore everything
  abandoned,        // ended by `rollback --abandon`: its changes stay as they are
};

const char* change_status_name(ChangeStatus s);
/// The status a journal's rollback record names; nullopt for a name this version does
/// not know.
std::optional<ChangeStatus> parse_change_status(std::string_view name);
const char* group_decision_name(GroupDecision d);
/// The decision a journal's decision record names; nullopt for one this version does
/// not know.
std::optional<GroupDecision> parse_group_decision(std::string_view name);
const char* run_status_name(RunStatus s);
/// The run status an end record names; nullopt for a name this version does not know.
std::optional<RunStatus> parse_run_status(std::string_view name);

struct ChangeReport {
  std::string knob;
  std::optional<std::string> before;  // null when it could not be read
  std::string after;
  ChangeStatus status = ChangeStatus::applied;
  std::string error;  // why, for skipped and failed
};

struct GroupReport {
  std::string name;
  GroupDecision decision = GroupDecision::applied;
  std::vector<ChangeReport> changes;
  nlohmann::json stats = nlohmann::json::object();
};

/// One error or warning of a run: the whole one-line message as printed, and what it
/// is about where that is known, so that programs need not parse the text.
struct RunMessage {
  std::string message;  // names the knob or file:line itself, like the text report
  std::string knob;     // the knob it is about; empty when none
  std::string where;    // "file:line" of the journal record it is about; empty when none
};

// NOLINTNEXTLINE(bugprone-exception-escape): json's noexcept move, seen through its asserts
struct RunReport {
  std::string run_id;  // empty when no run was started (nothing to change)
  /// When the report was made, UTC "YYYY-MM-DDTHH:MM:SSZ" (journal.h utc_now), so that
  /// reports tell rollouts apart even when no run was started; the CLI sets it when
  /// printing. Empty: unknown (null in JSON).
  std::string time;
  bool changed = false;
  std::vector<std::string> profiles;
  /// The profile chain's digest (Profile::digest, "fnv1a64:..."), so that a report says
  /// which text of its profiles it ran; empty when not known (rollback, restore).
  std::string profile_digest;
  std::vector<GroupReport> groups;
  std::vector<RunMessage> errors;
  /// What a person should know that is not a failure: damaged journal records that
  /// were skipped ("file:line: why").
  std::vector<RunMessage> warnings;
  /// What the knobs noted (KnobNotes): things done or left undone on purpose ("takes
  /// effect when trainer.service next starts"), each once.
  std::vector<RunMessage> notes;
  /// The node's facts (node_facts_json of the probe the plan was made from), so that a
  /// fleet's reports can be compared (`tuner report`); empty when not known.
  NodeFacts node;
  /// The node's hardware class (hw_class_json: key and facts), so that `tuner report`
  /// groups a fleet by class; null when not known (no run, a restore).
  nlohmann::json hw_class;
};

/// {"message", "knob"?, "where"?}: the parts that are known, never empty strings.
nlohmann::json run_message_json(const RunMessage& m);

/// The tuner.run/1 document.
nlohmann::json run_report_json(const RunReport& r);

}  // namespace tuner
