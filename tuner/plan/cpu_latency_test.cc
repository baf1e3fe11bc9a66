// [cpu] resume_latency_us only tightens: a CPU whose site limit is stricter keeps it,
// for a stated value and for each candidate of a search; isolated CPUs are left alone
// unless `cpus` names them. On the reconstructed intel_idle roots
// (tests/fixtures/host/cpuidle), read by the real knobs as `tuner plan --root` reads.
#include <doctest/doctest.h>

#include <filesystem>

#include "probes/cpuidle.h"
#include "tests/support/temp_dir.h"
#include "tuner/knobs/cpu_latency.h"
#include "tuner/plan/cpuidle_node_test.h"
#include "tuner/plan/plan_test_util.h"
#include "tuner/plan/planner.h"

using namespace tuner;
using testing::loc;

using Node = testing::CpuidleNode;

namespace {

Profile latency(std::string value, std::vector<std::string> search = {}) {
  Profile p;
  p.name = "test";
  p.chain = {"test"};
  p.cpu.resume_latency = TableSetting{std::move(value), "cpu", loc(5), std::move(search)};
  return p;
}

/// "cpu:0:resume_latency 0->99".
std::vector<std::string> changes(const Plan& p) {
  std::vector<std::string> out;
  for (const Change& c : p.changes)
    out.push_back(c.knob + " " + c.current.value_or("?") + "->" + c.desired);
  return out;
}

}  // namespace

TEST_CASE("resume latency: which of two values is stricter") {
  CHECK(resume_latency_stricter("2", "99"));
  CHECK(resume_latency_stricter("n/a", "2"));
  CHECK(resume_latency_stricter("99", "0"));  // 0: no constraint
  CHECK(resume_latency_stricter("n/a", "0"));
  CHECK_FALSE(resume_latency_stricter("99", "2"));
  CHECK_FALSE(resume_latency_stricter("0", "99"));
  CHECK_FALSE(resume_latency_stricter("2", "2"));
  CHECK_FALSE(resume_latency_stricter("n/a", "n/a"));
}

TEST_CASE("resume latency: a stricter site limit is kept, a looser one or none tightened") {
  Node n("spr");
  n.site(1, "2");
  n.site(2, "n/a");
  n.site(3, "200");
  auto plan = n.plan(latency("99"));
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  CHECK(changes(*plan) ==
        std::vector<std::string>{"cpu:0:resume_latency 0->99", "cpu:3:resume_latency 200->99"});
  CHECK(plan->unchanged == 2);
  CHECK(plan->notes ==
        std::vector<std::string>{
            "CPU 1: resume latency 2 (idle states that wake within 2 us) kept: stricter than "
            "the profile's 99 (test.toml:5), and a profile never loosens a CPU's idle-state "
            "limit",
            "CPU 2: resume latency n/a (no wake-up latency at all: idle CPUs only poll) kept: "
            "stricter than the profile's 99 (test.toml:5), and a profile never loosens a CPU's "
            "idle-state limit"});
  // A profile asking no constraint loosens nothing either.
  plan = n.plan(latency("0"));
  REQUIRE(plan.ok());
  CHECK(plan->changes.empty());
  CHECK(plan->notes.size() == 3);
}

TEST_CASE("resume latency: isolated CPUs are left alone unless cpus names them") {
  Node n("skx");
  n.inv.host.isolcpus = CpuSet::parse("2").value();
  n.inv.host.nohz_full = CpuSet::parse("3").value();
  Profile p = latency("10");
  auto plan = n.plan(p);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  CHECK(changes(*plan) ==
        std::vector<std::string>{"cpu:0:resume_latency 0->10", "cpu:1:resume_latency 0->10"});
  CHECK(plan->notes == std::vector<std::string>{
                           "CPUs 2-3: isolated (isolcpus/nohz_full): resume_latency_us left alone "
                           "(name them in [cpu] cpus to set it there too)"});
  p.cpu.cpus = CpuSet::parse("1-2").value();
  plan = n.plan(p);
  REQUIRE(plan.ok());
  CHECK(changes(*plan) ==
        std::vector<std::string>{"cpu:1:resume_latency 0->10", "cpu:2:resume_latency 0->10"});
  CHECK(plan->notes.empty());
}

TEST_CASE("resume latency: a candidate looser than a CPU's site limit leaves that CPU alone") {
  Node n("gnr");  // [1, 2, 10] is 1 and 10 here
  n.site(1, "2");
  auto plan = n.plan(latency("1", {"1", "2", "10"}));
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  REQUIRE(plan->searches.size() == 1);
  const PlanSearch& s = plan->searches[0];
  CHECK(s.knobs == std::vector<std::string>{"cpu:0:resume_latency", "cpu:1:resume_latency",
                                            "cpu:2:resume_latency", "cpu:3:resume_latency"});
  REQUIRE(s.candidates.size() == 2);
  CHECK(s.candidates[0].value == "1");
  CHECK(s.candidates[0].desired == std::vector<std::string>{"1", "1", "1", "1"});
  CHECK(s.candidates[1].value == "10");
  CHECK(s.candidates[1].desired == std::vector<std::string>{"10", "2", "10", "10"});  // kept
  bool noted = false;
  for (const std::string& note : plan->notes)
    noted = noted || note == "search of cpu:resume_latency, candidate 10: CPU 1: resume latency "
                             "2 (idle states that wake within 2 us) kept: stricter than the "
                             "profile's 10 (test.toml:5), and a profile never loosens a CPU's "
                             "idle-state limit";
  CHECK(noted);
}
