// `tuner report FILE...`: one summary of a fleet's reports (tuner.run/1 from apply,
// tuner.probe/1, tuner.status/1, and the playbook's tuner.failure/1), as a playbook
// fetches them to the controller: why nodes failed, what each profile's nodes kept and
// rolled back, which kept settings drifted, and every fact (node_facts_json) on which
// the nodes differ, the nodes in the minority named, so that three nodes with an older
// BIOS stand out. docs/fleet-report.md shows it.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "tuner/cli/report/fleet_decisions.h"
#include "tuner/cli/report/term.h"

namespace tuner {

/// Bounds on what one document adds to the summary, so that memory and output stay
/// small whatever the reports hold (DESIGN.md "report"): a fact's name and value, a
/// group's name, an error and a knob id are cut at kMaxReportText bytes (marked "...
/// [truncated, N bytes]"); past kMaxFactsPerNode facts, kMaxGroupsPerNode groups,
/// kMaxErrorsPerNode errors and kMaxDriftPerNode drifted settings the rest of a
/// document's are left out (noted in `dropped`).
inline constexpr std::size_t kMaxReportText = 1024;
inline constexpr std::size_t kMaxFactsPerNode = 256;
inline constexpr std::size_t kMaxGroupsPerNode = 256;
inline constexpr std::size_t kMaxErrorsPerNode = 32;
inline constexpr std::size_t kMaxDriftPerNode = 256;
/// Canaries a reused group's stats.class_decision names: past this many, left out.
inline constexpr std::size_t kMaxCanariesPerGroup = 256;
/// All documents' facts together: past this many bytes, the facts of further documents
/// are left out (tuner report says so on stderr).
inline constexpr std::size_t kMaxFleetFactBytes = 64u << 20;

/// `text` cut to kMaxReportText bytes on a UTF-8 boundary, marked as truncated.
std::string bounded_text(std::string_view text);

/// One node's report, reduced to what the summary compares.
struct NodeReport {
  /// NODE of the playbook's NODE.run.json / NODE.probe.json / NODE.error.json /
  /// NODE.status.json (the inventory name), else the facts' hostname, else the file name.
  std::string node;
  std::string source;  // the file
  /// "run", "probe", "status", "check", "failure" (tuner.failure/1: the run failed) or
  /// "decision" (tuner.decision/1: a canary's verdicts, docs/fleet-decisions.md).
  std::string kind;
  /// When the document was made ("YYYY-MM-DDTHH:MM:SSZ", UTC) and the run it is about;
  /// empty when it does not say (reports of tuner before 2026-12, probes, statuses).
  std::string time, run_id;
  /// run: the profiles it applied, as named on the command line.
  std::vector<std::string> profiles;
  /// run: group name -> decision (kept, rolled_back, applied; not_written for a group a
  /// class decision kept from being written: stats.outcome class_rolled_back,
  /// class_disagree or class_undecided); failed runs have errors.
  std::map<std::string, std::string> decisions;
  std::vector<std::string> errors;
  /// failure: tuner's exit status as the playbook saw it; absent when it did not say.
  std::optional<int> rc;
  std::map<std::string, std::string> facts;  // unknown facts are absent
  /// run, probe, decision: the hardware class (`class`: key and facts); an empty key
  /// when the document has none (tuner before classes): the node's class is unknown.
  /// Shared: tuner report holds one copy of equal facts, however many nodes have them.
  std::string class_key;
  std::shared_ptr<const std::map<std::string, std::string>> class_facts;  // null: none
  /// run: the groups that reused a class decision (their stats.class_decision), and the
  /// class it names when the report names none itself (else empty).
  std::vector<std::string> reused;
  std::string reused_class;
  /// run: a reused group that the guard soak rolled back on this node
  /// (stats.class_decision.suspect, or decision rolled_back with stats.outcome guard):
  /// the class decision is suspect. Only these keep what the class decision said.
  struct Suspect {
    std::string group;
    std::string class_key;  // class_decision.class; empty: the node's own class
    std::string decision;   // what the class decided (kept)
    std::vector<std::string> canaries;
  };
  std::vector<Suspect> suspects;
  /// decision: the record itself.
  std::optional<DecisionRecord> record;
  /// status: the kept settings that drifted (its knobs[] with drift true).
  struct Drift {
    std::string knob, state;  // state: changed, gone or unreadable
  };
  std::vector<Drift> drift;
  std::string unfinished_run;  // status: the run that never ended, else empty
  /// check: its findings (tuner.check/1 findings[]: rule, severity, subject).
  struct Finding {
    std::string rule, severity, subject;
  };
  std::vector<Finding> findings;
  /// What the bounds left out of this document, for a warning ("300 facts past 256").
  std::vector<std::string> dropped;
};

/// Reads one document (tuner.run/1, tuner.probe/1, tuner.status/1, or tuner.failure/1:
/// {"schema", "node", "rc", "msg"}, what the playbook writes when tuner failed before
/// writing a run report); an Error says what is wrong with it, with the file's name.
Result<NodeReport> read_node_report(const nlohmann::json& doc, const std::string& file);

/// A fact's values across the fleet, most common first (ties: the value whose first
/// node comes first, so that the facts of one split list their values in one order).
struct FactSpread {
  std::string fact;
  struct Value {
    std::string value;  // "(unknown)" for nodes that do not report it
    std::vector<std::string> nodes;
  };
  std::vector<Value> values;
};

/// The nodes that share one outcome: the profiles they ran, the groups they kept,
/// rolled back, applied, and whether the run failed.
struct Outcome {
  std::vector<std::string> profiles;       // empty: none recorded (no run report)
  std::string kept, rolled_back, applied;  // comma-separated group names
  std::string not_written;  // groups a class decision did not write (apply --decisions)
  bool failed = false;
  std::vector<std::string> nodes;
};

/// Failed nodes with one exit status and one reason (the first error, with the node's
/// own name, run ids and pids replaced by <node>, <run_id>, <pid>).
struct Failure {
  std::optional<int> rc;  // absent: no tuner.failure/1 said
  std::string message;
  std::vector<std::string> nodes;
};

/// Nodes with one health finding (tuner.check/1): the same rule, severity and subject.
struct FindingSpread {
  std::string rule, severity, subject;
  std::vector<std::string> nodes;
};

/// Nodes on which one kept setting drifted the same way (tuner.status/1).
struct DriftSpread {
  std::string knob, state;
  std::vector<std::string> nodes;
};

/// A node with more than one document of a kind (two run reports: two rollouts' files in
/// one directory, or two directories), or a failure from another run than its run
/// report: the newest counts, the others are named, never merged.
struct Duplicate {
  std::string node;
  std::string used;                  // the file that counts
  std::vector<std::string> ignored;  // the files that do not
  std::string why;
};

/// The nodes of one hardware class and what their canaries decided for it.
struct ClassSummary {
  std::string key;
  std::map<std::string, std::string> facts;  // one document's (equal keys, equal facts)
  std::vector<std::string> nodes;            // sorted
  /// The facts on which this class differs from the largest class (most nodes), with
  /// the largest's value ("(absent)" where one lacks the fact); empty for the largest.
  struct Differs {
    std::string fact, value, largest;
  };
  std::vector<Differs> differs;
  /// Indexes into FleetSummary::class_decisions: its decisions, one per profile digest.
  std::vector<std::size_t> decisions;
  /// Nodes whose run reused a class decision for a group, and nodes whose run verified a
  /// group itself (kept or rolled back it without one); a node may be in both.
  std::vector<std::string> reused, verified;
  /// A reused decision that a guard soak found wrong on some nodes: the class decision
  /// on that group is suspect.
  struct Suspect {
    std::string group, decision;
    std::vector<std::string> canaries;  // as the first node's stats.class_decision says
    std::vector<std::string> nodes;     // where the guard tripped
  };
  std::vector<Suspect> suspects;
};

struct FleetSummary {
  std::size_t nodes = 0, runs = 0, probes = 0, statuses = 0, failed = 0, drifted = 0;
  std::size_t decision_records = 0;   // tuner.decision/1 documents
  std::size_t checks = 0;             // tuner.check/1 documents
  std::vector<Duplicate> duplicates;  // by node
  /// Files that could not be read as a tuner report ("FILE: why"): the caller's, named
  /// in the summary; the rest is still summarized.
  std::vector<std::string> skipped;
  std::vector<Failure> failures;        // most nodes first
  std::vector<Outcome> outcomes;        // by profiles (most nodes first), then most nodes first
  std::vector<DriftSpread> drift;       // most nodes first
  std::vector<FindingSpread> findings;  // by severity (error first), then most nodes first
  /// Nodes whose status names an unfinished run: node -> run id.
  std::map<std::string, std::string> unfinished;
  std::vector<FactSpread> differing;  // facts with more than one value; others are equal
  /// Facts that split the nodes into the same sets (a kernel and the NIC driver versions
  /// that came with it), as indexes into `differing`: one block each, in its order.
  std::vector<std::vector<std::size_t>> splits;
  std::map<std::string, std::string> common;  // facts equal on every node that has facts
  /// Nodes with no facts at all (only a status or a failure): not compared.
  std::vector<std::string> without_facts;
  /// The canaries' records merged per (class key, profile digest): tuner.decisions/1.
  std::vector<ClassDecision> class_decisions;
  /// Hardware classes, most nodes first; empty when no document names one.
  std::vector<ClassSummary> classes;
  /// Nodes with a run or probe report that names no class (tuner before classes).
  std::vector<std::string> without_class;
};

/// A failure's message with what differs from node to node for one cause replaced: the
/// node's own name (as a word) by <node>, run ids by <run_id>, "pid N" by "pid <pid>".
std::string failure_reason(std::string_view message, std::string_view node);

/// Documents of one node (same `node`) count as one node: its probe, run, status and
/// failure merged. Of several documents of one kind of one node the newest counts (by
/// time, then run id, then file name: never by the order given) and the node is listed
/// in `duplicates`; so is a failure that belongs to another run than the node's run
/// report. nodes, runs (nodes with a run or a failure), failed and drifted count nodes;
/// probes and statuses count documents.
FleetSummary summarize_fleet(const std::vector<NodeReport>& documents);
std::string format_fleet_text(const FleetSummary& s, const Term& t);
/// The tuner.fleet/1 document.
nlohmann::json fleet_json(const FleetSummary& s);

}  // namespace tuner
