// `tuner report FILE...`: one summary of a fleet's reports (tuner.run/1 from apply,
// or tuner.probe/1), as a playbook fetches them to the controller: what each node kept
// and rolled back, and every fact (node_facts_json) on which the nodes differ, the
// nodes in the minority named, so that three nodes with an older BIOS stand out.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "tuner/cli/report/term.h"

namespace tuner {

/// Bounds on what one document adds to the summary, so that memory and output stay
/// small whatever the reports hold (README "Fleet reports"): a fact's name and value,
/// a group's name and an error are cut at kMaxReportText bytes (marked "...
/// [truncated, N bytes]"); past kMaxFactsPerNode facts, kMaxGroupsPerNode groups and
/// kMaxErrorsPerNode errors the rest of a document's are left out (noted in `dropped`).
inline constexpr std::size_t kMaxReportText = 1024;
inline constexpr std::size_t kMaxFactsPerNode = 256;
inline constexpr std::size_t kMaxGroupsPerNode = 256;
inline constexpr std::size_t kMaxErrorsPerNode = 32;
/// All documents' facts together: past this many bytes, the facts of further documents
/// are left out (tuner report says so on stderr).
inline constexpr std::size_t kMaxFleetFactBytes = 64u << 20;

/// `text` cut to kMaxReportText bytes on a UTF-8 boundary, marked as truncated.
std::string bounded_text(std::string_view text);

/// One node's report, reduced to what the summary compares.
struct NodeReport {
  /// NODE of the playbook's NODE.run.json / NODE.probe.json / NODE.error.json (the
  /// inventory name), else the facts' hostname, else the file name.
  std::string node;
  std::string source;  // the file
  std::string kind;    // "run", "probe" or "failure" (tuner.failure/1: the run failed)
  /// When the document was made ("YYYY-MM-DDTHH:MM:SSZ", UTC) and the run it is about;
  /// empty when it does not say (reports of tuner before 2026-12, probes).
  std::string time, run_id;
  /// run: group name -> decision (kept, rolled_back, applied); failed runs have errors.
  std::map<std::string, std::string> decisions;
  std::vector<std::string> errors;
  std::map<std::string, std::string> facts;  // unknown facts are absent
  /// What the bounds left out of this document, for a warning ("300 facts past 256").
  std::vector<std::string> dropped;
};

/// Reads one document (tuner.run/1, tuner.probe/1, or tuner.failure/1: {"schema",
/// "node", "rc", "msg"}, what the playbook writes when tuner failed before writing a run
/// report); an Error says what is wrong with it, with the file's name.
Result<NodeReport> read_node_report(const nlohmann::json& doc, const std::string& file);

/// A fact's values across the fleet, most common first; nodes listed for all but the
/// most common (the majority need no names).
struct FactSpread {
  std::string fact;
  struct Value {
    std::string value;  // "(unknown)" for nodes that do not report it
    std::vector<std::string> nodes;
  };
  std::vector<Value> values;
};

/// The nodes that share one outcome: the groups they kept, rolled back, applied, and
/// whether the run failed.
struct Outcome {
  std::string kept, rolled_back, applied;  // comma-separated group names
  bool failed = false;
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

struct FleetSummary {
  std::size_t nodes = 0, runs = 0, probes = 0, failed = 0;
  std::vector<Duplicate> duplicates;  // by node
  /// Files that could not be read as a tuner report ("FILE: why"): the caller's, named
  /// in the summary; the rest is still summarized.
  std::vector<std::string> skipped;
  std::vector<Outcome> outcomes;              // most common first
  std::vector<FactSpread> differing;          // facts with more than one value; others are equal
  std::map<std::string, std::string> common;  // facts equal on every node
};

/// Documents of one node (same `node`) count as one node: its probe, run and failure
/// merged. Of several runs (or failures, or probes) of one node the newest counts (by
/// time, then run id, then file name: never by the order given) and the node is listed
/// in `duplicates`; so is a failure that belongs to another run than the node's run
/// report. nodes, runs (nodes with a run or a failure) and failed count nodes; probes
/// counts probe documents.
FleetSummary summarize_fleet(const std::vector<NodeReport>& documents);
std::string format_fleet_text(const FleetSummary& s, const Term& t);
/// The tuner.fleet/1 document.
nlohmann::json fleet_json(const FleetSummary& s);

}  // namespace tuner
