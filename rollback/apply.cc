#include "rollback/apply.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include <fmt/core.h>

#include "base/strings.h"
#include "rollback/journal.h"
#include "rollback/rollback.h"
#include "rollback/state.h"

namespace tuner {

namespace {

struct Step {
  const Change* change;
  std::unique_ptr<Knob> knob;
  std::string before, after;
};

Result<std::vector<Step>> preflight(const Plan& plan, const KnobFactory& make) {
  std::vector<Step> steps;
  for (const Change& c : plan.changes) {
    auto knob = make(c.knob);
    if (!knob.ok()) return knob.error();
    auto after = (*knob)->canonical(c.desired);
    if (!after.ok()) return after.error();
    auto before = (*knob)->read();
    if (!before.ok()) return before.error();
    if (*before == *after) continue;  // already as desired (the plan may be stale)
    steps.push_back({&c, std::move(knob).value(), std::move(before).value(),
                     std::move(after).value()});
  }
  return steps;
}

JournalRecord record(RecordType t, const std::string& knob = "") {
  JournalRecord r;
  r.type = t;
  r.knob = knob;
  return r;
}

GroupReport& group_of(RunReport& report, const std::string& name) {
  if (report.groups.empty() || report.groups.back().name != name)
    report.groups.push_back({name, "applied", {}, nlohmann::json::object()});
  return report.groups.back();
}

}  // namespace

Result<long> fault_after_writes_from_env() {
  const char* v = std::getenv("TUNER_FAULT_AFTER_WRITES");
  if (!v || !*v) return 0L;
  auto n = parse_u64(v);
  if (!n || *n > 1000000)
    return Error::invalid("expected a number of writes, got '" + std::string(v) + "'",
                 "TUNER_FAULT_AFTER_WRITES");
  return static_cast<long>(*n);
}

Result<ApplyResult> apply_plan(const Plan& plan, const StateDir& dir, const KnobFactory& make,
                               const ApplyOptions& options) {
  ApplyResult result;
  result.report.profiles = plan.profiles;
  auto steps = preflight(plan, make);
  if (!steps.ok()) return steps.error();
  if (steps->empty()) return result;

  auto state = load_state(dir);
  if (!state.ok()) return state.error();
  std::string run_id = new_run_id(dir);
  auto journal = Journal::create(dir, run_id);
  if (!journal.ok()) return journal.error();
  result.report.run_id = run_id;
  JournalRecord begin = record(RecordType::begin);
  begin.run_id = run_id;
  begin.kind = options.kind;
  begin.profiles = plan.profiles;
  begin.time = utc_now();
  begin.pid = ::getpid();
  // Made durable together with the first intents, before the first write.
  if (auto s = journal->append(begin, false); !s.ok()) return s.error();

  long writes = 0;
  std::size_t i = 0;
  while (i < steps->size()) {
    // A group is a run of consecutive changes with the same group name (plan order).
    const std::string& group = (*steps)[i].change->group;
    std::size_t end = i;
    while (end < steps->size() && (*steps)[end].change->group == group) ++end;

    // Every intent of the group is durable before the first write of the group.
    std::vector<JournalRecord> intents;
    for (std::size_t k = i; k < end; ++k) {
      JournalRecord r = record(RecordType::intent, (*steps)[k].knob->id());
      r.group = group;
      r.before = (*steps)[k].before;
      r.after = (*steps)[k].after;
      intents.push_back(std::move(r));
    }
    if (auto s = journal->append(intents); !s.ok()) {
      result.report.errors.push_back(s.error().message());
      break;  // nothing of this group was written; roll back earlier groups below
    }
    GroupReport& gr = group_of(result.report, group);
    std::vector<std::string> kept;
    for (std::size_t k = i; k < end; ++k) {
      Step& step = (*steps)[k];
      Status s = step.knob->write(step.after);
      ++writes;
      if (options.fault_after_writes && writes == options.fault_after_writes) ::raise(SIGKILL);
      ChangeReport c{step.knob->id(), step.before, step.after, "applied", ""};
      if (s.ok()) {
        JournalRecord done = record(RecordType::done, step.knob->id());
        done.readback = step.knob->read().value_or(step.after);
        // Not fsynced: a lost done record only means rollback rewrites the before value.
        if (auto js = journal->append(done, false); !js.ok())
          result.report.errors.push_back(js.error().message());
        kept.push_back(step.knob->id());
        result.report.changed = true;
      } else {
        JournalRecord failed = record(RecordType::failed, step.knob->id());
        failed.error = s.error().message();
        failed.refused = s.error().is(ErrorKind::refused);
        (void)journal->append(failed);
        c.error = s.error().message();
        if (s.error().is(ErrorKind::refused)) {
          c.status = "skipped";
        } else {
          c.status = "failed";
          result.report.errors.push_back(s.error().message());
        }
      }
      gr.changes.push_back(std::move(c));
      if (!result.report.errors.empty()) break;
    }
    if (!result.report.errors.empty()) break;

    JournalRecord decision = record(RecordType::decision);
    decision.group = group;
    decision.decision = "applied";
    decision.stats = nlohmann::json::object();
    // Not fsynced on its own: it announces no write, and the end record (or the next
    // group's intents) carries it to disk.
    if (auto s = journal->append(decision, false); !s.ok()) {
      result.report.errors.push_back(s.error().message());
      break;
    }
    if (options.record_state && !kept.empty()) {
      for (std::size_t k = i; k < end; ++k) {
        const Step& step = (*steps)[k];
        if (std::find(kept.begin(), kept.end(), step.knob->id()) == kept.end()) continue;
        keep_knob(*state, step.knob->id(), {step.after, step.before, run_id, group, {}});
      }
      if (auto s = save_state(dir, *state); !s.ok()) {
        result.report.errors.push_back(s.error().message());
        break;
      }
    }
    i = end;
  }

  if (result.report.errors.empty()) {
    JournalRecord fin = record(RecordType::end);
    fin.status = "finished";
    fin.time = utc_now();
    if (auto s = journal->append(fin); !s.ok()) return s.error();
    result.outcome = ApplyOutcome::applied;
    return result;
  }

  // A write failed: put back everything this run wrote, from the journal as a crash
  // would. Keys are rebuilt fresh so the restore path is the one rollback uses.
  *journal = Journal();
  auto restore = [&](const std::string& id, const std::string& value) -> Status {
    auto k = make(id);
    if (!k.ok()) return k.error();
    return (*k)->write(value);
  };
  auto rb = rollback_run(dir, run_id, restore);
  result.outcome = ApplyOutcome::rolled_back;
  if (!rb.ok()) {
    result.report.errors.push_back("rollback failed: " + rb.error().message());
    return result;
  }
  for (auto& g : result.report.groups) {
    g.decision = "rolled_back";
    for (auto& c : g.changes) {
      if (c.status != "applied") continue;
      c.status = "rolled_back";
      for (const auto& rg : rb->groups)
        for (const auto& rc : rg.changes)
          if (rc.knob == c.knob && rc.status != "restored") {
            c.status = "restore_failed";
            c.error = rc.error;
          }
    }
  }
  for (const auto& e : rb->errors) result.report.errors.push_back(e);
  result.report.changed = !rb->errors.empty();  // only what could not be put back
  return result;
}

}  // namespace tuner
