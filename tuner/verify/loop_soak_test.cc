// The verify loop's guard soak on the test rig: bench = [] groups, bisects of a tripped
// soak, and class decisions reused under a soak.
#include <functional>

#include <doctest/doctest.h>

#include "tests/support/temp_dir.h"
#include "tuner/verify/loop_rig_test.h"
#include "tuner/verify/soak.h"
#include "tuner/verify/soak_rig_test.h"

using namespace tuner;
using namespace tuner::verify;
using namespace tuner::verify::soak_test;

namespace {

using loop_test::Rig;

/// The verify loop on a bench = [] group "irq" of sysctl:x, kept when neutral, on a node
/// whose retransmits are `tuned_retrans` while sysctl:x is tuned.
struct SoakRig {
  Rig rig;
  std::optional<GroupPlan::Reuse> reuse;  // a class decision reused (apply --decisions)
  Node node{rig.root_dir()};
  NodeClock clock{node};
  Result<GroupOutcome> verify(double tuned_retrans, RunReport* report) {
    return verify(
        [this, tuned_retrans] {
          return rig.m.values["sysctl:t.x"] == "tuned" ? tuned_retrans : 0.001;
        },
        {"sysctl:t.x"}, false, report);
  }
  /// The group of `knobs`, bisected when asked, on a node whose retransmit rate is
  /// retrans() (it may read the knobs).
  Result<GroupOutcome> verify(std::function<double()> retrans,
                              const std::vector<std::string>& knobs, bool bisect,
                              RunReport* report) {
    node.retrans_now = std::move(retrans);
    for (const std::string& k : knobs) rig.m.values.try_emplace(k, "default");
    Plan plan;
    plan.profiles = {"test"};
    for (const std::string& k : knobs)
      plan.changes.push_back({k, "irq", std::string("default"), "tuned", ""});
    auto run = ApplyRun::prepare(plan, rig.dir, rig.factory(), {});
    REQUIRE(run.ok());
    REQUIRE(run->begin().ok());
    LoopOptions o;
    o.guards.set({bench::GuardMetric::tcp_retrans_pct, 0.5});
    o.guard_interfaces = {"eth0"};
    o.soak = std::chrono::seconds(20);
    VerifyLoop loop(*run, rig.root, clock, o);
    GroupPlan group{"irq", nullptr, true, Design::interleaved, bisect, {}, {}};
    group.reuse = reuse;
    auto out = loop.verify_group(group);
    if (out.ok()) {
      auto r = run->finish();
      REQUIRE(r.ok());
      *report = *r;
    }
    return out;
  }
};

}  // namespace

TEST_CASE("verify loop: a bench = [] group that raises retransmits is rolled back by the soak") {
  SoakRig s;
  RunReport report;
  auto out = s.verify(0.05, &report);
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::rolled_back);
  CHECK(out->reason == Reason::guard);
  CHECK(s.rig.m.values["sysctl:t.x"] == "default");
  CHECK(s.clock.slept_ >= std::chrono::seconds(40));
  CHECK(out->soak["decision"] == "tripped");
  CHECK(out->soak["window_s"] == 20.0);
  CHECK(out->error.find("guard tripped: tcp_retrans_pct") == 0);
  CHECK(to_json(*out)["error"] == out->error);
  CHECK(report.groups[0].changes[0].status != ChangeStatus::applied);
}

TEST_CASE("verify loop: a harmless bench = [] group passes the soak and is kept") {
  SoakRig s;
  RunReport report;
  auto out = s.verify(0.001, &report);
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::kept);
  CHECK(out->reason == Reason::not_measurable_kept);
  CHECK(s.rig.m.values["sysctl:t.x"] == "tuned");
  CHECK(out->soak["decision"] == "passed");
  CHECK(out->error.empty());
  CHECK_FALSE(to_json(*out).contains("error"));
}

TEST_CASE("verify loop: a soak with no workload traffic keeps as chosen, undecided") {
  SoakRig s;
  s.node.segs_per_s = 10;  // an idle node: a little TCP, a few broadcast frames
  s.node.packets_per_s = 5;
  RunReport report;
  auto out = s.verify(0.05, &report);  // it would retransmit, but nothing shows it
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::kept);
  CHECK(out->reason == Reason::soak_undecided);  // not "not_measurable_kept": not shown harmless
  CHECK(s.rig.m.values["sysctl:t.x"] == "tuned");
  CHECK(out->soak["decision"] == "no_traffic");
  CHECK(out->unmeasured.find("no workload traffic: undecided, kept as chosen (not shown "
                             "harmless)") != std::string::npos);
  nlohmann::json j = to_json(*out);
  CHECK(j["outcome"] == "soak_undecided");
  auto back = outcome_from_json(j);
  REQUIRE(back.ok());
  CHECK(back->decision == GroupDecision::kept);
  CHECK(back->reason == Reason::soak_undecided);
}

TEST_CASE("verify loop: a soak that trips is bisected, and the rest is kept when it passes") {
  SoakRig s;
  RunReport report;
  auto tuned = [&s](const char* k) {
    return s.rig.m.values["sysctl:" + std::string(k)] == "tuned";
  };
  auto out = s.verify([&] { return tuned("t.y") ? 0.05 : 0.001; },
                      {"sysctl:t.x", "sysctl:t.y", "sysctl:t.z", "sysctl:t.w"}, true, &report);
  REQUIRE(out.ok());
  INFO(to_json(*out).dump(1));
  CHECK(out->decision == GroupDecision::kept);
  CHECK(out->reason == Reason::partly_kept);
  CHECK(s.rig.m.values["sysctl:t.y"] == "default");
  CHECK(s.rig.m.values["sysctl:t.x"] == "tuned");
  CHECK(s.rig.m.values["sysctl:t.z"] == "tuned");
  CHECK(s.rig.m.values["sysctl:t.w"] == "tuned");
  REQUIRE(out->bisect);
  CHECK(out->bisect->culprit == std::vector<std::string>{"sysctl:t.y"});
  // x,y trips; then x alone passes and y alone trips: three soaks, then the rest.
  REQUIRE(out->bisect->steps.size() == 3);
  CHECK(out->bisect->steps[0].outcome == StepOutcome::guard);
  CHECK(out->bisect->steps[1].outcome == StepOutcome::no_harm);
  CHECK(out->bisect->steps[2].knobs == std::vector<std::string>{"sysctl:t.y"});
  CHECK(out->bisect->steps[2].soak["decision"] == "tripped");
  REQUIRE(out->bisect->rest);
  CHECK(out->bisect->rest->outcome == Reason::not_measurable_kept);
  CHECK(out->bisect->rest->soak["decision"] == "passed");
  CHECK(out->bisect->note == "kept without sysctl:t.y");
  // The journal's copy reads back the same, without benchmark numbers for the soaks.
  nlohmann::json j = to_json(*out);
  CHECK_FALSE(j["bisect"]["steps"][0].contains("bench"));
  auto back = outcome_from_json(j);
  REQUIRE(back.ok());
  CHECK(to_json(*back) == j);
  for (const auto& g : report.groups)
    for (const auto& c : g.changes)
      CHECK((c.status == ChangeStatus::applied) == (c.knob != "sysctl:t.y"));
}

TEST_CASE("verify loop: a soak that trips only for knobs together rolls the whole group back") {
  SoakRig s;
  RunReport report;
  auto tuned = [&s](const char* k) {
    return s.rig.m.values["sysctl:" + std::string(k)] == "tuned";
  };
  auto out = s.verify([&] { return tuned("t.x") && tuned("t.y") ? 0.05 : 0.001; },
                      {"sysctl:t.x", "sysctl:t.y"}, true, &report);
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::rolled_back);
  CHECK(out->reason == Reason::guard);
  REQUIRE(out->bisect);
  CHECK(out->bisect->note == "no part of the group trips a guard on its own");
  CHECK(out->bisect->steps.size() == 2);
  CHECK(s.rig.m.values["sysctl:t.x"] == "default");
  CHECK(s.rig.m.values["sysctl:t.y"] == "default");
}

TEST_CASE("verify loop: without bisect a tripped soak is not bisected") {
  SoakRig s;
  RunReport report;
  auto out = s.verify([&] { return s.rig.m.values["sysctl:t.y"] == "tuned" ? 0.05 : 0.001; },
                      {"sysctl:t.x", "sysctl:t.y"}, false, &report);
  REQUIRE(out.ok());
  CHECK(out->reason == Reason::guard);
  CHECK_FALSE(out->bisect);
  CHECK(s.rig.m.values["sysctl:t.x"] == "default");
}

namespace {

/// A class decision as reuse_of() builds it.
GroupPlan::Reuse class_reuse(bool write, Reason reason, const char* decision) {
  return {write, reason,
          nlohmann::json{{"class", "hw-0123456789abcdef"},
                         {"decision", decision},
                         {"chosen", nullptr},
                         {"canaries", {"node-a", "node-b"}},
                         {"file", "/etc/tuner/decisions.json"}}};
}

}  // namespace

TEST_CASE("verify loop: a class decision kept is written and soaked, never benchmarked") {
  SoakRig s;
  s.reuse = class_reuse(true, Reason::class_kept, "kept");
  RunReport report;
  auto out = s.verify(0.001, &report);
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::kept);
  CHECK(out->reason == Reason::class_kept);
  CHECK(s.rig.m.values["sysctl:t.x"] == "tuned");
  CHECK_FALSE(out->measured.has_value());
  CHECK(out->soak["decision"] == "passed");
  CHECK(out->class_decision["suspect"] == false);
  CHECK(out->unmeasured ==
        "class hw-0123456789abcdef (/etc/tuner/decisions.json): canaries node-a, node-b kept "
        "it: written, and watched by the soak only");
  // The journal's decision record reads back with the class decision.
  auto back = outcome_from_json(to_json(*out));
  REQUIRE(back.ok());
  CHECK(back->reason == Reason::class_kept);
  CHECK(back->decision == GroupDecision::kept);
  CHECK(back->class_decision == out->class_decision);
  CHECK(report.groups[0].stats["class_decision"]["canaries"].size() == 2);
}

TEST_CASE("verify loop: a class decision the soak trips on is put back here and suspect") {
  SoakRig s;
  s.reuse = class_reuse(true, Reason::class_kept, "kept");
  RunReport report;
  auto out = s.verify(0.05, &report);
  REQUIRE(out.ok());
  CHECK(out->decision == GroupDecision::rolled_back);
  CHECK(out->reason == Reason::guard);
  CHECK(s.rig.m.values["sysctl:t.x"] == "default");
  CHECK(out->class_decision["suspect"] == true);
  CHECK(out->error.find("guard tripped: tcp_retrans_pct") == 0);
  CHECK(out->error.find("the class's decision is suspect") != std::string::npos);
  CHECK(report.groups[0].stats["class_decision"]["suspect"] == true);
}

TEST_CASE("verify loop: a class decision rolled back or disputed is never written") {
  for (auto [reason, name] : {std::pair{Reason::class_rolled_back, "rolled_back"},
                              std::pair{Reason::class_disagree, "disagree"},
                              std::pair{Reason::class_undecided, "none"}}) {
    const char* decision = name;
    CAPTURE(decision);
    SoakRig s;
    s.reuse = class_reuse(false, reason, decision);
    RunReport report;
    auto out = s.verify(0.001, &report);
    REQUIRE(out.ok());
    CHECK(out->decision == GroupDecision::rolled_back);
    CHECK(out->reason == reason);
    CHECK(s.rig.m.writes.empty());
    CHECK(s.clock.slept_ == std::chrono::seconds(0));  // no soak, no trials
    CHECK(out->soak.is_null());
    CHECK(report.groups[0].changes[0].status == ChangeStatus::not_applied);
    CHECK(report.groups[0].stats["outcome"] == reason_name(reason));
  }
}
