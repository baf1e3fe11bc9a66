// Bisecting a rejected group (loop_rig_test.h's machine with several knobs): the knob
// that hurts is found, put back, and the rest kept only on its own proof.
#include "tuner/verify/loop.h"

#include <doctest/doctest.h>

#include "tuner/verify/loop_rig_test.h"

using namespace tuner;
using namespace tuner::verify;
using namespace tuner::verify::loop_test;

TEST_CASE("verify loop bisect: the knob that hurts is found and the rest is kept") {
  Rig rig({"sysctl:t.a", "sysctl:t.b", "sysctl:t.c", "sysctl:t.d"});
  KnobsBench bench = rig.bench({{"sysctl:t.a", {0.06, 0}},
                                {"sysctl:t.b", {0.0, 0}},
                                {"sysctl:t.c", {-0.25, 0}},
                                {"sysctl:t.d", {0.06, 0}}},
                               17);
  RunReport report;
  auto out = rig.bisect(bench, {}, &report);
  REQUIRE(out.ok());
  INFO(to_json(*out).dump(1));
  CHECK(out->decision == GroupDecision::kept);
  CHECK(out->reason == Reason::partly_kept);
  REQUIRE(out->measured);
  CHECK(out->measured->verdict == Verdict::harm);  // the whole group's own numbers stay on top
  REQUIRE(out->bisect);
  const Bisect& b = *out->bisect;
  CHECK(b.complete);
  CHECK(b.culprit == std::vector<std::string>{"sysctl:t.c"});
  REQUIRE(b.rest);
  CHECK(b.rest->knobs == std::vector<std::string>{"sysctl:t.a", "sysctl:t.b", "sysctl:t.d"});
  CHECK(b.rest->outcome == Reason::gain);
  // Halves of 4, then of 2: {a,b} no harm, {c,d} harm, {c} harm.
  REQUIRE(b.steps.size() == 3);
  CHECK(b.steps[0].outcome == StepOutcome::no_harm);
  CHECK(b.steps[1].outcome == StepOutcome::harm);
  CHECK(b.steps[2].outcome == StepOutcome::harm);
  // The machine holds the rest; the culprit is back.
  CHECK(rig.m.values["sysctl:t.a"] == "tuned");
  CHECK(rig.m.values["sysctl:t.b"] == "tuned");
  CHECK(rig.m.values["sysctl:t.c"] == "default");
  CHECK(rig.m.values["sysctl:t.d"] == "tuned");
  // state.json has what stays, the report says what went back.
  auto state = load_state(rig.dir);
  REQUIRE(state.ok());
  CHECK(state->knobs.count("sysctl:t.a") == 1);
  CHECK(state->knobs.count("sysctl:t.c") == 0);
  REQUIRE(report.groups.size() == 1);
  for (const auto& c : report.groups[0].changes)
    CHECK(c.status == (c.knob == "sysctl:t.c" ? ChangeStatus::rolled_back : ChangeStatus::applied));
  CHECK(report.changed);
  // The journal's decision carries the bisect; a rollback of the run puts all back.
  JournalRecord d = rig.decision_record();
  CHECK(d.decision == GroupDecision::kept);
  CHECK(d.stats["outcome"] == "partly_kept");
  CHECK(strings_of(d.stats["bisect"]["culprit"]) == std::vector<std::string>{"sysctl:t.c"});
  auto text = read_journal(rig.dir, report.run_id);
  REQUIRE(text.ok());
  for (const RestoreStep& s : restore_steps(*text)) CHECK(s.value == "default");
  CHECK(restore_steps(*text).size() == 4);
}

TEST_CASE("verify loop bisect: a guard names the knob that trips it") {
  Rig rig({"sysctl:t.a", "sysctl:t.b"});
  KnobsBench bench = rig.bench({{"sysctl:t.a", {0.10, 0}}, {"sysctl:t.b", {0.0, 500}}}, 5);
  auto out = rig.bisect(bench);
  REQUIRE(out.ok());
  INFO(to_json(*out).dump(1));
  CHECK(out->bisect->steps[0].outcome == StepOutcome::no_harm);
  CHECK(out->bisect->steps[1].outcome == StepOutcome::guard);
  CHECK(out->bisect->culprit == std::vector<std::string>{"sysctl:t.b"});
  CHECK(out->reason == Reason::partly_kept);
  CHECK(rig.m.values["sysctl:t.a"] == "tuned");
  CHECK(rig.m.values["sysctl:t.b"] == "default");
}

TEST_CASE("verify loop bisect: knobs that hurt only together stay together, rolled back") {
  Rig rig({"sysctl:t.a", "sysctl:t.b"});
  KnobsBench bench = rig.bench({{"sysctl:t.a", {0.0, 0}}, {"sysctl:t.b", {0.0, 0}}}, 9);
  bench.together_ = -0.25;
  auto out = rig.bisect(bench);
  REQUIRE(out.ok());
  INFO(to_json(*out).dump(1));
  CHECK(out->decision == GroupDecision::rolled_back);
  CHECK(out->reason == Reason::harm);
  CHECK(out->bisect->steps.size() == 2);
  CHECK(out->bisect->culprit == std::vector<std::string>{"sysctl:t.a", "sysctl:t.b"});
  CHECK(out->bisect->note == "no part of the group hurts on its own");
  CHECK(rig.m.values["sysctl:t.a"] == "default");
  CHECK(rig.m.values["sysctl:t.b"] == "default");
}

TEST_CASE("verify loop bisect: a rest that does not earn its keep is rolled back too") {
  Rig rig({"sysctl:t.a", "sysctl:t.b"});
  KnobsBench bench = rig.bench({{"sysctl:t.a", {0.0, 0}}, {"sysctl:t.b", {-0.25, 0}}}, 3);
  auto out = rig.bisect(bench);
  REQUIRE(out.ok());
  INFO(to_json(*out).dump(1));
  CHECK(out->decision == GroupDecision::rolled_back);
  CHECK(out->bisect->culprit == std::vector<std::string>{"sysctl:t.b"});
  CHECK(out->bisect->rest->outcome != Reason::gain);
  CHECK(rig.m.values["sysctl:t.a"] == "default");
  CHECK(rig.m.values["sysctl:t.b"] == "default");
  auto state = load_state(rig.dir);
  REQUIRE(state.ok());
  CHECK(state->knobs.empty());
}

TEST_CASE("verify loop bisect: off unless asked, and never for a kept or unmeasured group") {
  Rig rig({"sysctl:t.a", "sysctl:t.b"});
  KnobsBench bench = rig.bench({{"sysctl:t.a", {0.0, 0}}, {"sysctl:t.b", {-0.25, 0}}}, 3);
  auto out = rig.verify(bench);
  REQUIRE(out.ok());
  CHECK(out->reason == Reason::harm);
  CHECK_FALSE(out->bisect.has_value());

  Rig kept({"sysctl:t.a", "sysctl:t.b"});
  KnobsBench good = kept.bench({{"sysctl:t.a", {0.10, 0}}, {"sysctl:t.b", {0.0, 0}}}, 3);
  auto k = kept.bisect(good);
  REQUIRE(k.ok());
  CHECK(k->reason == Reason::gain);
  CHECK_FALSE(k->bisect.has_value());
  CHECK(kept.m.values["sysctl:t.a"] == "tuned");
  CHECK(kept.m.values["sysctl:t.b"] == "tuned");
}

TEST_CASE("verify loop bisect: past the budget it stops, says so, and rolls all back") {
  Rig rig({"sysctl:t.a", "sysctl:t.b"});
  KnobsBench bench = rig.bench({{"sysctl:t.a", {0.0, 0}}, {"sysctl:t.b", {-0.25, 0}}}, 3);
  LoopOptions o;
  o.budget = std::chrono::seconds(10);
  o.settle = std::chrono::milliseconds(250);  // the fake clock advances only by settling
  auto out = rig.bisect(bench, o);
  REQUIRE(out.ok());
  INFO(to_json(*out).dump(1));
  CHECK(out->decision == GroupDecision::rolled_back);
  CHECK(out->bisect->complete == false);
  CHECK(out->bisect->note == "bisect stopped: budget");
  CHECK(rig.m.values["sysctl:t.a"] == "default");
  CHECK(rig.m.values["sysctl:t.b"] == "default");
}

TEST_CASE("verify loop bisect: three small gains are rescued from one larger loss") {
  // Knob effects +2, +2, +2 and -5%: the whole group is about +1%, no gain. The half
  // holding the loss and one gain is about -3%; the half with two gains must be let run
  // to max_trials rather than stop for futility, or the search ends with nothing
  // found (11% rescued when halves stopped early). Target: >= 90% rescued.
  int rescued = 0, runs = 20;
  for (int seed = 1; seed <= runs; ++seed) {
    Rig rig({"sysctl:t.a", "sysctl:t.b", "sysctl:t.c", "sysctl:t.d"});
    KnobsBench bench = rig.bench({{"sysctl:t.a", {0.02, 0}},
                                  {"sysctl:t.b", {0.02, 0}},
                                  {"sysctl:t.c", {0.02, 0}},
                                  {"sysctl:t.d", {-0.05, 0}}},
                                 static_cast<unsigned>(seed));
    auto out = rig.bisect(bench);
    REQUIRE(out.ok());
    bool found = out->bisect && out->bisect->culprit &&
                 *out->bisect->culprit == std::vector<std::string>{"sysctl:t.d"};
    rescued += found && rig.m.values["sysctl:t.a"] == "tuned" &&
               rig.m.values["sysctl:t.d"] == "default";
  }
  CHECK(rescued >= 18);
}
