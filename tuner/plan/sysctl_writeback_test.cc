// The writeback pairs (vm.dirty_ratio / vm.dirty_bytes, and the background pair) on a
// fake machine whose kernel does what mm/page-writeback.c does: writing one key of a
// pair zeroes the other.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "tests/support/files.h"
#include "tests/support/temp_dir.h"
#include "tuner/knobs/knob.h"
#include "tuner/plan/plan_test_util.h"
#include "tuner/plan/planner.h"

using namespace tuner;

namespace {

struct Node {
  testing::TempDir dir{"tuner-writeback"};
  KnobContext ctx{Root::open(dir.path).value()};
  explicit Node(const char* ratio, const char* bytes) {
    testing::write_file(dir.path + "/proc/sys/vm/dirty_ratio", std::string(ratio) + "\n");
    testing::write_file(dir.path + "/proc/sys/vm/dirty_bytes", std::string(bytes) + "\n");
    ctx.fake_machine = true;
    ctx.fake_kernel = [this](const std::string& rel, std::string&) {
      const char* other = rel == "proc/sys/vm/dirty_ratio"   ? "/proc/sys/vm/dirty_bytes"
                          : rel == "proc/sys/vm/dirty_bytes" ? "/proc/sys/vm/dirty_ratio"
                          : rel == "proc/sys/vm/dirty_background_ratio"
                              ? "/proc/sys/vm/dirty_background_bytes"
                          : rel == "proc/sys/vm/dirty_background_bytes"
                              ? "/proc/sys/vm/dirty_background_ratio"
                              : nullptr;
      if (other) std::ofstream(dir.path + other) << "0\n";
      return 0;
    };
  }
  std::string file(const char* key) const {
    return testing::slurp(dir.path + "/proc/sys/vm/" + key);
  }
};

}  // namespace

TEST_CASE("sysctl writeback pair: the key in force is read, written and put back") {
  Node n("0", "1073741824");  // a site that uses byte limits
  auto ratio = make_knob("sysctl:vm.dirty_ratio", n.ctx);
  REQUIRE(ratio.ok());
  CHECK((*ratio)->read().value_or("") == "vm.dirty_bytes=1073741824");
  auto before = (*ratio)->read().value();
  REQUIRE((*ratio)->write("40").ok());
  CHECK(n.file("dirty_ratio") == "40");
  CHECK(n.file("dirty_bytes") == "0\n");
  CHECK((*ratio)->read().value_or("") == "40");
  // Rollback writes what was read: the bytes again, and the kernel zeroes the ratio.
  REQUIRE((*ratio)->write(before).ok());
  CHECK(n.file("dirty_bytes") == "1073741824");
  CHECK(n.file("dirty_ratio") == "0\n");
  CHECK((*ratio)->read().value_or("") == "vm.dirty_bytes=1073741824");
  // The partner's value must be a positive decimal number.
  CHECK_FALSE((*ratio)->canonical("vm.dirty_bytes=0").ok());
  CHECK_FALSE((*ratio)->canonical("vm.dirty_bytes=010").ok());
  CHECK_FALSE((*ratio)->canonical("vm.dirty_bytes=lots").ok());
  // The bytes key sees the ratio in force the same way.
  auto bytes = make_knob("sysctl:vm.dirty_bytes", n.ctx);
  REQUIRE(bytes.ok());
  CHECK((*bytes)->read().value_or("") == "1073741824");  // itself in force: a plain number
}

TEST_CASE("sysctl writeback pair: a ratio site reads as before") {
  Node n("20", "0");
  auto ratio = make_knob("sysctl:vm.dirty_ratio", n.ctx);
  REQUIRE(ratio.ok());
  CHECK((*ratio)->read().value_or("") == "20");
  auto bytes = make_knob("sysctl:vm.dirty_bytes", n.ctx);
  REQUIRE(bytes.ok());
  CHECK((*bytes)->read().value_or("") == "vm.dirty_ratio=20");
}

TEST_CASE("planner: a writeback pair is one setting") {
  Node n("0", "68719476736");  // the site's 64 GiB; the profile's 40% of 32 GiB is less
  Inventory inv = testing::smt_machine(2, 4);
  for (NumaNode& node : inv.topology.numa_nodes) node.memory_bytes = 16ull << 30;
  KnobCurrentValues current(n.ctx, true, false);
  Profile p;
  p.sysctls.push_back(
      {"vm.dirty_ratio", SysctlSetting::Op::set, "40", "sysctl", testing::loc(7), {}});
  auto plan = make_plan_with(p, inv, current);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  REQUIRE(plan->changes.size() == 1);
  CHECK(plan->changes[0].current == "vm.dirty_bytes=68719476736");
  CHECK(plan->changes[0].desired == "40");
  CHECK(plan->changes[0].reason.find("vm.dirty_bytes is in force: this replaces it") !=
        std::string::npos);
  // Raise only against the other key in force: a change, not a comparison error.
  p.sysctls[0] = {
      "vm.dirty_ratio", SysctlSetting::Op::at_least, "40", "sysctl", testing::loc(7), {}};
  auto raise = make_plan_with(p, inv, current);
  REQUIRE_MESSAGE(raise.ok(), raise.error().message());
  CHECK(raise->changes.size() == 1);
  // Both keys of a pair: refused where the second is written.
  p.sysctls = {
      {"vm.dirty_ratio", SysctlSetting::Op::set, "40", "sysctl", testing::loc(7), {}},
      {"vm.dirty_bytes", SysctlSetting::Op::set, "4294967296", "sysctl", testing::loc(8), {}}};
  auto both = make_plan_with(p, inv, current);
  REQUIRE_FALSE(both.ok());
  CHECK(both.error().where == "/etc/tuner/profiles/test.toml:8:1");
  CHECK(both.error().what.find("are one setting in the kernel") != std::string::npos);
}

namespace {

/// throughput's writeback: 40% / 10% with [mm] dirty_max_bytes = 64 GiB.
Profile capped_profile(const char* dirty = "40", const char* background = "10") {
  Profile p;
  p.sysctls = {{"vm.dirty_ratio", SysctlSetting::Op::set, dirty, "sysctl", testing::loc(7), {}},
               {"vm.dirty_background_ratio",
                SysctlSetting::Op::set,
                background,
                "sysctl",
                testing::loc(8),
                {}}};
  p.mm.dirty_max_bytes = 64ull << 30;
  p.mm.dirty_max_loc = testing::loc(12);
  return p;
}

/// A node of `bytes` of memory, two NUMA nodes, whose site has the kernel's 20% / 10%.
struct CapNode : Node {
  Inventory inv = testing::smt_machine(2, 4);
  KnobCurrentValues current{ctx, true, false};
  explicit CapNode(uint64_t bytes) : Node("20", "0") {
    testing::write_file(dir.path + "/proc/sys/vm/dirty_background_ratio", "10\n");
    testing::write_file(dir.path + "/proc/sys/vm/dirty_background_bytes", "0\n");
    inv.topology.numa_nodes[0].memory_bytes = bytes / 2;
    inv.topology.numa_nodes[1].memory_bytes = bytes - bytes / 2;
  }
  Plan plan(const Profile& p) const {
    auto plan = make_plan_with(p, inv, current);
    REQUIRE_MESSAGE(plan.ok(), plan.error().message());
    return *plan;
  }
  /// Writes what the plan says through the knobs, as apply does.
  void apply(const Plan& plan) {
    for (const Change& c : plan.changes) {
      auto k = make_knob(c.knob, ctx);
      REQUIRE(k.ok());
      Status st = (*k)->write(c.desired);
      REQUIRE_MESSAGE(st.ok(), st.error().message());
    }
  }
};

std::map<std::string, std::string> desired(const Plan& plan) {
  std::map<std::string, std::string> out;
  for (const Change& c : plan.changes) out[c.knob] = c.desired;
  return out;
}

const Change* change_of(const Plan& plan, const std::string& knob) {
  for (const Change& c : plan.changes)
    if (c.knob == knob) return &c;
  return nullptr;
}

bool has_note(const Plan& plan, const std::string& text) {
  return std::ranges::any_of(
      plan.notes, [&](const std::string& s) { return s.find(text) != std::string::npos; });
}

// The DGX-2's two NUMA nodes (tests/fixtures/machines/topologies/nvidiaDGX2.xml).
constexpr uint64_t kDgx2 = 810234351616ull + 811737923584ull;  // 1511 GiB

}  // namespace

TEST_CASE("planner: [mm] dirty_max_bytes never takes a limit below the kernel's own") {
  // The cap trims throughput's 40% on a large node, but a byte limit below what the
  // kernel's 20% / 10% stand for would tighten writeback (and every container's limit,
  // which the kernel derives from vm.dirty_bytes) instead of loosening it (profiles/REVIEW.md T1).
  SUBCASE("1511 GiB (DGX-2): the kernel's 20% is 302 GiB, above the cap: left as it is") {
    CapNode n(kDgx2);
    Plan plan = n.plan(capped_profile());
    CHECK(plan.changes.empty());  // the old cap wrote vm.dirty_bytes = 64 GiB here: 4.2%
    CHECK(has_note(plan, "sysctl:vm.dirty_ratio: 40% of this node's 1511 GiB would allow "
                         "604 GiB of dirty page cache, above [mm] dirty_max_bytes 64 GiB "
                         "(test.toml:12); the kernel's own 20% (302 GiB) is already above the "
                         "cap: left as it is"));
    CHECK(has_note(plan, "sysctl:vm.dirty_background_ratio: [mm] dirty_max_bytes (test.toml:12): "
                         "the background limit's share of the dirty limit (76 GiB) would be "
                         "below the kernel's 10% (151 GiB): left as it is"));
  }
  SUBCASE("1511 GiB, a site's looser 30%: lowered to the kernel's 20%, no byte limit") {
    CapNode n(kDgx2);
    testing::write_file(n.dir.path + "/proc/sys/vm/dirty_ratio", "30\n");
    Plan plan = n.plan(capped_profile());
    REQUIRE(plan.changes.size() == 1);
    CHECK(plan.changes[0].desired == "20");
    CHECK(plan.changes[0].reason.find("effective limit vm.dirty_ratio = 30% (453.2 GiB) -> "
                                      "vm.dirty_ratio = 20% (302.1 GiB)") != std::string::npos);
  }
  SUBCASE("2 TiB: the kernel's 20% is 410 GiB, so neither limit moves") {
    CapNode n(2048ull << 30);
    Plan plan = n.plan(capped_profile());
    CHECK(desired(plan).empty());
    CHECK(has_note(plan, "the kernel's own 20% (410 GiB) is already above the cap: left as it "
                         "is"));
    CHECK(has_note(plan, "(102 GiB) would be below the kernel's 10% (205 GiB): left as it is"));
  }
  SUBCASE("256 GiB: 40% is 102 GiB, the kernel's 20% 51 GiB: the cap, looser than the kernel") {
    CapNode n(256ull << 30);
    Plan plan = n.plan(capped_profile());
    auto d = desired(plan);
    CHECK(d["sysctl:vm.dirty_ratio"] == "vm.dirty_bytes=68719476736");
    const Change* dirty = change_of(plan, "sysctl:vm.dirty_ratio");
    REQUIRE(dirty);
    CHECK(dirty->reason.find("40% of this node's 256 GiB would allow 102 GiB of dirty page "
                             "cache, above [mm] dirty_max_bytes 64 GiB (test.toml:12), and the "
                             "kernel's own 20% is 51 GiB: vm.dirty_bytes = 64 GiB instead") !=
          std::string::npos);
    CHECK(dirty->reason.find("effective limit vm.dirty_ratio = 20% (51.2 GiB) -> "
                             "vm.dirty_bytes = 68719476736 (64.0 GiB)") != std::string::npos);
    // A quarter of the cap (16 GiB) would be below the kernel's 10% (26 GiB): it stays.
    CHECK_FALSE(d.contains("sysctl:vm.dirty_background_ratio"));
    CHECK(has_note(plan, "share of the dirty limit (16 GiB) would be below the kernel's 10% "
                         "(26 GiB): left as it is"));
    // What the plan says, the knobs write, and the kernel keeps one limit of each pair.
    n.apply(plan);
    CHECK(n.file("dirty_bytes") == "68719476736");
    CHECK(n.file("dirty_ratio") == "0\n");
    CHECK(n.file("dirty_background_ratio") == "10\n");
    CHECK(n.plan(capped_profile()).changes.empty());
  }
  SUBCASE("256 GiB, 40% / 30%: the background keeps its share of the cap, in bytes") {
    CapNode n(256ull << 30);
    Plan plan = n.plan(capped_profile("40", "30"));
    auto d = desired(plan);
    CHECK(d["sysctl:vm.dirty_ratio"] == "vm.dirty_bytes=68719476736");
    CHECK(d["sysctl:vm.dirty_background_ratio"] == "vm.dirty_background_bytes=51539607552");
  }
  SUBCASE("64 GiB: 40% is 26 GiB, under the cap: the ratios as the profile says") {
    CapNode n(64ull << 30);
    auto d = desired(n.plan(capped_profile()));
    CHECK(d["sysctl:vm.dirty_ratio"] == "40");
    CHECK_FALSE(d.contains("sysctl:vm.dirty_background_ratio"));  // 10 already
  }
  SUBCASE("a profile's ratio at or below the kernel's 20%: the cap does not tighten it") {
    CapNode n(2048ull << 30);
    Plan plan = n.plan(capped_profile("10", "3"));
    auto d = desired(plan);
    CHECK(d["sysctl:vm.dirty_ratio"] == "10");
    CHECK(d["sysctl:vm.dirty_background_ratio"] == "3");
    CHECK(has_note(plan, "the cap never takes a limit below the kernel's 20%: the profile's 10% "
                         "stands"));
  }
  SUBCASE("a site's stricter byte limit stays, on every size") {
    for (uint64_t bytes : std::initializer_list<uint64_t>{kDgx2, 256ull << 30, 2048ull << 30}) {
      CAPTURE(bytes);
      CapNode n(bytes);
      testing::write_file(n.dir.path + "/proc/sys/vm/dirty_ratio", "0\n");
      testing::write_file(n.dir.path + "/proc/sys/vm/dirty_bytes", "1073741824\n");
      Plan plan = n.plan(capped_profile());
      CHECK_FALSE(desired(plan).contains("sysctl:vm.dirty_ratio"));
      CHECK(has_note(plan, "the site's limit is as strict or stricter than the profile's "
                           "(vm.dirty_bytes = 1073741824 (1.0 GiB) -> "));
    }
  }
  SUBCASE("memory unknown: the ratio, and a note") {
    CapNode n(0);
    for (NumaNode& node : n.inv.topology.numa_nodes) node.memory_bytes.reset();
    Plan plan = n.plan(capped_profile());
    CHECK(desired(plan)["sysctl:vm.dirty_ratio"] == "40");
    CHECK(has_note(plan, "memory size unknown"));
  }
}

namespace {

// The plan of one exact writeback value on a node of `gib` GiB (0: memory unknown)
// whose vm.dirty_ratio / vm.dirty_bytes files hold `ratio` / `bytes`.
struct WritebackPlan {
  std::optional<Change> change;
  std::vector<std::string> notes;
};

WritebackPlan plan_writeback(const char* ratio, const char* bytes, const char* want, uint64_t gib) {
  Node n(ratio, bytes);
  Inventory inv = testing::smt_machine(2, 4);
  if (gib)
    for (NumaNode& node : inv.topology.numa_nodes) node.memory_bytes = (gib << 30) / 2;
  KnobCurrentValues current(n.ctx, true, false);
  Profile p;
  p.sysctls.push_back(
      {"vm.dirty_ratio", SysctlSetting::Op::set, want, "sysctl", testing::loc(7), {}});
  auto plan = make_plan_with(p, inv, current);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  WritebackPlan out;
  out.notes = plan->notes;
  if (!plan->changes.empty()) out.change = plan->changes.front();
  return out;
}

bool noted(const WritebackPlan& p, const std::string& text) {
  return std::ranges::any_of(
      p.notes, [&](const std::string& s) { return s.find(text) != std::string::npos; });
}

}  // namespace

TEST_CASE("planner: a writeback limit a site set stricter is kept, weighed as bytes") {
  SUBCASE("dirty_bytes = 1 GiB on 96 GiB: latency's 10% would be 9.6 GiB") {
    auto p = plan_writeback("0", "1073741824", "10", 96);
    CHECK_FALSE(p.change);
    CHECK(noted(p, "the site's limit is as strict or stricter than the profile's "
                   "(vm.dirty_bytes = 1073741824 (1.0 GiB) -> vm.dirty_ratio = 10% (9.6 GiB)): "
                   "kept"));
  }
  SUBCASE("dirty_bytes = 64 GiB on 96 GiB: 10% is stricter, so it is written") {
    auto p = plan_writeback("0", "68719476736", "10", 96);
    REQUIRE(p.change);
    CHECK(p.change->desired == "10");
    CHECK(p.change->reason.find("effective limit vm.dirty_bytes = 68719476736 (64.0 GiB) -> "
                                "vm.dirty_ratio = 10% (9.6 GiB)") != std::string::npos);
  }
  SUBCASE("the kernel's 20%: the profile moves it either way") {
    auto up = plan_writeback("20", "0", "40", 96);
    REQUIRE(up.change);
    CHECK(up.change->reason.find("effective limit vm.dirty_ratio = 20% (19.2 GiB) -> "
                                 "vm.dirty_ratio = 40% (38.4 GiB)") != std::string::npos);
    CHECK(plan_writeback("20", "0", "10", 96).change);
  }
  SUBCASE("a site's ratio: lowered where looser, kept where stricter") {
    CHECK(plan_writeback("30", "0", "10", 96).change);
    auto strict = plan_writeback("5", "0", "10", 96);
    CHECK_FALSE(strict.change);
    CHECK(noted(strict, "vm.dirty_ratio = 5% (4.8 GiB) -> vm.dirty_ratio = 10% (9.6 GiB)"));
    // Memory unknown: two ratios still compare.
    CHECK_FALSE(plan_writeback("5", "0", "10", 0).change);
    CHECK(plan_writeback("30", "0", "10", 0).change);
  }
  SUBCASE("memory unknown: a site's bytes cannot be weighed against a ratio, so they stay") {
    auto p = plan_writeback("0", "1073741824", "10", 0);
    CHECK_FALSE(p.change);
    CHECK(noted(p, "memory size unknown: the site's vm.dirty_bytes = 1073741824 (1.0 GiB) "
                   "cannot be weighed against the profile's vm.dirty_ratio = 10%: kept"));
  }
}
