// A searched resume latency fitted to the node's idle states, on the reconstructed
// intel_idle roots (tests/fixtures/host/cpuidle): latency.toml's [1, 2, 10] asks
// "C1 alone, C1 and C1E, or no limit" on every platform, with a different pair of
// limits on each.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include "probes/cpuidle.h"
#include "tests/support/temp_dir.h"
#include "tuner/plan/builder.h"
#include "tuner/plan/cpuidle_node_test.h"
#include "tuner/plan/plan_test_util.h"
#include "tuner/plan/planner.h"
#include "tuner/profile/profile.h"

using namespace tuner;
using planner_detail::fit_resume_latency_search;
using testing::loc;

using Node = testing::CpuidleNode;

namespace {

/// latency.toml's setting: [cpu] resume_latency_us = { search = candidates }, line 67.
Profile searching(std::vector<std::string> candidates) {
  Profile p;
  p.name = "latency";
  p.chain = {"latency"};
  p.cpu.resume_latency = TableSetting{candidates.front(), "cpu", loc(67), candidates};
  return p;
}

std::vector<std::string> values(const PlanSearch& s) {
  std::vector<std::string> out;
  for (const PlanSearch::Candidate& c : s.candidates) out.push_back(c.value);
  return out;
}

bool has_note(const Plan& p, const std::string& text) {
  return std::ranges::any_of(
      p.notes, [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

}  // namespace

TEST_CASE("idle search: [1, 2, 10] is two candidates on SPR, SKX and GNR, a different two") {
  struct Case {
    const char* platform;
    std::vector<std::string> kept;
    const char* why;
  };
  for (const Case& c :
       {Case{"spr",
             {"1", "2"},
             "search of cpu:resume_latency (test.toml:67): candidates 2 and 10 admit the same "
             "enabled idle states on this node (C1, C1E; CPU 0's intel_idle table): one "
             "candidate, 2"},
        Case{"skx",
             {"2", "10"},
             "search of cpu:resume_latency (test.toml:67): candidate 1 dropped: it admits no "
             "idle state but polling (the shallowest, C1, takes 2 us to wake; CPU 0's "
             "intel_idle table)"},
        Case{"gnr",
             {"1", "10"},
             "search of cpu:resume_latency (test.toml:67): candidates 1 and 2 admit the same "
             "enabled idle states on this node (C1; CPU 0's intel_idle table): one candidate, "
             "1"}}) {
    CAPTURE(c.platform);
    Node node(c.platform);
    auto plan = node.plan(searching({"1", "2", "10"}));
    REQUIRE_MESSAGE(plan.ok(), plan.error().message());
    REQUIRE(plan->searches.size() == 1);
    CHECK(values(plan->searches[0]) == c.kept);
    CHECK(plan->searches[0].knobs.size() == 4);  // CPUs 0-3, none of them isolated
    CHECK(plan->notes == std::vector<std::string>{c.why});
    // The changes carry the first candidate left.
    REQUIRE(plan->changes.size() == 4);
    CHECK(plan->changes[0].desired == c.kept.front());
  }
}

TEST_CASE("idle search: the shipped latency profile races C1 alone against C1 and C1E") {
  auto p = load_profile("latency", {TUNER_SOURCE_PROFILES});
  REQUIRE_MESSAGE(p.ok(), p.error().message());
  REQUIRE(p->cpu.resume_latency);
  CHECK(p->cpu.resume_latency->search == std::vector<std::string>{"1", "2", "10"});
  for (const auto& row : {std::pair{"spr", std::vector<std::string>{"1", "2"}},
                          std::pair{"skx", std::vector<std::string>{"2", "10"}},
                          std::pair{"gnr", std::vector<std::string>{"1", "10"}}}) {
    // Not a structured binding: clang 14 cannot capture one (CAPTURE is a lambda).
    const std::string platform = row.first;
    const std::vector<std::string>& kept = row.second;
    CAPTURE(platform);
    Node node(platform);
    auto fit = fit_resume_latency_search(p->cpu.resume_latency->search, node.inv.cpuidle,
                                         "latency.toml:75");
    CHECK(fit.kept == kept);
  }
}

TEST_CASE("idle search: 0 and n/a are kept; a disabled state does not tell candidates apart") {
  Node spr("spr");
  auto fit = fit_resume_latency_search({"n/a", "1", "300", "0"}, spr.inv.cpuidle, "x.toml:3");
  // "n/a" (polling) is what it says anywhere; 300 admits every state, as no limit does.
  CHECK(fit.kept == std::vector<std::string>{"n/a", "1", "300"});
  REQUIRE(fit.notes.size() == 1);
  CHECK(fit.notes[0].find("candidates 300 and 0 admit the same enabled idle states on this "
                          "node (C1, C1E, C6;") != std::string::npos);

  // C1E disabled (a BIOS without it): 1, 2 and 10 all leave C1; one stated value.
  spr.dir.write("sys/devices/system/cpu/cpu0/cpuidle/state2/disable", "1\n");
  spr.probe();
  auto plan = spr.plan(searching({"1", "2", "10"}));
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  CHECK(plan->searches.empty());
  REQUIRE(plan->changes.size() == 4);
  CHECK(plan->changes[0].desired == "1");
  CHECK(has_note(*plan, "candidates 1, 2 and 10 admit the same enabled idle states"));
  CHECK(has_note(*plan, "one candidate left on this node, 1: planned as a stated value"));
}

TEST_CASE("idle search: with every candidate dropped, the setting is not planned") {
  Node skx("skx");
  auto plan = skx.plan(searching({"1", "n/a"}));  // "n/a" stays: one left, polling
  REQUIRE(plan.ok());
  CHECK(plan->searches.empty());
  REQUIRE(plan->changes.size() == 4);
  CHECK(plan->changes[0].desired == "n/a");
  // C1 at 3 us, as on the Dell R910: 1 and 2 both leave only polling.
  for (unsigned cpu = 0; cpu < 4; ++cpu)
    skx.dir.write("sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpuidle/state1/latency",
                  "3\n");
  skx.probe();
  plan = skx.plan(searching({"1", "2"}));
  REQUIRE(plan.ok());
  CHECK(plan->searches.empty());
  CHECK(plan->changes.empty());
  CHECK(has_note(*plan, "candidate 2 dropped: it admits no idle state but polling (the "
                        "shallowest, C1, takes 3 us to wake"));
  CHECK(has_note(*plan, "no candidate left on this node: resume_latency_us not planned"));
}

TEST_CASE(
    "idle search: an unknown table, or an unknown latency, leaves the candidates as written") {
  Node gnr("gnr");
  Inventory topology_only = gnr.inv;
  topology_only.cpuidle.reset();  // a capture without cpuidle, an XML topology
  KnobCurrentValues current(KnobContext{Root::open(gnr.dir.path).value()}, true, false);
  auto plan = make_plan_with(searching({"1", "2", "10"}), topology_only, current);
  REQUIRE(plan.ok());
  REQUIRE(plan->searches.size() == 1);
  CHECK(values(plan->searches[0]) == std::vector<std::string>{"1", "2", "10"});
  CHECK(plan->notes == std::vector<std::string>{
                           "search of cpu:resume_latency (test.toml:67): this node's idle states "
                           "are unknown (no cpuidle table): candidates 1, 2 and 10 planned as "
                           "written, though some may admit the same states here"});

  // Garbage in C1E's latency: the probe says so, the plan too, and nothing is merged.
  gnr.dir.write("sys/devices/system/cpu/cpu0/cpuidle/state2/latency", "4us?\n");
  gnr.probe();
  REQUIRE(gnr.inv.errors.size() == 1);
  CHECK(gnr.inv.errors[0].message.find("state2/latency") != std::string::npos);
  plan = gnr.plan(searching({"1", "2", "10"}));
  REQUIRE(plan.ok());
  REQUIRE(plan->searches.size() == 1);
  CHECK(values(plan->searches[0]) == std::vector<std::string>{"1", "2", "10"});
  CHECK(plan->notes == std::vector<std::string>{
                           "search of cpu:resume_latency (test.toml:67): the exit latency of C1E "
                           "(state2 in CPU 0's intel_idle table) is unknown: candidates planned "
                           "as written"});
}
