// The shipped profiles' writeback and swap settings against a site's own: a stricter
// site limit is kept, a looser one replaced (tuner/plan/sysctl_writeback.cc), and
// dl-training leaves the kernel's writeback.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "tuner/plan/plan_test_util.h"
#include "tuner/plan/planner.h"
#include "tuner/profile/match.h"
#include "tuner/profile/profile.h"

using namespace tuner;

namespace {

Profile shipped(const std::string& name) {
  auto p = load_profile(name, {TUNER_SOURCE_PROFILES});
  REQUIRE_MESSAGE(p.ok(), p.error().message());
  return *p;
}

}  // namespace

TEST_CASE("shipped profiles: a site's byte writeback limits are weighed, never loosened") {
  // A node whose site uses vm.dirty_bytes / vm.dirty_background_bytes: the knobs of the
  // ratio keys read the bytes in force. Where the profile's ratio of this node's memory
  // is less, the ratio replaces them (rollback writes the bytes back); where it is more,
  // the site's limit stays, with a note. Swappiness is lower only: a site's 1 stays.
  testing::FakeCurrent cur;
  Inventory inv = testing::smt_machine(2, 4);
  for (NumaNode& node : inv.topology.numa_nodes) node.memory_bytes = 48ull << 30;  // 96 GiB
  for (const char* name : {"throughput", "latency"}) {
    CAPTURE(name);
    Profile p = shipped(name);
    std::erase_if(p.sysctls, [&](const SysctlSetting& s) {
      return s.key.rfind("vm.dirty", 0) != 0 && s.key != "vm.swappiness";
    });
    p.irqs.clear();
    p.nics.clear();
    p.cpu = {};
    p.mm.thp.reset();
    p.mm.thp_defrag.reset();
    // 64 GiB and 16 GiB: looser than 40% / 10% (38 / 9.6 GiB) and than 10% / 3%.
    cur.values_ = {{"sysctl:vm.dirty_ratio", "vm.dirty_bytes=68719476736"},
                   {"sysctl:vm.dirty_background_ratio", "vm.dirty_background_bytes=17179869184"},
                   {"sysctl:vm.swappiness", "1"}};
    auto loose = make_plan_with(p, inv, cur);
    REQUIRE_MESSAGE(loose.ok(), loose.error().message());
    REQUIRE(loose->changes.size() == 2);
    for (const Change& c : loose->changes) {
      CAPTURE(c.knob);
      CHECK(c.current->find("_bytes=") != std::string::npos);
      CHECK(c.reason.find("is in force: this replaces it") != std::string::npos);
      CHECK(c.reason.find("effective limit") != std::string::npos);
    }
    // 1 GiB and 256 MiB: stricter than any of the profiles' ratios here.
    cur.values_["sysctl:vm.dirty_ratio"] = "vm.dirty_bytes=1073741824";
    cur.values_["sysctl:vm.dirty_background_ratio"] = "vm.dirty_background_bytes=268435456";
    auto strict = make_plan_with(p, inv, cur);
    REQUIRE_MESSAGE(strict.ok(), strict.error().message());
    CHECK(strict->changes.empty());
    CHECK(std::ranges::count_if(strict->notes, [](const std::string& n) {
            return n.find("stricter than the profile's") != std::string::npos;
          }) >= 1);
  }
}

TEST_CASE("shipped profiles: dl-training leaves the kernel's writeback limits") {
  Profile p = shipped("dl-training");
  CHECK(std::ranges::none_of(
      p.sysctls, [](const SysctlSetting& s) { return s.key.rfind("vm.dirty", 0) == 0; }));
  // Its parents still set them.
  Profile t = shipped("network-throughput");
  CHECK(std::ranges::any_of(t.sysctls,
                            [](const SysctlSetting& s) { return s.key == "vm.dirty_ratio"; }));
}
