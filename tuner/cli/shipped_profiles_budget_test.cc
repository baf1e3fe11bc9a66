// The time a verifying apply of each shipped profile can take against the budget it
// gives the verify loop (profiles/README.md "Time to verify").
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tests/support/fake_node.h"
#include "tuner/plan/planner.h"
#include "tuner/profile/profile.h"
#include "tuner/verify/time_bound.h"

using namespace tuner;

namespace {

/// Every profile in the source tree's profiles/, by name: a new one is covered unasked.
std::vector<std::string> shipped_names() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(TUNER_SOURCE_PROFILES))
    if (e.path().extension() == ".toml") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

Profile shipped(const std::string& name) {
  auto p = load_profile(name, {TUNER_SOURCE_PROFILES});
  REQUIRE_MESSAGE(p.ok(), p.error().message());
  return *p;
}

}  // namespace

TEST_CASE("shipped profiles: the budget apply gives each covers every group in full") {
  // A node with everything the shipped profiles act on (tests/support/fake_node.h):
  // cpufreq with EPP, resume latency, THP, eth0 up at 25 Gb/s with queues to place
  // and resize. What the plan can spend verifying (tuner/verify/time_bound.h) must fit
  // the profile's [verify] budget, or the default, so that no group is rolled back as
  // 'budget' untried or cut short by a full run (profiles/README.md "Time to verify").
  for (const std::string& name : shipped_names()) {
    CAPTURE(name);
    testing::FakeNode m;
    Inventory inv = m.probe();
    for (Nic& n : inv.nics) {
      n.link.up = true;
      n.link.speed_mbps = 25000;
    }
    Profile p = shipped(name);
    // The kernel's defaults of what the profiles set, where the fake node has none.
    const std::map<std::string, std::string> defaults = {
        {"net.ipv4.tcp_rmem", "4096 131072 6291456"},
        {"net.ipv4.tcp_wmem", "4096 16384 4194304"},
        {"vm.dirty_ratio", "20"},
        {"vm.dirty_background_ratio", "10"},
        {"kernel.numa_balancing", "1"},
        {"vm.stat_interval", "1"},
        {"net.ipv4.tcp_notsent_lowat", "4294967295"},
        {"vm.min_free_kbytes", "67584"},
        {"vm.swappiness", "60"},
        {"kernel.timer_migration", "1"},
        {"net.core.netdev_budget", "300"},
        {"net.core.somaxconn", "4096"},
        {"net.core.netdev_max_backlog", "1000"}};
    std::vector<std::string> keys = {"kernel.numa_balancing", "vm.zone_reclaim_mode",
                                     "vm.dirty_bytes", "vm.dirty_background_bytes"};
    for (const SysctlSetting& s : p.sysctls) keys.push_back(s.key);
    for (const std::string& key : keys) {
      std::string rel = "proc/sys/" + key;
      std::replace(rel.begin() + 9, rel.end(), '.', '/');
      if (std::filesystem::exists(m.dir / rel)) continue;
      auto d = defaults.find(key);
      m.dir.write(rel, (d == defaults.end() ? "0" : d->second) + "\n");
    }
    auto plan = make_plan(p, inv, Target{m.root(), std::nullopt});
    REQUIRE_MESSAGE(plan.ok(), plan.error().message());
    verify::fill_time_bounds(p, *plan);
    std::string groups;
    for (const PlanGroup& g : plan->groups)
      groups += g.name + "=" + std::to_string(g.worst_case.count()) + "s ";
    CAPTURE(groups);
    // The figures of profiles/README.md's "Time to verify" table.
    MESSAGE(name << ": " << verify_worst_case(*plan).count() << " s: " << groups);
    CHECK_MESSAGE(verify_worst_case(*plan) <= plan->verify_budget,
                  name << ": " << verify_worst_case(*plan).count() << " s against "
                       << plan->verify_budget.count() << " s");
  }
}
