#include "rollback/rollback.h"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "rollback/state.h"

namespace tuner {

namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

/// What became of one knob, and why (the change's error text).
struct Attempt {
  ChangeStatus status = ChangeStatus::restored;
  std::string note;
  bool refused = false;  // the kernel refused the write: worth one more try
  bool wrote = false;    // the before-value was written back
};

Attempt gone(const Error& e) {
  return {ChangeStatus::gone, "gone (" + e.message() + "): nothing to restore"};
}

/// Who changed a knob since the run: a later run that keeps this value, or someone else.
std::string changer(const State* state, const std::string& knob, const std::string& run_id,
                    const std::string& live) {
  if (state)
    if (auto it = state->knobs.find(knob);
        it != state->knobs.end() && it->second.run_id != run_id && it->second.value == live)
      return "run " + it->second.run_id;
  return "someone else";
}

/// Reads the knob and decides from its live value (see rollback_run), then writes.
Attempt restore_one(const RestoreStep& step, const KnobFactory& make, const State* state,
                    const std::string& run_id, bool force) {
  if (!step.lost.empty())
    return {ChangeStatus::failed, "not restored: its before-value is lost (" + step.lost +
                                      "); nothing is guessed: check its value by hand"};
  auto knob = make(step.knob);
  if (!knob.ok()) {
    if (knob.error().is(ErrorKind::missing)) return gone(knob.error());
    return {ChangeStatus::failed, knob.error().message()};
  }
  auto live = (*knob)->read();
  if (!live.ok() && live.error().is(ErrorKind::missing)) return gone(live.error());
  if (live.ok() && *live == step.value) {
    if (step.written) return {};  // already back (the verify loop's undo, a retry)
    return {ChangeStatus::not_applied, "never changed by this run: nothing to restore"};
  }
  // Unreadable: nobody can tell who set it, so the run's before-value goes back.
  if (live.ok() && !force && !contains(step.run_values, *live))
    return {ChangeStatus::changed_since, "changed by " + changer(state, step.knob, run_id, *live) +
                                             " since this run set '" + step.changed + "': it is '" +
                                             *live +
                                             "' now and was left as it is ('tuner rollback " +
                                             run_id + " --force' restores it)"};
  Status s = (*knob)->write(step.value);
  if (s.ok()) return {ChangeStatus::restored, "", false, true};
  if (s.error().is(ErrorKind::missing)) return gone(s.error());
  return {ChangeStatus::failed, s.error().message(), s.error().is(ErrorKind::refused)};
}

}  // namespace

std::vector<RestoreStep> restore_steps(const JournalText& journal) {
  // A knob the kernel refused to change was never changed: nothing to put back. Any
  // other intent, done or not, is a step; rollback_run reads the live value to tell
  // whether there is anything to write.
  std::map<std::string, std::size_t> last;  // knob -> index of its latest intent
  std::map<std::string, RestoreStep> by_knob;
  std::set<std::string> refused;
  std::set<std::string> seen;  // knobs named by any record, for lost intents
  for (std::size_t i = 0; i < journal.records.size(); ++i) {
    const auto& r = journal.records[i];
    if (!r.knob.empty()) seen.insert(r.knob);
    if (r.type == RecordType::intent) {
      auto [it, first] = by_knob.try_emplace(r.knob);
      RestoreStep& s = it->second;
      if (first) {
        s.knob = r.knob;
        s.value = r.before;
      }
      s.group = r.group;
      s.changed = r.after;
      if (!contains(s.run_values, r.after)) s.run_values.push_back(r.after);
      last[r.knob] = i;
      refused.erase(r.knob);
    } else if (r.type == RecordType::done && by_knob.contains(r.knob)) {
      RestoreStep& s = by_knob[r.knob];
      s.written = true;
      if (!contains(s.run_values, r.readback)) s.run_values.push_back(r.readback);
    } else if (r.type == RecordType::failed && r.refused) {
      refused.insert(r.knob);
    }
  }
  // A knob this run touched whose intent is damaged: its before-value is lost.
  std::map<std::string, std::string> lost;
  auto intact = [&](const std::string& knob) {
    return by_knob.contains(knob) || refused.contains(knob);
  };
  for (const DamagedRecord& d : journal.damaged)
    if (!d.knob.empty() && !intact(d.knob) && (!lost.contains(d.knob) || d.type == "intent"))
      lost[d.knob] = "damaged record at " + d.where;
  for (const std::string& knob : seen)
    if (!intact(knob) && !lost.contains(knob))
      lost[knob] = journal.damaged.empty() ? "no intent record"
                                           : "no intact intent record; damaged record at " +
                                                 journal.damaged.front().where;

  std::vector<std::pair<std::size_t, std::string>> order;
  for (const auto& [knob, i] : last)
    if (!refused.contains(knob)) order.emplace_back(i, knob);
  std::sort(order.rbegin(), order.rend());
  std::vector<RestoreStep> steps;
  steps.reserve(order.size() + lost.size());
  for (const auto& [i, knob] : order) steps.push_back(by_knob[knob]);
  for (const auto& [knob, where] : lost) {
    RestoreStep s;
    s.knob = knob;
    s.lost = where;
    steps.push_back(std::move(s));
  }
  return steps;
}

Result<RunReport> rollback_run(const StateDir& dir, const std::string& run_id,
                               const KnobFactory& make, const RollbackOptions& options) {
  auto text = read_journal(dir, run_id);
  if (!text.ok()) return text.error();
  RunSummary summary = summarize_run(run_id, *text);
  std::vector<RestoreStep> steps = restore_steps(*text);
  if (summary.status == RunStatus::rolled_back && options.force && !summary.left.empty()) {
    // Only what the last rollback left: the rest is back already.
    std::erase_if(steps, [&](const RestoreStep& s) { return !contains(summary.left, s.knob); });
  } else if (summary.status == RunStatus::rolled_back || summary.status == RunStatus::abandoned) {
    std::string left = summary.left.empty()
                           ? ""
                           : "; " + std::to_string(summary.left.size()) +
                                 " knob(s) were left as someone else had set them: --force "
                                 "restores them";
    return Error::invalid(std::string("run is already ") + run_status_name(summary.status) +
                              "; nothing to roll back" + left,
                          run_id);
  }
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
  // A damaged line that may have been an intent naming no knob hides a knob this run
  // may have changed: nobody can say which, so it is an error (no retry mends it).
  for (const DamagedRecord& d : text->damaged) {
    if (d.knob.empty() && (d.type.empty() || d.type == "intent"))
      report.errors.push_back({d.message() + ": if it was an intent, the knob it named may not be "
                                             "restored: check what this run changed by hand",
                               "", d.where});
    else report.warnings.push_back({d.message(), d.knob, d.where});
  }
  auto state = load_state(dir);
  const State* kept = state.ok() ? &*state : nullptr;
  std::vector<JournalRecord> records;
  std::set<std::string> settled;  // no longer tuner's to keep
  bool retry_helps = false;       // a failure another rollback might mend
  auto outcome = [&](const RestoreStep& step, const Attempt& a) {
    auto group = std::find_if(report.groups.begin(), report.groups.end(),
                              [&](const GroupReport& g) { return g.name == step.group; });
    if (group == report.groups.end()) {
      report.groups.push_back(
          {step.group, GroupDecision::rolled_back, {}, nlohmann::json::object()});
      group = report.groups.end() - 1;
    }
    std::optional<std::string> changed;
    if (step.lost.empty()) changed = step.changed;
    group->changes.push_back({step.knob, changed, step.value, a.status, a.note});
    JournalRecord rec;
    rec.type = RecordType::rollback;
    rec.knob = step.knob;
    rec.after = step.value;
    rec.restore_status = a.status;
    if (a.status == ChangeStatus::failed) {
      rec.error = a.note;
      report.errors.push_back({step.knob + ": could not restore: " + a.note, step.knob, ""});
      retry_helps |= step.lost.empty();
    } else {
      settled.insert(step.knob);
    }
    report.changed |= a.wrote;
    records.push_back(std::move(rec));
  };
  // A knob the kernel refuses to put back while another still holds the run's value
  // (an energy preference under the performance governor) is tried again once the
  // others are back.
  std::vector<RestoreStep> refused;
  for (const RestoreStep& step : steps) {
    Attempt a = restore_one(step, make, kept, run_id, options.force);
    if (a.refused) refused.push_back(step);
    else outcome(step, a);
  }
  for (const RestoreStep& step : refused)
    outcome(step, restore_one(step, make, kept, run_id, options.force));
  JournalRecord end;
  end.type = RecordType::end;
  // A lost before-value stays lost however often rollback runs: the run ends, its
  // errors say which knob to check by hand.
  end.end_status = retry_helps ? RunStatus::rollback_failed : RunStatus::rolled_back;
  end.time = utc_now();
  records.push_back(end);
  if (auto s = journal->append(records); !s.ok()) return s.error();

  if (!state.ok()) {
    report.errors.push_back({state.error().message(), "", ""});
    return report;
  }
  bool dirty = false;
  for (const std::string& id : settled) dirty |= forget_knob(*state, id, run_id);
  if (dirty)
    if (auto s = save_state(dir, *state); !s.ok())
      report.errors.push_back({s.error().message(), "", ""});
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
  end.end_status = RunStatus::abandoned;
  end.time = utc_now();
  end.pid = ::getpid();
  return journal->append(end);
}

}  // namespace tuner
