// vm.swappiness on nodes whose swap is zram only, on disk, or absent (sysctl_swap.cc).
#include <doctest/doctest.h>

#include <algorithm>

#include "tuner/plan/plan_test_util.h"
#include "tuner/plan/planner.h"

using namespace tuner;

namespace {

const SwapDevice kZram0{"/dev/zram0", "partition", 8388604, 0, 100};
const SwapDevice kZram1{"/dev/zram1", "partition", 8388604, 0, 100};
const SwapDevice kDisk{"/dev/nvme0n1p3", "partition", 16777212, 0, -2};

struct SwapPlan {
  std::optional<Change> change;
  std::vector<std::string> notes;
  bool noted(const std::string& text) const {
    return std::ranges::any_of(
        notes, [&](const std::string& s) { return s.find(text) != std::string::npos; });
  }
};

/// The plan of vm.swappiness `op` `value` on a node at `current` with these swaps.
SwapPlan plan_swappiness(SysctlSetting::Op op, const char* value, const char* current,
                         std::optional<std::vector<SwapDevice>> swaps) {
  Inventory inv = testing::smt_machine(1, 2);
  inv.host.swaps = std::move(swaps);
  testing::FakeCurrent cur;
  cur.values_ = {{"sysctl:vm.swappiness", current}};
  Profile p;
  p.sysctls = {{"vm.swappiness", op, value, "sysctl", testing::loc(9), {}}};
  auto plan = make_plan_with(p, inv, cur);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  SwapPlan out;
  out.notes = plan->notes;
  if (!plan->changes.empty()) out.change = plan->changes.front();
  return out;
}

}  // namespace

TEST_CASE("planner: lower-only swappiness leaves a zram-only node's value") {
  using Op = SysctlSetting::Op;
  SUBCASE("zram only, a site's 180: left, with a note") {
    auto p = plan_swappiness(Op::at_most, "10", "180", std::vector{kZram0});
    CHECK_FALSE(p.change);
    CHECK(p.noted("sysctl:vm.swappiness: swap is zram only (/dev/zram0): left at 180, not "
                  "lowered to 10"));
    // Two zram devices are still zram only.
    auto two = plan_swappiness(Op::at_most, "10", "60", std::vector{kZram0, kZram1});
    CHECK_FALSE(two.change);
    CHECK(two.noted("swap is zram only (/dev/zram0, /dev/zram1): left at 60"));
  }
  SUBCASE("a disk beside the zram, a disk alone, no swap, or unknown: lowered") {
    for (const auto& swaps :
         {std::optional(std::vector{kZram0, kDisk}), std::optional(std::vector{kDisk}),
          std::optional(std::vector<SwapDevice>{}), std::optional<std::vector<SwapDevice>>()}) {
      auto p = plan_swappiness(Op::at_most, "10", "60", swaps);
      REQUIRE(p.change);
      CHECK(p.change->desired == "10");
      CHECK_FALSE(p.noted("zram"));
    }
  }
  SUBCASE("zram only, an exact value: the profile's choice stands") {
    auto p = plan_swappiness(Op::set, "10", "180", std::vector{kZram0});
    REQUIRE(p.change);
    CHECK(p.change->desired == "10");
  }
  SUBCASE("zram only, already at or below the bound: nothing to leave, no note") {
    auto p = plan_swappiness(Op::at_most, "10", "1", std::vector{kZram0});
    CHECK_FALSE(p.change);
    CHECK(p.notes.empty());
  }
  SUBCASE("zram only, raise only: not a lowering, planned as ever") {
    auto p = plan_swappiness(Op::at_least, "100", "60", std::vector{kZram0});
    REQUIRE(p.change);
    CHECK(p.change->desired == "100");
  }
}
