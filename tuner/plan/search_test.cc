// Value searches in the planner: every candidate planned like a stated value.
#include <doctest/doctest.h>

#include "tuner/plan/plan_test_util.h"
#include "tuner/plan/planner.h"

using namespace tuner;
using testing::FakeCurrent;
using testing::loc;

namespace {

Profile budget_search(std::vector<std::string> candidates) {
  Profile p;
  p.name = "search";
  p.chain = {"search"};
  SysctlSetting s{"net.core.netdev_budget",
                  SysctlSetting::Op::set,
                  candidates.front(),
                  "budget",
                  loc(4),
                  candidates};
  p.sysctls = {s};
  return p;
}

}  // namespace

TEST_CASE("planner search: each candidate planned, the current one marked as the baseline") {
  Inventory inv = testing::smt_machine(1, 2);
  FakeCurrent cur;
  cur.values_ = {{"sysctl:net.core.netdev_budget", "600"}};
  auto plan = make_plan_with(budget_search({"300", "600", "01200"}), inv, cur);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  // The changes carry the first candidate, as a profile stating it would.
  REQUIRE(plan->changes.size() == 1);
  CHECK(plan->changes[0].desired == "300");
  CHECK(plan->changes[0].group == "budget");
  REQUIRE(plan->searches.size() == 1);
  const PlanSearch& s = plan->searches[0];
  CHECK(s.group == "budget");
  CHECK(s.setting == "sysctl:net.core.netdev_budget");
  CHECK(s.knobs == std::vector<std::string>{"sysctl:net.core.netdev_budget"});
  CHECK(s.design == "interleaved");
  REQUIRE(s.candidates.size() == 3);
  CHECK(s.candidates[0].desired == std::vector<std::string>{"300"});
  CHECK_FALSE(s.candidates[0].current);
  CHECK(s.candidates[1].current);  // 600 is what the machine has: the baseline
  CHECK(s.candidates[1].desired == std::vector<std::string>{"600"});
  CHECK(s.candidates[2].value == "01200");
  CHECK(s.candidates[2].desired == std::vector<std::string>{"01200"});
}

TEST_CASE("planner search: a candidate this machine cannot take is an error naming it") {
  Inventory inv = testing::smt_machine(1, 2);
  FakeCurrent cur;  // no such sysctl here: every candidate fails, the first is named
  cur.missing_ = {"sysctl:net.core.netdev_budget"};
  auto plan = make_plan_with(budget_search({"300", "600"}), inv, cur);
  REQUIRE_FALSE(plan.ok());
  CHECK(plan.error().what.find("candidate 300 of sysctl:net.core.netdev_budget") !=
        std::string::npos);
  CHECK(plan.error().where == loc(4).str());
}
