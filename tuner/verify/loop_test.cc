// The verify loop on an in-memory machine (loop_rig_test.h): one knob, a benchmark
// that depends on it. Asserts what an operator sees: decision, machine state, journal
// and state.json. Bisect: loop_bisect_test.cc; watching benchmarks: loop_watch_test.cc.
#include "tuner/verify/loop.h"

#include <doctest/doctest.h>

#include "tuner/verify/loop_rig_test.h"
#include "tuner/verify/stats.h"

using namespace tuner;
using namespace tuner::verify;
using namespace tuner::verify::loop_test;

TEST_CASE("verify loop: a real 10% gain is kept, journaled with its numbers, and stays") {
  Rig rig;
  KnobsBench bench = rig.bench({{"sysctl:t.x", {0.10}}}, 7);
  auto out = rig.verify(bench);
  REQUIRE(out.ok());
  INFO(to_json(*out).dump());
  CHECK(out->decision == GroupDecision::kept);
  CHECK(out->reason == Reason::gain);
  CHECK(rig.m.values["sysctl:t.x"] == "tuned");
  JournalRecord d = rig.decision_record();
  CHECK(d.decision == GroupDecision::kept);
  CHECK(d.stats["effect"].get<double>() > 0.05);
  CHECK(d.stats["ci"][0].get<double>() > 0.02);
  CHECK(d.stats["trials"]["baseline"].get<unsigned>() >= 5);
  CHECK(d.stats["trials"]["baseline"] == d.stats["trials"]["candidate"]);
  CHECK(d.stats["unit"] == "ops/s");
  auto state = load_state(rig.dir);
  REQUIRE(state.ok());
  CHECK(state->knobs.count("sysctl:t.x") == 1);
  // Both arms were measured, alternately: the knob was flipped back and forth.
  CHECK(rig.m.writes.size() > 4);
  CHECK(rig.clock.slept() > std::chrono::milliseconds(0));  // settled after flips
}

TEST_CASE("verify loop: every trial's value is reported in the order run, with the test's terms") {
  Rig rig;
  KnobsBench bench = rig.bench({{"sysctl:t.x", {0.10}}}, 7);
  auto out = rig.verify(bench);
  REQUIRE(out.ok());
  REQUIRE(out->measured);
  const Comparison& c = *out->measured;
  REQUIRE(c.values.size() == c.order.size());
  CHECK(c.values.size() == c.trials_baseline + c.trials_candidate);
  std::vector<double> a, b;
  for (std::size_t i = 0; i < c.order.size(); ++i)
    (c.order[i] == 'A' ? a : b).push_back(c.values[i]);
  // The medians reported are those of these values: each value sits with its arm.
  CHECK(median(a) == doctest::Approx(c.stats.baseline_median));
  CHECK(median(b) == doctest::Approx(c.stats.candidate_median));
  CHECK(c.direction == Direction::higher);
  CHECK(c.min_effect == 0.02);  // the rig's
  CHECK(c.power_effect.has_value());
  JournalRecord d = rig.decision_record();
  CHECK(d.stats["values"].size() == c.order.size());
  CHECK(d.stats["direction"] == "higher");
}

TEST_CASE("verify loop: no effect is rolled back and the machine is as before") {
  Rig rig;
  KnobsBench bench = rig.bench({{"sysctl:t.x", {0.0}}}, 11);
  auto out = rig.verify(bench);
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::rolled_back);
  CHECK((out->reason == Reason::no_gain || out->reason == Reason::inconclusive));
  CHECK(rig.m.values["sysctl:t.x"] == "default");
  auto state = load_state(rig.dir);
  REQUIRE(state.ok());
  CHECK(state->knobs.count("sysctl:t.x") == 0);
  CHECK(rig.decision_record().decision == GroupDecision::rolled_back);
}

TEST_CASE("verify loop: harm is rolled back early, whatever keep_if_neutral says") {
  Rig rig;
  KnobsBench bench = rig.bench({{"sysctl:t.x", {-0.15}}}, 3);
  auto out = rig.verify(bench, /*keep_if_neutral=*/true);
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::rolled_back);
  CHECK(out->reason == Reason::harm);
  CHECK(rig.m.values["sysctl:t.x"] == "default");
  CHECK(bench.runs_ < 60);  // stopped before the budget of 30 per arm
}

TEST_CASE("verify loop: keep_if_neutral keeps a group with no proven effect") {
  Rig rig;
  KnobsBench bench = rig.bench({{"sysctl:t.x", {0.0}}}, 5);
  auto out = rig.verify(bench, /*keep_if_neutral=*/true);
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::kept);
  CHECK(out->reason == Reason::neutral_kept);
  CHECK(rig.m.values["sysctl:t.x"] == "tuned");
}

TEST_CASE("verify loop: a gain that raises retransmits trips the guard and is rolled back") {
  Rig rig;
  KnobsBench bench = rig.bench({{"sysctl:t.x", {0.10, 500}}}, 7);  // 5% of segments
  auto out = rig.verify(bench);
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::rolled_back);
  CHECK(out->reason == Reason::guard);
  REQUIRE(out->measured);
  CHECK(out->measured->error.find("tcp_retrans_pct") != std::string::npos);
  CHECK(rig.m.values["sysctl:t.x"] == "default");
  bool tripped = false;
  for (const GuardResult& g : out->measured->guards)
    if (g.metric == bench::GuardMetric::tcp_retrans_pct) tripped = g.tripped;
  CHECK(tripped);
}

TEST_CASE("verify loop: a benchmark that fails rolls the group back and says why") {
  Rig rig;
  KnobsBench bench = rig.bench({{"sysctl:t.x", {0.10}}}, 7);
  bench.fail_when_tuned_ = true;
  auto out = rig.verify(bench);
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::rolled_back);
  CHECK(out->reason == Reason::bench_failed);
  REQUIRE(out->measured);
  CHECK(out->measured->error.find("exit status 3") != std::string::npos);
  CHECK(rig.m.values["sysctl:t.x"] == "default");
}

TEST_CASE("verify loop: past the time budget the group ends inconclusive and goes back") {
  Rig rig;
  KnobsBench bench = rig.bench({{"sysctl:t.x", {0.10}}}, 7);
  LoopOptions o;
  o.budget = std::chrono::seconds(1);
  o.settle = std::chrono::milliseconds(400);  // the fake clock advances only by settling
  auto out = rig.verify(bench, false, o);
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::rolled_back);
  CHECK(out->reason == Reason::budget);
  CHECK(rig.m.values["sysctl:t.x"] == "default");
}

TEST_CASE("verify loop: a group nothing can measure is not applied unless kept when neutral") {
  Rig rig;
  Plan plan;
  plan.profiles = {"test"};
  plan.changes.push_back({"sysctl:t.x", "irq", std::string("default"), "tuned", ""});
  auto run = ApplyRun::prepare(plan, rig.dir, rig.factory(), {});
  REQUIRE(run.ok());
  REQUIRE(run->begin().ok());
  VerifyLoop loop(*run, rig.root, rig.clock, {});
  auto out = loop.verify_group({"irq", nullptr, false, Design::interleaved, false, {}});
  REQUIRE(out.ok());
  CHECK(out->reason == Reason::not_measurable);
  CHECK_FALSE(out->measured.has_value());
  CHECK(rig.m.values["sysctl:t.x"] == "default");
  CHECK(rig.m.writes.empty());
  auto report = run->finish();
  REQUIRE(report.ok());
  CHECK(report->changed == false);
  CHECK(report->groups[0].changes[0].status == ChangeStatus::not_applied);
}
