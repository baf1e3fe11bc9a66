// Rollback decides from the live value: a knob never written is not "restored", a knob
// whose object is gone does not fail the run, and a value someone else set since the
// run is left as it is unless --force (issue #10, "No lockout").
#include <doctest/doctest.h>

#include <map>

#include "rollback/apply.h"
#include "rollback/fake_machine_test.h"
#include "rollback/rollback.h"
#include "rollback/state.h"
#include "tests/support/temp_dir.h"

using namespace tuner;
using testing::factory;
using testing::FakeMachine;

namespace {

Plan plan_of(const std::vector<std::tuple<std::string, std::string, std::string>>& changes) {
  Plan p;
  p.profiles = {"test"};
  for (const auto& [knob, group, desired] : changes)
    p.changes.push_back({knob, group, {}, desired, ""});
  return p;
}

/// Each knob's latest rollback record status in run id's journal.
std::map<std::string, std::string> rollback_records(const StateDir& sd, const std::string& id) {
  std::map<std::string, std::string> out;
  auto j = read_journal(sd, id);
  REQUIRE(j.ok());
  for (const auto& r : j->records)
    if (r.type == RecordType::rollback && r.restore_status)
      out[r.knob] = change_status_name(*r.restore_status);
  return out;
}

std::map<std::string, ChangeStatus> statuses(const RunReport& r) {
  std::map<std::string, ChangeStatus> out;
  for (const auto& g : r.groups)
    for (const auto& c : g.changes) out[c.knob] = c.status;
  return out;
}

struct Applied {
  testing::TempDir t;
  StateDir sd;
  FakeMachine m;
  std::string run_id;
};

/// Applies a=1->10, b=2->20, c=3->30 in one group; the machine holds the after values.
std::unique_ptr<Applied> applied() {
  auto a = std::make_unique<Applied>();
  auto sd = StateDir::open(a->t.path + "/s", true);
  REQUIRE(sd.ok());
  a->sd = std::move(sd).value();
  a->m.values = {{"sysctl:t.a", "1"}, {"sysctl:t.b", "2"}, {"sysctl:t.c", "3"}};
  auto r = apply_plan(
      plan_of({{"sysctl:t.a", "g", "10"}, {"sysctl:t.b", "g", "20"}, {"sysctl:t.c", "g", "30"}}),
      a->sd, factory(a->m), {});
  REQUIRE(r.ok());
  REQUIRE(r->outcome == ApplyOutcome::applied);
  a->run_id = r->report.run_id;
  a->m.log.clear();
  return a;
}

}  // namespace

TEST_CASE("apply: a knob that cannot be written is never restored, and nothing locks out") {
  testing::TempDir t;
  auto sd = StateDir::open(t.path + "/s", true);
  REQUIRE(sd.ok());
  FakeMachine m;
  m.values = {{"sysctl:t.a", "1"}, {"sysctl:t.ro", "5"}};
  // A read-only file refuses every write, the before-value too.
  m.fail.emplace("sysctl:t.ro=6", errno_error("cannot write", "/proc/sys/ro", EACCES));
  m.fail.emplace("sysctl:t.ro=5", errno_error("cannot write", "/proc/sys/ro", EACCES));
  auto r = apply_plan(plan_of({{"sysctl:t.a", "g", "10"}, {"sysctl:t.ro", "g", "6"}}), *sd,
                      factory(m), {});
  REQUIRE(r.ok());
  CHECK(r->outcome == ApplyOutcome::rolled_back);
  CHECK(m.log == std::vector<std::string>{"sysctl:t.a=10", "sysctl:t.ro=6", "sysctl:t.a=1"});
  CHECK(m.values == std::map<std::string, std::string>{{"sysctl:t.a", "1"}, {"sysctl:t.ro", "5"}});
  auto st = statuses(r->report);
  CHECK(st["sysctl:t.a"] == ChangeStatus::rolled_back);
  CHECK(st["sysctl:t.ro"] == ChangeStatus::failed);
  REQUIRE(r->report.errors.size() == 1);  // the write that failed, and nothing else
  CHECK(r->report.errors[0].message.find("Permission denied") != std::string::npos);
  CHECK(r->report.errors[0].knob == "sysctl:t.ro");
  auto records = rollback_records(*sd, r->report.run_id);
  CHECK(records["sysctl:t.a"] == "restored");
  CHECK(records["sysctl:t.ro"] == "not_applied");
  auto j = read_journal(*sd, r->report.run_id);
  CHECK(summarize_run(r->report.run_id, *j).status == RunStatus::rolled_back);
  auto unfinished = find_unfinished_run(*sd);
  REQUIRE(unfinished.ok());
  CHECK_FALSE(unfinished->has_value());
}

TEST_CASE("rollback: a knob whose object is gone is reported, the rest is restored") {
  auto a = applied();
  a->m.values.erase("sysctl:t.b");  // the interface it belonged to was deleted
  auto r = rollback_run(a->sd, a->run_id, factory(a->m));
  REQUIRE(r.ok());
  CHECK(r->errors.empty());
  auto st = statuses(*r);
  CHECK(st["sysctl:t.b"] == ChangeStatus::gone);
  CHECK(st["sysctl:t.a"] == ChangeStatus::restored);
  CHECK(a->m.values ==
        std::map<std::string, std::string>{{"sysctl:t.a", "1"}, {"sysctl:t.c", "3"}});
  auto j = read_journal(a->sd, a->run_id);
  RunSummary s = summarize_run(a->run_id, *j);
  CHECK(s.status == RunStatus::rolled_back);
  CHECK(s.gone == 1);
  CHECK(load_state(a->sd)->knobs.empty());

  // Gone when the write finds it missing, too.
  auto b = applied();
  b->m.fail.emplace("sysctl:t.c=3", errno_error("no such device", "sysctl:t.c", ENODEV));
  r = rollback_run(b->sd, b->run_id, factory(b->m));
  REQUIRE(r.ok());
  CHECK(r->errors.empty());
  CHECK(statuses(*r)["sysctl:t.c"] == ChangeStatus::gone);
}

TEST_CASE("rollback: a value someone changed since is left as it is; --force restores it") {
  auto a = applied();
  a->m.values["sysctl:t.b"] = "25";  // an operator's edit
  auto r = rollback_run(a->sd, a->run_id, factory(a->m));
  REQUIRE(r.ok());
  CHECK(r->errors.empty());
  CHECK(a->m.values["sysctl:t.b"] == "25");
  CHECK(a->m.values["sysctl:t.a"] == "1");
  CHECK(a->m.log == std::vector<std::string>{"sysctl:t.c=3", "sysctl:t.a=1"});
  const ChangeReport* b = nullptr;
  for (const auto& c : r->groups.at(0).changes)
    if (c.knob == "sysctl:t.b") b = &c;
  REQUIRE(b);
  CHECK(b->status == ChangeStatus::changed_since);
  CHECK(b->error.find("changed by someone else") != std::string::npos);
  CHECK(b->error.find("'25'") != std::string::npos);
  CHECK(b->error.find("--force") != std::string::npos);
  auto j = read_journal(a->sd, a->run_id);
  RunSummary s = summarize_run(a->run_id, *j);
  CHECK(s.status == RunStatus::rolled_back);  // settled: apply may run again
  CHECK(s.left == std::vector<std::string>{"sysctl:t.b"});
  // tuner no longer keeps it: `restore` at boot must not write over the edit.
  CHECK(load_state(a->sd)->knobs.empty());

  // Without --force a second rollback is refused and says how; with it, b goes back.
  auto again = rollback_run(a->sd, a->run_id, factory(a->m));
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().message().find("--force") != std::string::npos);
  a->m.log.clear();
  auto forced = rollback_run(a->sd, a->run_id, factory(a->m), {.force = true});
  REQUIRE(forced.ok());
  CHECK(a->m.log == std::vector<std::string>{"sysctl:t.b=2"});
  CHECK(statuses(*forced)["sysctl:t.b"] == ChangeStatus::restored);
  j = read_journal(a->sd, a->run_id);
  s = summarize_run(a->run_id, *j);
  CHECK(s.left.empty());
  CHECK(s.status == RunStatus::rolled_back);
  CHECK_FALSE(rollback_run(a->sd, a->run_id, factory(a->m), {.force = true}).ok());
}

TEST_CASE("rollback: a later run's value is named, and left too") {
  auto a = applied();
  // A later run sets b again; rolling back the older one out of order leaves it.
  auto later = apply_plan(plan_of({{"sysctl:t.b", "g", "21"}}), a->sd, factory(a->m), {});
  REQUIRE(later.ok());
  auto r = rollback_run(a->sd, a->run_id, factory(a->m));
  REQUIRE(r.ok());
  CHECK(a->m.values["sysctl:t.b"] == "21");
  std::string why;
  for (const auto& c : r->groups.at(0).changes)
    if (c.knob == "sysctl:t.b") why = c.error;
  CHECK(why.find("changed by run " + later->report.run_id) != std::string::npos);
  auto st = load_state(a->sd);
  REQUIRE(st.ok());
  CHECK(st->knobs.at("sysctl:t.b").run_id == later->report.run_id);
  CHECK(st->knobs.at("sysctl:t.b").earlier.empty());
}

TEST_CASE("rollback: a value already back is not written again") {
  auto a = applied();
  a->m.values["sysctl:t.c"] = "3";  // put back by hand
  auto r = rollback_run(a->sd, a->run_id, factory(a->m));
  REQUIRE(r.ok());
  CHECK(a->m.log == std::vector<std::string>{"sysctl:t.b=2", "sysctl:t.a=1"});
  CHECK(statuses(*r)["sysctl:t.c"] == ChangeStatus::restored);
}
