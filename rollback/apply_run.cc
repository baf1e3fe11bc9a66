// ApplyRun: the steps of the write-ahead apply protocol (see apply.h).
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <optional>

#include "base/interrupt.h"
#include "rollback/apply.h"
#include "rollback/rollback.h"

namespace tuner {

namespace {

struct Step {
  std::string knob_id, group;
  std::unique_ptr<Knob> knob;
  std::string before, after;
  bool written = false;  // applied (not skipped, not failed)
  bool live = false;     // holds its after value now
  /// Change::written_after, when that knob is a step of this run too: this knob is
  /// built (if it could not be yet), read and journaled just before its own write, and
  /// is live only while that one is.
  std::string written_after = {};
  bool deferred = false;  // its before-value is still to be read
  bool nothing = false;   // found as desired, or absent, when its turn came: not written
};

JournalRecord record(RecordType t, const std::string& knob = "") {
  JournalRecord r;
  r.type = t;
  r.knob = knob;
  return r;
}

}  // namespace

// NOLINTNEXTLINE(bugprone-exception-escape): json's noexcept move, seen through its asserts
struct ApplyRun::Impl {
  std::vector<std::string> profiles;
  StateDir dir;
  KnobFactory make;
  ApplyOptions options;
  std::vector<Step> steps;
  std::optional<Journal> journal;
  State state;
  RunReport report;
  long writes = 0, decisions = 0;

  std::vector<Step*> group_steps(const std::string& group) {
    std::vector<Step*> out;
    for (Step& s : steps)
      if (s.group == group) out.push_back(&s);
    return out;
  }
  GroupReport& group_report(const std::string& group) {
    for (GroupReport& g : report.groups)
      if (g.name == group) return g;
    report.groups.push_back({group, GroupDecision::applied, {}, nlohmann::json::object()});
    return report.groups.back();
  }
  /// A deferred step at its turn: its knob built if it was not, its value read. False
  /// when there is nothing to write (already as desired); an Error of kind missing when
  /// its object is still not there.
  Result<bool> settle(Step& step) const {
    step.deferred = false;
    if (!step.knob) {
      auto knob = make(step.knob_id);
      if (!knob.ok()) return knob.error();
      step.knob = std::move(knob).value();
      auto after = step.knob->canonical(step.after);
      if (!after.ok()) return after.error();
      step.after = *after;
    }
    auto before = step.knob->read();
    if (!before.ok()) return before.error();
    step.before = *before;
    return step.before != step.after;
  }
  /// Every knob write goes through here, so the fault hook covers each of them.
  Status write(Step& step, const std::string& value) {
    Status s = step.knob->write(value);
    ++writes;
    if (options.fault_after_writes && writes == options.fault_after_writes) ::raise(SIGKILL);
    return s;
  }
};

ApplyRun::ApplyRun(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ApplyRun::ApplyRun(ApplyRun&&) noexcept = default;
ApplyRun& ApplyRun::operator=(ApplyRun&&) noexcept = default;
ApplyRun::~ApplyRun() = default;

Result<ApplyRun> ApplyRun::prepare(const Plan& plan, const StateDir& dir, KnobFactory make,
                                   ApplyOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->profiles = plan.profiles;
  impl->dir = dir;
  impl->make = std::move(make);
  impl->options = options;
  impl->report.profiles = plan.profiles;
  for (const Change& c : plan.changes) {
    auto knob = impl->make(c.knob);
    bool after_step = !c.written_after.empty() &&
                      std::any_of(impl->steps.begin(), impl->steps.end(),
                                  [&](const Step& s) { return s.knob_id == c.written_after; });
    if (after_step) {
      // Its object may not exist before that write (a queue a channel change makes),
      // and its value now says nothing about its value then (a driver rewrites its
      // XPS map): checked now where it can be, read when its turn comes.
      if (!knob.ok() && !knob.error().is(ErrorKind::missing)) return knob.error();
      std::string after = c.desired;
      if (knob.ok()) {
        auto canonical = (*knob)->canonical(c.desired);
        if (!canonical.ok()) return canonical.error();
        after = *canonical;
      }
      Step step{c.knob, c.group, knob.ok() ? std::move(knob).value() : nullptr, "", after};
      step.written_after = c.written_after;
      step.deferred = true;
      impl->steps.push_back(std::move(step));
      continue;
    }
    if (!knob.ok()) return knob.error();
    auto after = (*knob)->canonical(c.desired);
    if (!after.ok()) return after.error();
    auto before = (*knob)->read();
    if (!before.ok()) return before.error();
    if (*before == *after) continue;  // already as desired (the plan may be stale)
    impl->steps.push_back({c.knob, c.group, std::move(knob).value(), std::move(before).value(),
                           std::move(after).value()});
  }
  return ApplyRun(std::move(impl));
}

bool ApplyRun::empty() const { return impl_->steps.empty(); }
RunReport& ApplyRun::report() { return impl_->report; }
const StateDir& ApplyRun::dir() const { return impl_->dir; }

std::vector<std::string> ApplyRun::groups() const {
  std::vector<std::string> out;
  for (const Step& s : impl_->steps)
    if (out.empty() || out.back() != s.group) out.push_back(s.group);
  return out;
}

std::vector<std::string> ApplyRun::knobs_of(const std::string& group) const {
  std::vector<std::string> out;
  for (const Step& s : impl_->steps)
    if (s.group == group) out.push_back(s.knob_id);
  return out;
}

Status ApplyRun::begin() {
  Impl& m = *impl_;
  auto state = load_state(m.dir);
  if (!state.ok()) return state.error();
  m.state = std::move(state).value();
  std::string run_id = new_run_id(m.dir);
  auto journal = Journal::create(m.dir, run_id);
  if (!journal.ok()) return journal.error();
  m.journal = std::move(journal).value();
  m.report.run_id = run_id;
  JournalRecord begin = record(RecordType::begin);
  begin.run_id = run_id;
  begin.kind = m.options.kind;
  begin.profiles = m.profiles;
  begin.time = utc_now();
  begin.pid = ::getpid();
  // Made durable together with the first intents, before the first write.
  return m.journal->append(begin, false);
}

Status ApplyRun::write_group(const std::string& group) {
  Impl& m = *impl_;
  std::vector<Step*> steps = m.group_steps(group);
  std::vector<JournalRecord> intents;
  for (Step* s : steps) {
    if (s->deferred) continue;  // journaled at its turn, once its before-value is read
    JournalRecord r = record(RecordType::intent, s->knob_id);
    r.group = group;
    r.before = s->before;
    r.after = s->after;
    intents.push_back(std::move(r));
  }
  // Every intent of the group is durable before the first write of the group.
  if (auto s = m.journal->append(intents); !s.ok()) return s.error();
  GroupReport& gr = m.group_report(group);
  for (Step* step : steps) {
    if (step->deferred) {
      auto due = m.settle(*step);
      if (due.ok() && *due) {
        JournalRecord r = record(RecordType::intent, step->knob_id);
        r.group = group;
        r.before = step->before;
        r.after = step->after;
        if (auto js = m.journal->append(r); !js.ok()) return js.error();
      }
      if (!due.ok() || !*due) {
        step->nothing = true;
        if (due.ok()) continue;
        bool absent = due.error().is(ErrorKind::missing);
        gr.changes.push_back(
            {step->knob_id, std::nullopt, step->after,
             absent ? ChangeStatus::skipped : ChangeStatus::failed,
             due.error().message() + (absent ? " (after " + step->written_after + ")" : "")});
        if (absent) continue;
        return due.error();
      }
    }
    Status s = m.write(*step, step->after);
    ChangeReport c{step->knob_id, step->before, step->after, ChangeStatus::applied, ""};
    if (s.ok()) {
      JournalRecord done = record(RecordType::done, step->knob_id);
      done.readback = step->knob->read().value_or(step->after);
      // Not fsynced: a lost done record only means rollback rewrites the before value.
      if (auto js = m.journal->append(done, false); !js.ok()) return js.error();
      step->written = step->live = true;
      m.report.changed = true;
      gr.changes.push_back(std::move(c));
      continue;
    }
    JournalRecord failed = record(RecordType::failed, step->knob_id);
    failed.error = s.error().message();
    failed.refused = s.error().is(ErrorKind::refused);
    (void)m.journal->append(failed);
    c.error = s.error().message();
    c.status = failed.refused ? ChangeStatus::skipped : ChangeStatus::failed;
    gr.changes.push_back(std::move(c));
    if (!failed.refused) return s.error();
  }
  return Ok{};
}

std::vector<std::string> ApplyRun::written_knobs(const std::string& group) const {
  std::vector<std::string> out;
  for (const Step& s : impl_->steps)
    if (s.group == group && s.written) out.push_back(s.knob_id);
  return out;
}

Status ApplyRun::set_live(const std::string& group, const std::vector<std::string>& live) {
  Impl& m = *impl_;
  std::vector<Step*> steps = m.group_steps(group);
  auto listed = [&](const std::string& id) {
    return std::find(live.begin(), live.end(), id) != live.end();
  };
  // A knob written after another of the group (a queue's mask after the channel change
  // that makes the queue) is live only with it.
  auto wanted = [&](const Step* s) {
    bool with = s->written_after.empty() || listed(s->written_after) ||
                std::none_of(steps.begin(), steps.end(),
                             [&](const Step* o) { return o->knob_id == s->written_after; });
    return listed(s->knob_id) && with;
  };
  // Newest first; a knob the kernel refuses to put back while another still holds the
  // candidate's value (an energy preference under the performance governor) is tried
  // again once the others are back.
  std::vector<Step*> refused;
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    Step& s = **it;
    if (!s.written || !s.live || wanted(&s)) continue;
    Status st = m.write(s, s.before);
    if (!st.ok() && st.error().is(ErrorKind::refused)) {
      refused.push_back(&s);
      continue;
    }
    if (!st.ok()) return st.error().context("undo");
    s.live = false;
  }
  for (Step* s : refused) {
    if (Status st = m.write(*s, s->before); !st.ok()) return st.error().context("undo");
    s->live = false;
  }
  for (Step* s : steps) {
    if (!s->written || s->live || !wanted(s)) continue;
    if (Status st = m.write(*s, s->after); !st.ok()) return st;
    s->live = true;
  }
  return Ok{};
}

Status ApplyRun::retarget(const std::string& knob, const std::string& after) {
  Impl& m = *impl_;
  auto it = std::find_if(m.steps.begin(), m.steps.end(),
                         [&](const Step& s) { return s.knob_id == knob; });
  if (it == m.steps.end()) return Error::invalid("not a knob of this run", knob);
  Step& step = *it;
  if (!step.knob) return Error::invalid("not built yet: written after " + step.written_after, knob);
  auto canonical = step.knob->canonical(after);
  if (!canonical.ok()) return canonical.error();
  if (*canonical == step.after) return Ok{};
  if (!step.written) {
    // Refused in write_group: write_refused journals and writes the new value.
    step.after = *canonical;
    return Ok{};
  }
  JournalRecord r = record(RecordType::intent, knob);
  r.group = step.group;
  r.before = step.before;
  r.after = *canonical;
  if (auto s = m.journal->append(r); !s.ok()) return s.error();
  step.after = *canonical;
  for (ChangeReport& c : m.group_report(step.group).changes)
    if (c.knob == knob) c.after = step.after;
  if (!step.live) return Ok{};
  if (Status s = m.write(step, step.after); !s.ok()) return s;
  JournalRecord done = record(RecordType::done, knob);
  done.readback = step.knob->read().value_or(step.after);
  return m.journal->append(done, false);
}

Status ApplyRun::write_refused(const std::string& group) {
  Impl& m = *impl_;
  GroupReport& gr = m.group_report(group);
  for (Step* step : m.group_steps(group)) {
    if (step->written || step->nothing || step->deferred) continue;
    JournalRecord r = record(RecordType::intent, step->knob_id);
    r.group = group;
    r.before = step->before;
    r.after = step->after;
    if (auto s = m.journal->append(r); !s.ok()) return s.error();
    Status s = m.write(*step, step->after);
    auto change = std::find_if(gr.changes.begin(), gr.changes.end(),
                               [&](const ChangeReport& c) { return c.knob == step->knob_id; });
    if (!s.ok()) {
      JournalRecord failed = record(RecordType::failed, step->knob_id);
      failed.error = s.error().message();
      failed.refused = s.error().is(ErrorKind::refused);
      (void)m.journal->append(failed);
      if (change != gr.changes.end()) {
        change->after = step->after;
        change->error = s.error().message();
      }
      return s;
    }
    JournalRecord done = record(RecordType::done, step->knob_id);
    done.readback = step->knob->read().value_or(step->after);
    if (auto js = m.journal->append(done, false); !js.ok()) return js.error();
    step->written = step->live = true;
    m.report.changed = true;
    if (change != gr.changes.end()) {
      change->after = step->after;
      change->status = ChangeStatus::applied;
      change->error.clear();
    } else {
      gr.changes.push_back({step->knob_id, step->before, step->after, ChangeStatus::applied, ""});
    }
  }
  return Ok{};
}

Status ApplyRun::undo_group(const std::string& group) { return set_live(group, {}); }

Status ApplyRun::redo_group(const std::string& group) {
  return set_live(group, written_knobs(group));
}

Status ApplyRun::decide(const std::string& group, GroupDecision decision,
                        const nlohmann::json& stats) {
  Impl& m = *impl_;
  JournalRecord r = record(RecordType::decision);
  r.group = group;
  r.decision = decision;
  r.stats = stats.is_null() ? nlohmann::json::object() : stats;
  // Not fsynced on its own: it announces no write, and the end record (or the next
  // group's intents) carries it to disk. The fault hook wants it on disk first.
  if (auto s = m.journal->append(r, m.options.fault_after_decisions != 0); !s.ok()) return s;
  GroupReport& gr = m.group_report(group);
  gr.decision = decision;
  gr.stats = r.stats;
  if (decision == GroupDecision::rolled_back) {
    for (ChangeReport& c : gr.changes)
      if (c.status == ChangeStatus::applied) c.status = ChangeStatus::rolled_back;
    if (gr.changes.empty())  // rejected before anything was written
      for (Step* step : m.group_steps(group))
        if (!step->nothing)
          gr.changes.push_back(
              {step->knob_id,
               step->deferred ? std::nullopt : std::optional<std::string>(step->before),
               step->after, ChangeStatus::not_applied, ""});
  } else {
    for (Step* step : m.group_steps(group)) {
      if (!step->written || step->live) continue;
      for (ChangeReport& c : gr.changes)
        if (c.knob == step->knob_id && c.status == ChangeStatus::applied)
          c.status = ChangeStatus::rolled_back;
    }
  }
  if (decision != GroupDecision::rolled_back && m.options.record_state) {
    bool any = false;
    for (Step* step : m.group_steps(group)) {
      if (!step->written || !step->live) continue;
      keep_knob(m.state, step->knob_id, {step->after, step->before, m.report.run_id, group, {}});
      any = true;
    }
    if (any)
      if (auto s = save_state(m.dir, m.state); !s.ok()) return s;
  }
  ++m.decisions;
  if (m.options.fault_after_decisions && m.decisions == m.options.fault_after_decisions)
    ::raise(SIGKILL);
  return Ok{};
}

Result<RunReport> ApplyRun::finish() {
  Impl& m = *impl_;
  JournalRecord fin = record(RecordType::end);
  fin.end_status = RunStatus::finished;
  fin.time = utc_now();
  if (auto s = m.journal->append(fin); !s.ok()) return s.error();
  // A run whose every group was rolled back changed nothing in the end.
  bool kept = std::any_of(m.report.groups.begin(), m.report.groups.end(), [](const GroupReport& g) {
    return g.decision != GroupDecision::rolled_back &&
           std::any_of(g.changes.begin(), g.changes.end(),
                       [](const ChangeReport& c) { return c.status == ChangeStatus::applied; });
  });
  m.report.changed = kept;
  return m.report;
}

Result<ApplyResult> ApplyRun::drive(const std::function<Status(const std::string&)>& step,
                                    const std::vector<std::string>& order) {
  const std::vector<std::string> plan_order = groups();
  if (!order.empty()) {
    std::vector<std::string> a = plan_order, b = order;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    if (a != b) return Error::invalid("the order to decide groups in is not the plan's groups", "");
  }
  // The report keeps plan order whatever order the groups were decided in.
  auto in_plan_order = [&](RunReport& report) {
    auto rank = [&](const GroupReport& g) {
      return std::find(plan_order.begin(), plan_order.end(), g.name) - plan_order.begin();
    };
    std::stable_sort(report.groups.begin(), report.groups.end(),
                     [&](const GroupReport& x, const GroupReport& y) { return rank(x) < rank(y); });
  };
  if (Status s = begin(); !s.ok()) return s.error();
  ApplyResult result;
  for (const std::string& group : order.empty() ? plan_order : order) {
    // A signal (base/interrupt.h) ends the run like a failed step: all of it put back.
    Status s = check_interrupt();
    if (s.ok()) s = step(group);
    if (s.ok()) s = check_interrupt();
    if (!s.ok()) {
      result.report = abort();
      // Where one knob's write failed, the error is about that knob.
      std::string knob;
      for (const GroupReport& g : result.report.groups)
        for (const ChangeReport& c : g.changes)
          if (c.status == ChangeStatus::failed) knob = c.knob;
      result.report.errors.insert(result.report.errors.begin(), {s.error().message(), knob, ""});
      result.outcome = ApplyOutcome::rolled_back;
      in_plan_order(result.report);
      return result;
    }
  }
  auto report = finish();
  if (!report.ok()) return report.error();
  result.report = std::move(report).value();
  in_plan_order(result.report);
  result.outcome = ApplyOutcome::applied;
  return result;
}

RunReport ApplyRun::abort() {
  Impl& m = *impl_;
  RunReport& report = m.report;
  if (!m.journal) return report;
  // Knobs are rebuilt fresh so the restore path is the one rollback uses.
  m.journal.reset();
  auto rb = rollback_run(m.dir, report.run_id, m.make);
  if (!rb.ok()) {
    report.errors.push_back({"rollback failed: " + rb.error().message(), "", ""});
    return report;
  }
  for (auto& g : report.groups) {
    g.decision = GroupDecision::rolled_back;
    for (auto& c : g.changes) {
      if (c.status != ChangeStatus::applied) continue;
      c.status = ChangeStatus::rolled_back;
      for (const auto& rg : rb->groups)
        for (const auto& rc : rg.changes) {
          if (rc.knob != c.knob) continue;
          if (rc.status == ChangeStatus::gone || rc.status == ChangeStatus::changed_since)
            c.status = rc.status;
          else if (rc.status == ChangeStatus::failed) c.status = ChangeStatus::restore_failed;
          if (c.status != ChangeStatus::rolled_back) c.error = rc.error;
        }
    }
  }
  for (const auto& w : rb->warnings) report.warnings.push_back(w);
  for (const auto& e : rb->errors) report.errors.push_back(e);
  report.changed = !rb->errors.empty();  // only what could not be put back
  return report;
}

}  // namespace tuner
