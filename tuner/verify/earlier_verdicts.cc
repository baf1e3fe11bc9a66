#include "tuner/verify/earlier_verdicts.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "rollback/journal.h"

namespace tuner::verify {
namespace {

/// knob -> (before, after): the changes a group set out to make, or is planned to make.
using Changes = std::map<std::string, std::pair<std::string, std::string>>;

bool reused_from_class(Reason r) {
  return r == Reason::class_kept || r == Reason::class_rolled_back || r == Reason::class_disagree ||
         r == Reason::class_undecided;
}

/// One run's decisions with the changes each group set out to make (the first intent
/// per knob: a value search journals its later candidates as further intents).
struct RunDecisions {
  std::string time;
  std::map<std::string, Changes> changes;  // by group
  std::map<std::string, std::pair<GroupDecision, std::optional<Reason>>> decisions;
};

std::optional<RunDecisions> decisions_of(const JournalText& journal) {
  RunDecisions run;
  bool apply = false, ended = false;
  for (const JournalRecord& r : journal.records) {
    switch (r.type) {
      case RecordType::begin:
        apply = r.kind == RunKind::apply;
        run.time = r.time;
        break;
      case RecordType::intent:
        run.changes[r.group].emplace(r.knob, std::pair(r.before, r.after));
        break;
      case RecordType::decision:
        if (r.decision) {
          std::optional<Reason> outcome;
          if (r.stats.is_object() && r.stats.contains("outcome") && r.stats["outcome"].is_string())
            outcome = parse_reason(r.stats["outcome"].get<std::string>());
          run.decisions.insert_or_assign(r.group, std::pair(*r.decision, outcome));
        }
        break;
      case RecordType::end: ended = true; break;
      default: break;
    }
  }
  // An unfinished run decided nothing that stands; a restore verifies nothing.
  if (!apply || !ended) return std::nullopt;
  return run;
}

}  // namespace

std::map<std::string, EarlierVerdict> rejected_here(const StateDir& dir, const Plan& plan) {
  std::map<std::string, Changes> planned;
  std::set<std::string> unreadable;  // a current value plan could not read: never matched
  for (const Change& c : plan.changes) {
    if (!c.current) unreadable.insert(c.group);
    else planned[c.group].emplace(c.knob, std::pair(*c.current, c.desired));
  }
  for (const std::string& g : unreadable) planned.erase(g);
  std::map<std::string, EarlierVerdict> out;
  auto runs = list_runs(dir);
  if (!runs.ok()) return out;
  for (auto id = runs->rbegin(); id != runs->rend() && !planned.empty(); ++id) {
    auto journal = read_journal(dir, *id);
    if (!journal.ok()) continue;
    std::optional<RunDecisions> run = decisions_of(*journal);
    if (!run) continue;
    for (auto g = planned.begin(); g != planned.end();) {
      auto d = run->decisions.find(g->first);
      auto ch = run->changes.find(g->first);
      if (d == run->decisions.end() || ch == run->changes.end() || ch->second != g->second) {
        ++g;  // not a decision on these changes: an older run may hold one
        continue;
      }
      // The newest decision on exactly these changes settles the group either way.
      const auto& [decision, outcome] = d->second;
      // Rolled back for the group's own outcome: not a group that proved a gain and went
      // back with a run that failed, which a run that does not fail keeps.
      if (decision == GroupDecision::rolled_back && outcome && !reused_from_class(*outcome) &&
          decision_of(*outcome) == GroupDecision::rolled_back)
        out[g->first] = {*id, run->time, *outcome};
      g = planned.erase(g);
    }
  }
  return out;
}

}  // namespace tuner::verify
