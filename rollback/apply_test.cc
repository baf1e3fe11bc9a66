#include "rollback/apply.h"

#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <optional>

#include "rollback/fake_machine_test.h"
#include "rollback/journal.h"
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

std::vector<RecordType> types(const JournalText& j) {
  std::vector<RecordType> out;
  for (const auto& r : j.records) out.push_back(r.type);
  return out;
}

}  // namespace

TEST_CASE("apply: groups in plan order, journaled, state recorded") {
  testing::TempDir t;
  auto sd = StateDir::open(t.path + "/s", true);
  REQUIRE(sd.ok());
  FakeMachine m;
  m.values = {{"sysctl:t.a", "1"}, {"sysctl:t.b", "2"}, {"irq:5:affinity", "0-3"}};
  Plan p = plan_of(
      {{"sysctl:t.a", "net", "10"}, {"sysctl:t.b", "net", "2"}, {"irq:5:affinity", "irq", "1"}});
  auto r = apply_plan(p, *sd, factory(m), {});
  REQUIRE(r.ok());
  CHECK(r->outcome == ApplyOutcome::applied);
  CHECK(m.log == std::vector<std::string>{"sysctl:t.a=10", "irq:5:affinity=1"});  // b unchanged
  REQUIRE(r->report.groups.size() == 2);
  CHECK(r->report.groups[0].name == "net");
  CHECK(r->report.groups[0].changes.size() == 1);
  CHECK(r->report.groups[1].changes[0].before == "0-3");

  auto j = read_journal(*sd, r->report.run_id);
  REQUIRE(j.ok());
  using T = RecordType;
  CHECK(types(*j) == std::vector<T>{T::begin, T::intent, T::done, T::decision, T::intent, T::done,
                                    T::decision, T::end});
  auto st = load_state(*sd);
  REQUIRE(st.ok());
  CHECK(st->knobs["sysctl:t.a"].value == "10");
  CHECK(st->knobs["sysctl:t.a"].before == "1");
  CHECK(st->knobs["irq:5:affinity"].run_id == r->report.run_id);

  // Idempotent: the second run finds nothing to change and writes no journal.
  auto again = apply_plan(p, *sd, factory(m), {});
  REQUIRE(again.ok());
  CHECK(again->outcome == ApplyOutcome::nothing_to_change);
  CHECK(list_runs(*sd)->size() == 1);

  // And the run rolls back from its journal alone.
  REQUIRE(rollback_run(*sd, r->report.run_id, factory(m)).ok());
  CHECK(m.values["sysctl:t.a"] == "1");
  CHECK(m.values["irq:5:affinity"] == "0-3");
  CHECK(load_state(*sd)->knobs.empty());
}

TEST_CASE("apply: a refused IRQ is skipped, the rest goes on") {
  testing::TempDir t;
  auto sd = StateDir::open(t.path + "/s", true);
  REQUIRE(sd.ok());
  FakeMachine m;
  m.values = {{"irq:57:affinity", "0-7"}, {"irq:58:affinity", "0-7"}};
  Error refused = Error::refused("the kernel refused to move it (managed IRQ)", "irq 57 (nvme0q3)");
  m.fail.emplace("irq:57:affinity=3", refused);
  auto r = apply_plan(plan_of({{"irq:57:affinity", "irq", "3"}, {"irq:58:affinity", "irq", "4"}}),
                      *sd, factory(m), {});
  REQUIRE(r.ok());
  CHECK(r->outcome == ApplyOutcome::applied);
  CHECK(r->report.errors.empty());
  auto& changes = r->report.groups.at(0).changes;
  CHECK(changes[0].status == ChangeStatus::skipped);
  CHECK(changes[0].error == "irq 57 (nvme0q3): the kernel refused to move it (managed IRQ)");
  CHECK(changes[1].status == ChangeStatus::applied);
  CHECK(m.values["irq:58:affinity"] == "4");
  CHECK(load_state(*sd)->knobs.count("irq:57:affinity") == 0);
}

TEST_CASE("apply: a failed write rolls back everything this run wrote") {
  testing::TempDir t;
  auto sd = StateDir::open(t.path + "/s", true);
  REQUIRE(sd.ok());
  FakeMachine m;
  m.values = {{"sysctl:t.a", "1"}, {"sysctl:t.b", "2"}, {"sysctl:t.c", "3"}};
  m.fail.emplace("sysctl:t.c=30", errno_error("cannot write", "/proc/sys/c", EINVAL));
  auto r = apply_plan(
      plan_of({{"sysctl:t.a", "g1", "10"}, {"sysctl:t.b", "g2", "20"}, {"sysctl:t.c", "g2", "30"}}),
      *sd, factory(m), {});
  REQUIRE(r.ok());
  CHECK(r->outcome == ApplyOutcome::rolled_back);
  CHECK(m.values == std::map<std::string, std::string>{
                        {"sysctl:t.a", "1"}, {"sysctl:t.b", "2"}, {"sysctl:t.c", "3"}});
  REQUIRE_FALSE(r->report.errors.empty());
  CHECK(r->report.errors[0].message.find("Invalid argument") != std::string::npos);
  CHECK(r->report.groups[0].decision == GroupDecision::rolled_back);
  CHECK(r->report.groups[0].changes[0].status == ChangeStatus::rolled_back);
  CHECK(load_state(*sd)->knobs.empty());
  auto j = read_journal(*sd, r->report.run_id);
  CHECK(summarize_run(r->report.run_id, *j).status == RunStatus::rolled_back);
}

TEST_CASE("apply: a knob that cannot be read changes nothing") {
  testing::TempDir t;
  auto sd = StateDir::open(t.path + "/s", true);
  REQUIRE(sd.ok());
  FakeMachine m;
  m.values = {{"sysctl:t.a", "1"}};
  auto r = apply_plan(plan_of({{"sysctl:t.a", "g", "2"}, {"sysctl:t.missing", "g", "3"}}), *sd,
                      factory(m), {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().where == "sysctl:t.missing");
  CHECK(m.log.empty());
  CHECK(list_runs(*sd)->empty());
}

TEST_CASE("apply run: set_live writes only what differs, puts back newest first") {
  testing::TempDir t;
  auto sd = StateDir::open(t.path + "/s", true);
  REQUIRE(sd.ok());
  FakeMachine m;
  m.values = {{"sysctl:t.a", "1"}, {"sysctl:t.b", "2"}, {"sysctl:t.c", "3"}};
  m.fail = {{"sysctl:t.b=20", Error::refused("read-only here", "sysctl:t.b")}};
  Plan p =
      plan_of({{"sysctl:t.a", "g", "10"}, {"sysctl:t.b", "g", "20"}, {"sysctl:t.c", "g", "30"}});
  auto run = ApplyRun::prepare(p, *sd, factory(m), {});
  REQUIRE(run.ok());
  REQUIRE(run->begin().ok());
  REQUIRE(run->write_group("g").ok());
  // b was refused: it is not among the knobs the loop may flip.
  CHECK(run->written_knobs("g") == std::vector<std::string>{"sysctl:t.a", "sysctl:t.c"});
  m.log.clear();
  REQUIRE(run->set_live("g", {"sysctl:t.a"}).ok());
  CHECK(m.log == std::vector<std::string>{"sysctl:t.c=3"});
  REQUIRE(run->set_live("g", {"sysctl:t.a"}).ok());  // already so: no write
  CHECK(m.log.size() == 1);
  REQUIRE(run->undo_group("g").ok());
  REQUIRE(run->redo_group("g").ok());
  CHECK(m.log ==
        std::vector<std::string>{"sysctl:t.c=3", "sysctl:t.a=1", "sysctl:t.a=10", "sysctl:t.c=30"});
  // Kept with c put back: the report and state.json say a stays, c went back.
  REQUIRE(run->set_live("g", {"sysctl:t.a"}).ok());
  REQUIRE(run->decide("g", GroupDecision::kept, {{"outcome", "partly_kept"}}).ok());
  auto report = run->finish();
  REQUIRE(report.ok());
  std::map<std::string, ChangeStatus> status;
  for (const auto& c : report->groups[0].changes) status[c.knob] = c.status;
  CHECK(status["sysctl:t.a"] == ChangeStatus::applied);
  CHECK(status["sysctl:t.b"] == ChangeStatus::skipped);
  CHECK(status["sysctl:t.c"] == ChangeStatus::rolled_back);
  auto state = load_state(*sd);
  REQUIRE(state.ok());
  CHECK(state->knobs.count("sysctl:t.a") == 1);
  CHECK(state->knobs.count("sysctl:t.c") == 0);
  CHECK(m.values["sysctl:t.c"] == "3");
}

TEST_CASE("apply run: an undo the kernel refuses is tried again after the group's others") {
  testing::TempDir t;
  auto sd = StateDir::open(t.path + "/s", true);
  REQUIRE(sd.ok());
  FakeMachine m;
  m.values = {{"cpu:policy0:governor", "powersave"}, {"cpu:policy0:epp", "balance_performance"}};
  // intel_pstate: no preference but performance while the governor is performance.
  m.refuse = [&m](const std::string& id, const std::string& v) -> std::optional<Error> {
    if (id == "cpu:policy0:epp" && v != "performance" &&
        m.values["cpu:policy0:governor"] == "performance")
      return Error::refused("busy under the performance governor", id, EBUSY);
    return std::nullopt;
  };
  Plan p = plan_of(
      {{"cpu:policy0:governor", "cpu", "performance"}, {"cpu:policy0:epp", "cpu", "performance"}});
  auto run = ApplyRun::prepare(p, *sd, factory(m), {});
  REQUIRE(run.ok());
  REQUIRE(run->begin().ok());
  REQUIRE(run->write_group("cpu").ok());
  m.log.clear();
  REQUIRE(run->undo_group("cpu").ok());
  CHECK(m.log == std::vector<std::string>{"cpu:policy0:epp=balance_performance",
                                          "cpu:policy0:governor=powersave",
                                          "cpu:policy0:epp=balance_performance"});
  CHECK(m.values["cpu:policy0:epp"] == "balance_performance");
  m.log.clear();
  REQUIRE(run->redo_group("cpu").ok());
  CHECK(m.log == std::vector<std::string>{"cpu:policy0:governor=performance",
                                          "cpu:policy0:epp=performance"});
}

TEST_CASE("apply run: drive in another order writes in it, reports in plan order") {
  testing::TempDir t;
  auto sd = StateDir::open(t.path + "/s", true);
  REQUIRE(sd.ok());
  FakeMachine m;
  m.values = {{"sysctl:t.a", "1"}, {"sysctl:t.b", "2"}, {"sysctl:t.c", "3"}};
  Plan p = plan_of({{"sysctl:t.a", "first", "10"},
                    {"sysctl:t.b", "second", "20"},
                    {"sysctl:t.c", "third", "30"}});
  auto run = ApplyRun::prepare(p, *sd, factory(m), {});
  REQUIRE(run.ok());
  // An order that is not the plan's groups is refused before anything is written.
  auto bad = run->drive([](const std::string&) { return Status(Ok{}); }, {"third", "first"});
  REQUIRE_FALSE(bad.ok());
  CHECK(m.log.empty());
  std::vector<std::string> stepped;
  auto r = run->drive(
      [&](const std::string& g) -> Status {
        stepped.push_back(g);
        if (Status s = run->write_group(g); !s.ok()) return s;
        return run->decide(g, GroupDecision::applied, nlohmann::json::object());
      },
      {"third", "first", "second"});
  REQUIRE(r.ok());
  CHECK(stepped == std::vector<std::string>{"third", "first", "second"});
  CHECK(m.log == std::vector<std::string>{"sysctl:t.c=30", "sysctl:t.a=10", "sysctl:t.b=20"});
  REQUIRE(r->report.groups.size() == 3);
  CHECK(r->report.groups[0].name == "first");
  CHECK(r->report.groups[1].name == "second");
  CHECK(r->report.groups[2].name == "third");
}
