// What became of a group of a run report, in words, for the text and the HTML report
// alike (issue 44): why it was kept or not, a run failure's rollback as such, a write
// the kernel refused as refused, a partly kept group's two parts with each one's
// effect, a guard with the bound it was tested against. Plain text, not escaped: each
// renderer escapes it as its medium needs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rollback/run_report.h"
#include "tuner/verify/outcome.h"

namespace tuner {

/// A reason in words: "the gain is proven", "proven worse", ...
const char* reason_words(verify::Reason r);

/// A change's status in words: "applied", "refused by the kernel", "write failed", ...
const char* change_status_words(ChangeStatus s);

/// "sysctl:net.ipv4.tcp_rmem 4096 131072 6291456 -> 4096 131072 16777216" ("?" for an
/// unknown before value).
std::string change_line(const ChangeReport& c);

/// One part of a partly kept group: its knobs, and what they did alone (nullopt for a
/// part with a soak instead of numbers, or none measured).
struct GroupPart {
  std::vector<std::string> knobs;
  std::string outcome;  // the part's outcome name ("gain", "harm", "guard")
  std::optional<verify::BenchStats> measured;
};

/// A partly kept group (verify::Reason::partly_kept) split as its bisect split it: the
/// rest, kept, and the knobs that hurt, rolled back, each with what it did alone; both
/// empty when the bisect says neither.
struct PartlyKept {
  GroupPart kept, rolled_back;
};
PartlyKept partly_kept_parts(const verify::GroupOutcome& o);

/// Why the group ended as it did, one sentence: "kept: the gain is proven", "rolled
/// back: the run failed before this group was decided", "not written: the kernel
/// refused sysctl:x (Permission denied)", "partly kept: ...". `decision` is the
/// report's (a run failure overrides the verify loop's); `outcome` null when the group
/// has no numbers; `run_failed` when the run has errors.
std::string group_why(GroupDecision decision, const verify::GroupOutcome* outcome,
                      const std::vector<ChangeReport>& changes, bool run_failed);

/// A guard's test: "0.02% -> 0.40%, tested against 0.24% (limit +2.00% over the
/// baseline, or 2 x it + 0.20%)"; without a recorded bound (older reports) the limit.
std::string guard_bound_text(const verify::GuardResult& g);

/// The profile chain and its digest: "net-throughput (parents: base), digest
/// fnv1a64:0123..."; "" when neither is known.
std::string profile_text(const std::vector<std::string>& profiles, const std::string& digest);

/// A run report's group changes as JSON holds them, for readers of documents
/// (`tuner report --html`): a change whose status this version does not know is shown
/// with its name in `error`, as not applied.
std::vector<ChangeReport> changes_from_json(const nlohmann::json& changes);

}  // namespace tuner
