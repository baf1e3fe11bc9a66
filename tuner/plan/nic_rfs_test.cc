// [nic] rfs: each RX queue's flow table, its share of the socket flow table, and that
// table (net.core.rps_sock_flow_entries), raise only, planned once. Hand-built machines
// and current values (plan_test_util.h); the knobs' side is nic_rfs_test.cc, the round
// trip through them roundtrip_fake_test.cc.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include "tuner/plan/plan_test_util.h"
#include "tuner/plan/planner.h"

using namespace tuner;
using testing::FakeCurrent;

namespace {

const char* const kSockTable = "sysctl:net.core.rps_sock_flow_entries";

Profile rfs_profile(uint32_t entries, const std::string& group = "channels") {
  Profile p;
  p.name = "net";
  p.chain = {"net"};
  NicRule r;
  r.glob = "eth*";
  r.rfs = entries;
  r.group = group;
  r.loc = testing::loc(5);
  r.rfs_loc = testing::loc(7);
  p.nics = {r};
  return p;
}

/// No flow tables yet, and no socket table: as a kernel boots.
FakeCurrent no_tables(const Inventory& inv) {
  FakeCurrent cur;
  cur.values_[kSockTable] = "0";
  for (const Nic& nic : inv.nics)
    for (unsigned q = 0; q < nic.rx_queues; ++q)
      cur.values_["nic:" + nic.name + ":rfs:rx-" + std::to_string(q)] = "0";
  return cur;
}

std::map<std::string, const Change*> by_knob(const Plan& p) {
  std::map<std::string, const Change*> out;
  for (const Change& c : p.changes) out[c.knob] = &c;
  return out;
}

bool noted(const Plan& p, const std::string& text) {
  return std::ranges::any_of(
      p.notes, [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

}  // namespace

TEST_CASE("plan rfs: each RX queue its share of the socket table, which is raised once") {
  Inventory inv = testing::smt_machine(2, 4);
  testing::add_nic(inv, "eth0", 0, 6, 40);
  testing::add_nic(inv, "eth1", 1, 8, 60);
  FakeCurrent cur = no_tables(inv);
  auto plan = make_plan_with(rfs_profile(32768), inv, cur);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  auto c = by_knob(*plan);
  REQUIRE(c.size() == 1 + 6 + 8);
  // 32768 / 6 = 5462: the kernel would round it up to 8192, and the plan says so.
  for (unsigned q = 0; q < 6; ++q) {
    const Change* rx = c.at("nic:eth0:rfs:rx-" + std::to_string(q));
    CHECK(rx->current == "0");
    CHECK(rx->desired == "8192");
    CHECK(rx->group == "channels");
    CHECK(rx->written_after.empty());
  }
  CHECK(c.at("nic:eth0:rfs:rx-5")->reason ==
        "eth0: RFS, the socket flow table's 32768 entries / 6 RX queues = 5462, rounded up as "
        "the kernel does: 8192 (rx queue 5) (test.toml:7)");
  for (unsigned q = 0; q < 8; ++q)
    CHECK(c.at("nic:eth1:rfs:rx-" + std::to_string(q))->desired == "4096");
  CHECK(c.at("nic:eth1:rfs:rx-0")->reason ==
        "eth1: RFS, the socket flow table's 32768 entries / 8 RX queues = 4096 (rx queue 0) "
        "(test.toml:7)");
  // The socket table, once, in the rule's group: the queues' tables need it.
  const Change* sock = c.at(kSockTable);
  CHECK(sock->current == "0");
  CHECK(sock->desired == "32768");
  CHECK(sock->group == "channels");
  CHECK(sock->reason ==
        "RFS on eth0, eth1 (nic rule 'eth*'), the socket flow table: raise only: profile asks "
        ">= 32768 (test.toml:7)");
  CHECK(plan->changes.front().knob == kSockTable);  // sysctls first in a group
  // Applied, nothing is left to do.
  testing::apply_plan(*plan, inv, cur);
  auto again = make_plan_with(rfs_profile(32768), inv, cur);
  REQUIRE(again.ok());
  CHECK(again->changes.empty());
  CHECK(again->unchanged == 15);
}

TEST_CASE("plan rfs: a site's larger socket table stays; a size is rounded as the kernel does") {
  Inventory inv = testing::smt_machine(1, 4);
  testing::add_nic(inv, "eth0", 0, 4, 40);
  FakeCurrent cur = no_tables(inv);
  cur.values_[kSockTable] = "65536";
  auto plan = make_plan_with(rfs_profile(20000), inv, cur);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  auto c = by_knob(*plan);
  CHECK_FALSE(c.contains(kSockTable));
  CHECK(std::ranges::count(plan->unchanged_knobs, std::string(kSockTable)) == 1);
  // 20000 is a table of 32768 to the kernel: each of 4 queues 8192.
  CHECK(c.at("nic:eth0:rfs:rx-3")->desired == "8192");
  CHECK(c.at("nic:eth0:rfs:rx-3")->reason ==
        "eth0: RFS, the socket flow table's 32768 entries (rfs = 20000, rounded up as the "
        "kernel does) / 4 RX queues = 8192 (rx queue 3) (test.toml:7)");
  // More queues than the table has pairs of entries: 2 each, the least Linux 6.18 takes.
  Inventory many = testing::smt_machine(1, 4);
  testing::add_nic(many, "eth0", 0, 64, 40);
  FakeCurrent many_cur = no_tables(many);
  auto small = make_plan_with(rfs_profile(64), many, many_cur);
  REQUIRE(small.ok());
  CHECK(by_knob(*small).at("nic:eth0:rfs:rx-63")->desired == "2");
  CHECK(by_knob(*small).at("nic:eth0:rfs:rx-63")->reason.find("= 1, at least 2 (rx queue 63)") !=
        std::string::npos);
}

TEST_CASE("plan rfs: \"off\" removes the queues' tables and leaves the socket table") {
  Inventory inv = testing::smt_machine(1, 4);
  testing::add_nic(inv, "eth0", 0, 2, 40);
  FakeCurrent cur = no_tables(inv);
  cur.values_["nic:eth0:rfs:rx-0"] = "2048";
  cur.values_[kSockTable] = "4096";
  auto plan = make_plan_with(rfs_profile(0), inv, cur);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  REQUIRE(plan->changes.size() == 1);
  CHECK(plan->changes[0].knob == "nic:eth0:rfs:rx-0");
  CHECK(plan->changes[0].desired == "0");
  CHECK(plan->changes[0].reason ==
        "eth0: profile turns RFS off (its flow tables removed) (rx queue 0) (test.toml:7)");
  CHECK(plan->unchanged_knobs == std::vector<std::string>{"nic:eth0:rfs:rx-1"});
}

TEST_CASE("plan rfs: a channel change of the same plan: tables for the queues after it") {
  Inventory inv = testing::smt_machine(2, 4);
  Nic& nic = testing::add_nic(inv, "eth0", 0, 16, 100);
  nic.channels = Channels{};
  nic.channels->combined = 16;
  nic.channels->combined_max = 16;
  FakeCurrent cur = no_tables(inv);
  Profile p = rfs_profile(32768);
  p.nics[0].combined_local_cores = true;
  auto plan = make_plan_with(p, inv, cur);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  auto c = by_knob(*plan);
  CHECK(c.at("nic:eth0:channels")->desired == "combined=4");
  for (unsigned q = 0; q < 4; ++q) {
    const Change* rx = c.at("nic:eth0:rfs:rx-" + std::to_string(q));
    CHECK(rx->desired == "8192");  // 32768 / the 4 queues there will be
    CHECK(rx->written_after == "nic:eth0:channels");
  }
  CHECK_FALSE(c.contains("nic:eth0:rfs:rx-4"));
  testing::apply_plan(*plan, inv, cur);
  auto again = make_plan_with(p, inv, cur);
  REQUIRE_MESSAGE(again.ok(), again.error().message());
  CHECK(again->changes.empty());
}

TEST_CASE("plan rfs: outside the initial network namespace the socket table is the host's") {
  Inventory inv = testing::smt_machine(1, 4);
  testing::add_nic(inv, "eth0", 0, 2, 40);
  inv.host.initial_net_namespace = false;
  FakeCurrent cur = no_tables(inv);
  cur.values_.erase(kSockTable);
  cur.missing_.insert(kSockTable);  // the kernel registers it in the initial one only
  auto plan = make_plan_with(rfs_profile(4096), inv, cur);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  auto c = by_knob(*plan);
  CHECK_FALSE(c.contains(kSockTable));
  CHECK(c.at("nic:eth0:rfs:rx-0")->desired == "2048");
  CHECK(c.at("nic:eth0:rfs:rx-1")->desired == "2048");
  CHECK(noted(*plan, "RFS on eth0: the socket flow table (net.core.rps_sock_flow_entries) is "
                     "global, kept by the initial network namespace, not this one, so this plan "
                     "leaves it: the queues' flow tables planned here steer nothing until the "
                     "host sets it to 4096 or more"));
  CHECK(noted(*plan, "sysctl:net.core.rps_sock_flow_entries: not in this network namespace"));
}

TEST_CASE("plan rfs: [sysctl] setting the socket table itself wins, once") {
  Inventory inv = testing::smt_machine(1, 4);
  testing::add_nic(inv, "eth0", 0, 2, 40);
  FakeCurrent cur = no_tables(inv);
  Profile p = rfs_profile(4096);
  SysctlSetting s;
  s.key = "net.core.rps_sock_flow_entries";
  s.value = "65536";
  s.group = "sysctl";
  s.loc = testing::loc(3);
  p.sysctls = {s};
  auto plan = make_plan_with(p, inv, cur);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  CHECK(std::ranges::count(plan->changes, std::string(kSockTable), &Change::knob) == 1);
  CHECK(by_knob(*plan).at(kSockTable)->desired == "65536");
  CHECK(by_knob(*plan).at(kSockTable)->group == "sysctl");
  CHECK(noted(*plan, "[sysctl] sets net.core.rps_sock_flow_entries (test.toml:3): the RFS of "
                     "nic rule 'eth*' (eth0) leaves the socket flow table to it"));
}
