#include "rollback/run_summary.h"

#include <map>
#include <set>

namespace tuner {

RunSummary summarize_run(const std::string& run_id, const JournalText& journal) {
  RunSummary s;
  s.run_id = run_id;
  s.status = RunStatus::unfinished;
  std::map<std::string, std::optional<ChangeStatus>> last_rollback;  // knob -> its latest status
  // A knob whose intent line was damaged still counts as a change when a done or failed
  // record names it: "2 changes, 3 done" would be no count at all.
  std::set<std::string> changed;
  for (const auto& r : journal.records) {
    if (r.type == RecordType::intent || r.type == RecordType::done || r.type == RecordType::failed)
      changed.insert(r.knob);
    switch (r.type) {
      case RecordType::begin:
        s.kind = r.kind;
        s.time = r.time;
        s.profiles = r.profiles;
        s.status = RunStatus::unfinished;
        break;
      case RecordType::intent: break;
      case RecordType::done: ++s.done; break;
      case RecordType::failed: r.refused ? ++s.skipped : ++s.failed; break;
      case RecordType::rollback_begin: s.status = RunStatus::unfinished; break;
      case RecordType::rollback: last_rollback[r.knob] = r.restore_status; break;
      case RecordType::end:
        // The journal reader refuses an end status it does not know (damage).
        s.status = r.end_status.value_or(RunStatus::unfinished);
        break;
      case RecordType::decision: break;
    }
  }
  s.intents = static_cast<unsigned>(changed.size());
  for (const auto& [knob, st] : last_rollback) {
    if (st == ChangeStatus::restored) ++s.restored;
    else if (st == ChangeStatus::gone) ++s.gone;
    else if (st == ChangeStatus::changed_since) s.left.push_back(knob);
  }
  for (const DamagedRecord& d : journal.damaged) s.damaged.push_back(d.message());
  return s;
}

RunSummary read_run_summary(const StateDir& dir, const std::string& run_id) {
  auto text = read_journal(dir, run_id);
  if (text.ok()) return summarize_run(run_id, *text);
  RunSummary s;
  s.run_id = run_id;
  s.error = text.error().message();
  return s;
}

std::vector<std::string> left_knobs(const JournalText& journal) {
  return summarize_run("", journal).left;
}

Result<std::optional<RunSummary>> find_unfinished_run(const StateDir& dir) {
  auto runs = list_runs(dir);
  if (!runs.ok()) return runs.error();
  for (auto it = runs->rbegin(); it != runs->rend(); ++it) {
    auto text = read_journal(dir, *it);
    // Nothing can be told of a run whose journal cannot be read, not even whether it
    // is finished: a person must look (history lists it with the reason).
    if (!text.ok())
      return Error{text.error().kind,
                   text.error().what + "; move the journal out of runs/ once you have checked "
                                       "what that run changed ('tuner history' lists it)",
                   text.error().where, text.error().err};
    RunSummary s = summarize_run(*it, *text);
    if (s.unfinished()) return std::optional<RunSummary>(s);
  }
  return std::optional<RunSummary>();
}

}  // namespace tuner
