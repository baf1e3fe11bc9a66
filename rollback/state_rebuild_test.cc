// state.json rebuilt from the journals must be what apply and rollback wrote as they
// went (issue #10: garbage in state.json has a way out).
#include "rollback/state_rebuild.h"

#include <doctest/doctest.h>

#include <filesystem>

#include "rollback/apply.h"
#include "rollback/fake_machine_test.h"
#include "rollback/rollback.h"
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

std::string applied(const StateDir& sd, FakeMachine& m, const Plan& p, const ApplyOptions& o = {}) {
  auto r = apply_plan(p, sd, factory(m), o);
  REQUIRE(r.ok());
  REQUIRE(r->outcome == ApplyOutcome::applied);
  return r->report.run_id;
}

}  // namespace

TEST_CASE("state rebuild: replaying the journals gives what apply and rollback kept") {
  testing::TempDir t;
  auto sd = StateDir::open(t.path + "/s", true);
  REQUIRE(sd.ok());
  FakeMachine m;
  m.values = {{"sysctl:t.a", "1"}, {"sysctl:t.b", "2"}, {"sysctl:t.c", "3"},
              {"sysctl:t.d", "4"}, {"sysctl:t.e", "5"}, {"sysctl:t.f", "6"}};
  applied(
      *sd, m,
      plan_of(
          {{"sysctl:t.a", "g1", "10"}, {"sysctl:t.b", "g1", "20"}, {"sysctl:t.c", "g2", "30"}}));
  // A later run sets b again: the first run's entry moves into `earlier`.
  applied(*sd, m, plan_of({{"sysctl:t.b", "g1", "21"}}));
  // A run rolled back keeps nothing.
  std::string undone = applied(*sd, m, plan_of({{"sysctl:t.d", "g", "40"}}));
  REQUIRE(rollback_run(*sd, undone, factory(m)).ok());
  // A boot-time restore run changes nothing in state.json.
  m.values["sysctl:t.a"] = "1";
  ApplyOptions restore;
  restore.kind = RunKind::restore;
  restore.record_state = false;
  applied(*sd, m, plan_of({{"sysctl:t.a", "g1", "10"}}), restore);
  // A verified group kept without the knob its bisect put back (partly_kept).
  {
    auto run = ApplyRun::prepare(plan_of({{"sysctl:t.e", "v", "50"}, {"sysctl:t.f", "v", "60"}}),
                                 *sd, factory(m), {});
    REQUIRE(run.ok());
    REQUIRE(run->begin().ok());
    REQUIRE(run->write_group("v").ok());
    REQUIRE(run->set_live("v", {"sysctl:t.f"}).ok());
    nlohmann::json stats = {
        {"outcome", "partly_kept"},
        {"bisect", {{"culprit", {"sysctl:t.e"}}, {"rest", {{"knobs", {"sysctl:t.f"}}}}}}};
    REQUIRE(run->decide("v", GroupDecision::kept, stats).ok());
    REQUIRE(run->finish().ok());
  }
  auto live = load_state(*sd);
  REQUIRE(live.ok());
  REQUIRE(live->knobs.size() == 4);  // a, b (with a's run in earlier), c, f

  testing::write_file(t.path + "/s/state.json", "{\"schema\":\"tuner.state/1\",\"kno");
  auto broken = load_state(*sd);
  REQUIRE_FALSE(broken.ok());
  CHECK(broken.error().message().find("'tuner state rebuild'") != std::string::npos);

  auto rebuilt = rewrite_state(*sd);
  REQUIRE(rebuilt.ok());
  CHECK(rebuilt->runs == 5);
  CHECK(rebuilt->warnings.empty());
  CHECK(encode_state(rebuilt->state) == encode_state(*live));
  auto back = load_state(*sd);
  REQUIRE(back.ok());
  CHECK(encode_state(*back) == encode_state(*live));
  // The damaged file is kept for a person to look at.
  REQUIRE_FALSE(rebuilt->moved_to.empty());
  CHECK(testing::read_text(rebuilt->moved_to) == "{\"schema\":\"tuner.state/1\",\"kno");
}

TEST_CASE("state rebuild: a damaged journal record is reported, the rest replayed") {
  testing::TempDir t;
  auto sd = StateDir::open(t.path + "/s", true);
  REQUIRE(sd.ok());
  FakeMachine m;
  m.values = {{"sysctl:t.a", "1"}, {"sysctl:t.b", "2"}};
  std::string id =
      applied(*sd, m, plan_of({{"sysctl:t.a", "g1", "10"}, {"sysctl:t.b", "g2", "20"}}));
  std::string path = t.path + "/s/runs/" + id + ".journal";
  std::string text = testing::read_text(path);
  // Damage the first group's decision: its knob is no longer known to be kept.
  auto at = text.find("{\"decision\"");
  REQUIRE(at != std::string::npos);
  text[at] = '#';
  testing::write_file(path, text);
  std::filesystem::remove(t.path + "/s/state.json");
  auto rebuilt = rewrite_state(*sd);
  REQUIRE(rebuilt.ok());
  CHECK(rebuilt->moved_to.empty());
  REQUIRE(rebuilt->warnings.size() == 1);
  CHECK(rebuilt->warnings[0].find(id + ".journal:4: damaged record skipped") != std::string::npos);
  CHECK(rebuilt->state.knobs.count("sysctl:t.a") == 0);
  CHECK(rebuilt->state.knobs.at("sysctl:t.b").value == "20");
}

TEST_CASE("state: a field of the wrong type is an error, never coerced") {
  for (
      const char* text : {
          R"({"schema":"tuner.state/1","knobs":{"sysctl:t.a":{"value":5}}})",
          R"({"schema":"tuner.state/1","knobs":{"sysctl:t.a":{"value":"5","before":4}}})",
          R"({"schema":"tuner.state/1","knobs":{"sysctl:t.a":{"value":"5","run_id":null}}})",
          R"({"schema":"tuner.state/1","knobs":{"sysctl:t.a":{"value":"5","earlier":{}}}})",
          R"({"schema":"tuner.state/1","knobs":{"sysctl:t.a":{"value":"5","earlier":[{"value":1}]}}})",
          R"({"schema":1,"knobs":{}})",
          R"({"schema":"tuner.state/1","knobs":[]})",
      }) {
    CAPTURE(text);
    auto r = parse_state(text, "x/state.json");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().where == "x/state.json");
  }
  auto ok = parse_state(R"({"schema":"tuner.state/1","knobs":{"sysctl:t.a":{"value":""}}})", "s");
  REQUIRE(ok.ok());
  CHECK(ok->knobs.at("sysctl:t.a").value.empty());
}

TEST_CASE("state rebuild: a knob id in a journal that does not parse is never copied") {
  testing::TempDir t;
  auto sd = StateDir::open(t.path + "/s", true);
  REQUIRE(sd.ok());
  FakeMachine m;
  m.values = {{"sysctl:t.a", "1"}};
  std::string id = applied(*sd, m, plan_of({{"sysctl:t.a", "g1", "10"}}));
  std::string path = t.path + "/s/runs/" + id + ".journal";
  std::string text = testing::read_text(path);
  // A damaged journal: an intent and done of an id no knob is built from, in g1, before
  // g1's decision keeps what was written.
  auto at = text.find("{\"decision\"");
  REQUIRE(at != std::string::npos);
  text.insert(
      at, "{\"type\":\"intent\",\"knob\":\"sysctl:../x\",\"group\":\"g1\",\"before\":\"1\","
          "\"after\":\"2\"}\n{\"type\":\"done\",\"knob\":\"sysctl:../x\",\"readback\":\"2\"}\n");
  testing::write_file(path, text);
  std::filesystem::remove(t.path + "/s/state.json");
  auto rebuilt = rewrite_state(*sd);
  REQUIRE(rebuilt.ok());
  CHECK(rebuilt->warnings.size() == 2);
  CHECK(rebuilt->state.knobs.count("sysctl:../x") == 0);
  CHECK(rebuilt->state.damaged.empty());
  CHECK(rebuilt->state.knobs.at("sysctl:t.a").value == "10");
}
