// A live NIC whose ethtool settings no backend could read (the driver lacks the
// operations, or TUNER_ETHTOOL_BACKEND forced a backend the kernel does not have): each
// of its ethtool settings is a note, and the rest of the profile still plans.
#include <doctest/doctest.h>

#include <algorithm>

#include "tuner/plan/plan_test_util.h"
#include "tuner/plan/planner.h"

using namespace tuner;
using testing::FakeCurrent;

namespace {

bool noted(const Plan& plan, const std::string& text) {
  return std::any_of(plan.notes.begin(), plan.notes.end(),
                     [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

}  // namespace

TEST_CASE("planner nic: what no ethtool backend reports is a note, the sysctls and MTU plan") {
  Inventory inv = testing::smt_machine(1, 2);
  Nic& nic = testing::add_nic(inv, "eth0", 0, 2, 40);
  nic.mtu = 1500;
  nic.link.speed_mbps = 10000;  // sysfs says it; no ethtool backend said anything
  FakeCurrent cur;
  cur.live_ = true;
  cur.values_ = {{"sysctl:net.core.rmem_max", "212992"}, {"nic:eth0:mtu", "1500"}};
  Profile p;
  p.name = "dl-training";
  p.chain = {"dl-training"};
  p.sysctls = {SysctlSetting{
      "net.core.rmem_max", SysctlSetting::Op::set, "268435456", "sysctl", testing::loc(3), {}}};
  NicRule rule;
  rule.glob = "eth*";
  rule.loc = testing::loc(12);
  rule.speed_mbps = 25000;
  rule.combined = 8;
  rule.rx_ring = 1024;
  rule.mtu = 9000;
  rule.coalesce = Coalesce{};
  rule.coalesce->rx_usecs = 8;
  p.nics = {rule};

  auto plan = make_plan_with(p, inv, cur);
  REQUIRE(plan.ok());
  std::vector<std::string> knobs;
  for (const Change& c : plan->changes) knobs.push_back(c.knob);
  std::sort(knobs.begin(), knobs.end());
  CHECK(knobs == std::vector<std::string>{"nic:eth0:mtu", "sysctl:net.core.rmem_max"});
  CHECK(noted(*plan, "eth0: does not report link settings (no ethtool link support): link "
                     "settings of nic rule 'eth*' skipped"));
  CHECK(noted(*plan, "does not report channels"));
  CHECK(noted(*plan, "does not report rings"));
  CHECK(noted(*plan, "does not report interrupt coalescing"));

  // A backend that reads the link says whether autoneg is on: then the link is planned.
  inv.nics[0].link.autoneg = true;
  auto read = make_plan_with(p, inv, cur);
  REQUIRE(read.ok());
  CHECK(std::any_of(read->changes.begin(), read->changes.end(),
                    [](const Change& c) { return c.knob == "nic:eth0:link"; }));
  CHECK_FALSE(noted(*read, "does not report link settings"));
}
