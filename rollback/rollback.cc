#include "rollback/rollback.h"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>

#include "rollback/state.h"

namespace tuner {

RunSummary summarize_run(const std::string& run_id, const JournalText& journal) {
  RunSummary s;
  s.run_id = run_id;
  s.status = RunStatus::unfinished;
  for (const auto& r : journal.records) {
    switch (r.type) {
      case RecordType::begin:
        s.kind = r.kind;
        s.time = r.time;
        s.profiles = r.profiles;
        s.status = RunStatus::unfinished;
        break;
      case RecordType::intent: ++s.intents; break;
      case RecordType::done: ++s.done; break;
      case RecordType::failed: r.refused ? ++s.skipped : ++s.failed; break;
      case RecordType::rollback_begin: s.status = RunStatus::unfinished; break;
      case RecordType::rollback:
        if (r.status == "restored") ++s.restored;
        break;
      case RecordType::end:
        // An end status this version does not know still ends the run.
        s.status = parse_run_status(r.status).value_or(RunStatus::finished);
        break;
      case RecordType::decision: break;
    }
  }
  return s;
}

std::vector<RestoreStep> restore_steps(const JournalText& journal) {
  // A knob the kernel refused to change was never changed: nothing to put back. Any
  // other intent, done or not, is restored: writing an unchanged value back is harmless.
  std::map<std::string, std::size_t> last_intent;
  std::set<std::string> refused;
  for (std::size_t i = 0; i < journal.records.size(); ++i) {
    const auto& r = journal.records[i];
    if (r.type == RecordType::intent) {
      last_intent[r.knob] = i;
      refused.erase(r.knob);
    } else if (r.type == RecordType::failed && r.refused) {
      refused.insert(r.knob);
    }
  }
  std::map<std::string, std::string> first_before;
  for (const auto& r : journal.records)
    if (r.type == RecordType::intent) first_before.emplace(r.knob, r.before);
  std::vector<std::pair<std::size_t, std::string>> order;
  for (const auto& [knob, i] : last_intent)
    if (!refused.contains(knob)) order.emplace_back(i, knob);
  std::sort(order.rbegin(), order.rend());
  std::vector<RestoreStep> steps;
  for (const auto& [i, knob] : order) {
    const auto& r = journal.records[i];
    steps.push_back({knob, r.group, first_before[knob], r.after});
  }
  return steps;
}

Result<RunReport> rollback_run(const StateDir& dir, const std::string& run_id,
                               const RestoreFn& restore) {
  auto text = read_journal(dir, run_id);
  if (!text.ok()) return text.error();
  RunSummary summary = summarize_run(run_id, *text);
  if (summary.status == RunStatus::rolled_back || summary.status == RunStatus::abandoned)
    return Error::invalid(
        std::string("run is already ") + run_status_name(summary.status) + "; nothing to roll back",
        run_id);
  auto journal = Journal::open(dir, run_id);
  if (!journal.ok()) return journal.error();
  JournalRecord start;
  start.type = RecordType::rollback_begin;
  start.time = utc_now();
  start.pid = ::getpid();
  if (auto s = journal->append(start); !s.ok()) return s.error();

  RunReport report;
  report.run_id = run_id;
  report.profiles = summary.profiles;
  std::vector<JournalRecord> records;
  std::set<std::string> restored;
  auto outcome = [&](const RestoreStep& step, const Status& s) {
    auto group = std::find_if(report.groups.begin(), report.groups.end(),
                              [&](const GroupReport& g) { return g.name == step.group; });
    if (group == report.groups.end()) {
      report.groups.push_back(
          {step.group, GroupDecision::rolled_back, {}, nlohmann::json::object()});
      group = report.groups.end() - 1;
    }
    ChangeReport c{step.knob, step.changed, step.value, ChangeStatus::restored, ""};
    JournalRecord rec;
    rec.type = RecordType::rollback;
    rec.knob = step.knob;
    rec.after = step.value;
    if (s.ok()) {
      rec.status = "restored";
      restored.insert(step.knob);
      report.changed = true;
    } else {
      rec.status = "failed";
      c.status = ChangeStatus::failed;
      rec.error = c.error = s.error().message();
      report.errors.push_back(step.knob + ": could not restore: " + c.error);
    }
    group->changes.push_back(std::move(c));
    records.push_back(std::move(rec));
  };
  // A knob the kernel refuses to put back while another still holds the run's value
  // (an energy preference under the performance governor) is tried again once the
  // others are back.
  std::vector<RestoreStep> refused;
  for (const RestoreStep& step : restore_steps(*text)) {
    Status s = restore(step.knob, step.value);
    if (!s.ok() && s.error().is(ErrorKind::refused)) refused.push_back(step);
    else outcome(step, s);
  }
  for (const RestoreStep& step : refused) outcome(step, restore(step.knob, step.value));
  JournalRecord end;
  end.type = RecordType::end;
  end.status =
      run_status_name(report.errors.empty() ? RunStatus::rolled_back : RunStatus::rollback_failed);
  end.time = utc_now();
  records.push_back(end);
  if (auto s = journal->append(records); !s.ok()) return s.error();

  auto state = load_state(dir);
  if (!state.ok()) {
    report.errors.push_back(state.error().message());
    return report;
  }
  bool dirty = false;
  for (const std::string& id : restored) dirty |= forget_knob(*state, id, run_id);
  if (dirty)
    if (auto s = save_state(dir, *state); !s.ok()) report.errors.push_back(s.error().message());
  return report;
}

Status abandon_run(const StateDir& dir, const std::string& run_id) {
  auto text = read_journal(dir, run_id);
  if (!text.ok()) return text.error();
  RunSummary summary = summarize_run(run_id, *text);
  if (!summary.unfinished())
    return Error::invalid(std::string("run is ") + run_status_name(summary.status) +
                              ", not unfinished; nothing to abandon",
                          run_id);
  auto journal = Journal::open(dir, run_id);
  if (!journal.ok()) return journal.error();
  JournalRecord end;
  end.type = RecordType::end;
  end.status = run_status_name(RunStatus::abandoned);
  end.time = utc_now();
  end.pid = ::getpid();
  return journal->append(end);
}

Result<std::optional<RunSummary>> find_unfinished_run(const StateDir& dir) {
  auto runs = list_runs(dir);
  if (!runs.ok()) return runs.error();
  for (auto it = runs->rbegin(); it != runs->rend(); ++it) {
    auto text = read_journal(dir, *it);
    if (!text.ok()) return text.error();
    RunSummary s = summarize_run(*it, *text);
    if (s.unfinished()) return std::optional<RunSummary>(s);
  }
  return std::optional<RunSummary>();
}

}  // namespace tuner
