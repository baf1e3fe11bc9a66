// `tuner report --html FILE`: one self-contained page of a fleet's run reports, a
// picture of every verify decision (docs/html-report.md). At the top, node x group:
// what each node decided; below, per group, one card per node with the trials of both
// arms in the order run, the effect and its interval against zero and min_effect, the
// guards' counts per arm, the bisect's steps and the value search's screening.
// Inline SVG and CSS only: no script, nothing fetched (a Content-Security-Policy says
// so to the browser), and every string of a report is escaped (html_text).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "tuner/cli/report/fleet.h"
#include "tuner/verify/outcome.h"

namespace tuner {

/// One group of a run report, as the page shows it.
struct HtmlGroup {
  std::string name;
  std::string decision;  // "kept", "rolled_back", "applied", as the report says
  /// The verify loop's numbers; nullopt when it has none (applied without verification)
  /// or they could not be read (`problem` says why).
  std::optional<verify::GroupOutcome> outcome;
  std::string problem;
  /// Its settings with their before and after values and what became of each.
  std::vector<ChangeReport> changes;
};

/// One node's run: its groups, or why the run failed (tuner.failure/1).
struct HtmlRun {
  std::string node, time, run_id;
  std::vector<std::string> profiles;  // the chain, parents first
  std::string profile_digest;         // "" in reports before it was recorded
  bool failed = false;
  std::vector<HtmlGroup> groups;    // at most kMaxGroupsPerNode
  std::vector<std::string> errors;  // the run's errors, or the failure's msg
};

/// Reads a tuner.run/1 or tuner.failure/1 document for the page: a group whose stats
/// cannot be read still shows, with why. An Error for a document of another kind.
Result<HtmlRun> html_run_from_json(const nlohmann::json& doc, const std::string& node);

/// The page: the fleet table, then each group (in the order first seen) across the
/// nodes that have it.
std::string html_report(const std::vector<HtmlRun>& runs);

/// One node's card for one group (html_card.cc): its caption, plots, guards, bisect and
/// search. `anchor` is the card's id.
std::string html_group_card(const HtmlRun& run, const HtmlGroup& group, const std::string& anchor);

/// Reads in full the run reports and failures that the fleet summary counts (not the
/// duplicates it ignored, nor probes and statuses) and writes the page to `file` atomically
/// (base/atomic_file.h). An Error names the file that could not be read or written.
Status write_html_report(const std::string& file, const std::vector<NodeReport>& documents,
                         const FleetSummary& summary);

}  // namespace tuner
