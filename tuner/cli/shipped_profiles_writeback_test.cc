// The shipped profiles' writeback and swap settings against a site's own: a stricter
// site limit is kept, a looser one replaced (tuner/plan/sysctl_writeback.cc), the 64 GiB
// cap never goes below the kernel's own limits, dl-training leaves the kernel's
// writeback, and a zram-only node keeps its swappiness (tuner/plan/sysctl_swap.cc).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "probes/probe.h"
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

/// Only the profile's writeback and swap: what these tests weigh.
Profile vm_only(const std::string& name) {
  Profile p = shipped(name);
  Profile out;
  out.name = p.name;
  out.mm.dirty_max_bytes = p.mm.dirty_max_bytes;
  out.mm.dirty_max_loc = p.mm.dirty_max_loc;
  for (const SysctlSetting& s : p.sysctls)
    if (s.key.rfind("vm.dirty", 0) == 0 || s.key == "vm.swappiness") out.sysctls.push_back(s);
  return out;
}

bool has_note(const Plan& plan, const std::string& text) {
  return std::ranges::any_of(
      plan.notes, [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

}  // namespace

TEST_CASE("shipped profiles: the writeback cap never goes below the kernel's own limits") {
  // throughput's [mm] dirty_max_bytes = 64 GiB, inherited by network-throughput,
  // wan-throughput and hpc-mpi. On the DGX-2 (1511 GiB) the kernel's 20% is 302 GiB: a
  // 64 GiB byte limit would tighten writeback 4.7x, and every container's dirty limit
  // with it, in the profile that means to loosen it (profiles/REVIEW.md T1).
  ProbeOptions options;
  options.topology_xml = TUNER_FIXTURES "/topologies/nvidiaDGX2.xml";
  Inventory dgx2 = probe_inventory(Root::live(), options);
  Inventory mid = testing::smt_machine(2, 4);
  for (NumaNode& node : mid.topology.numa_nodes) node.memory_bytes = 128ull << 30;  // 256 GiB
  testing::FakeCurrent cur;
  cur.values_ = {{"sysctl:vm.dirty_ratio", "20"},
                 {"sysctl:vm.dirty_background_ratio", "10"},
                 {"sysctl:vm.swappiness", "60"}};
  for (const char* name : {"throughput", "network-throughput", "wan-throughput"}) {
    CAPTURE(name);
    Profile p = vm_only(name);
    REQUIRE(p.mm.dirty_max_bytes);
    auto big = make_plan_with(p, dgx2, cur);
    REQUIRE_MESSAGE(big.ok(), big.error().message());
    for (const Change& c : big->changes) CHECK(c.knob.find("dirty") == std::string::npos);
    CHECK(has_note(*big, "the kernel's own 20% (302 GiB) is already above the cap: left as it "
                         "is"));
    // 256 GiB: the kernel's 20% is 51 GiB, below the cap, which is then the looser limit.
    auto plan = make_plan_with(p, mid, cur);
    REQUIRE_MESSAGE(plan.ok(), plan.error().message());
    CHECK(std::ranges::any_of(plan->changes, [](const Change& c) {
      return c.knob == "sysctl:vm.dirty_ratio" && c.desired == "vm.dirty_bytes=68719476736";
    }));
  }  // hpc-mpi inherits the cap but asks latency-performance's 10%: a ratio at or below the
  // kernel's 20% is never capped, so it stands on every size (TuneD hpc-compute).
  Profile hpc = vm_only("hpc-mpi");
  REQUIRE(hpc.mm.dirty_max_bytes);
  for (const Inventory* inv : {&dgx2, &mid}) {
    auto plan = make_plan_with(hpc, *inv, cur);
    REQUIRE_MESSAGE(plan.ok(), plan.error().message());
    CHECK(std::ranges::any_of(plan->changes, [](const Change& c) {
      return c.knob == "sysctl:vm.dirty_ratio" && c.desired == "10";
    }));
  }
}

TEST_CASE("shipped profiles: a zram-only node keeps its swappiness") {
  testing::FakeCurrent cur;
  cur.values_ = {{"sysctl:vm.dirty_ratio", "20"},
                 {"sysctl:vm.dirty_background_ratio", "10"},
                 {"sysctl:vm.swappiness", "180"}};
  Inventory inv = testing::smt_machine(2, 4);
  for (NumaNode& node : inv.topology.numa_nodes) node.memory_bytes = 16ull << 30;
  for (const char* name : {"throughput", "latency"}) {
    CAPTURE(name);
    Profile p = vm_only(name);
    inv.host.swaps = std::vector<SwapDevice>{{"/dev/zram0", "partition", 8388604, 0, 100}};
    auto zram = make_plan_with(p, inv, cur);
    REQUIRE_MESSAGE(zram.ok(), zram.error().message());
    CHECK(std::ranges::none_of(zram->changes,
                               [](const Change& c) { return c.knob == "sysctl:vm.swappiness"; }));
    CHECK(has_note(*zram, "swap is zram only (/dev/zram0): left at 180"));
    // Swap on disk: lowered, as the profile says.
    inv.host.swaps = std::vector<SwapDevice>{{"/dev/sda2", "partition", 8388604, 0, -2}};
    auto disk = make_plan_with(p, inv, cur);
    REQUIRE_MESSAGE(disk.ok(), disk.error().message());
    CHECK(std::ranges::any_of(disk->changes, [](const Change& c) {
      return c.knob == "sysctl:vm.swappiness" && c.desired == "10";
    }));
  }
}

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
