#include <algorithm>

#include <doctest/doctest.h>

#include "tuner/plan/plan_test_util.h"
#include "tuner/plan/planner.h"

using namespace tuner;
using testing::FakeCurrent;

namespace {

Profile nic_profile(NicRule rule) {
  Profile p;
  p.name = "net";
  p.chain = {"net"};
  rule.glob = rule.glob.empty() ? "eth*" : rule.glob;
  rule.loc = testing::loc(12);
  p.nics = {rule};
  return p;
}

Nic& sfp_nic(Inventory& inv) {
  Nic& nic = testing::add_nic(inv, "eth0", 0, 2, 40);
  nic.link.up = true;
  nic.link.autoneg = true;
  nic.link.speed_mbps = 10000;
  nic.link.duplex = Duplex::full;
  nic.link.supported_modes = {
      "1000baseT/Half", "1000baseT/Full", "10000baseSR/Full", "25000baseSR/Full", "Autoneg",
      "FIBRE",          "Pause"};
  return nic;
}

}  // namespace

TEST_CASE("planner nic: speed max forces the fastest mode, or advertises every mode") {
  Inventory inv = testing::smt_machine(1, 2);
  sfp_nic(inv);
  FakeCurrent cur;
  NicRule rule;
  rule.speed_max = true;
  rule.duplex = Duplex::full;
  rule.autoneg = false;
  auto plan = make_plan_with(nic_profile(rule), inv, cur);
  REQUIRE(plan.ok());
  REQUIRE(plan->changes.size() == 1);
  const Change& c = plan->changes[0];
  CHECK(c.knob == "nic:eth0:link");
  CHECK(c.group == "nic");
  CHECK(c.current == "autoneg=on,speed=10000,duplex=full");
  CHECK(c.desired == "autoneg=off,speed=25000,duplex=full");
  CHECK(c.reason == "eth0: profile asks autoneg=off,speed=25000,duplex=full; fastest full-duplex "
                    "mode it supports is 25000 Mb/s (test.toml:12)");

  SUBCASE("half duplex picks among half modes only") {
    rule.duplex = Duplex::half;
    auto half = make_plan_with(nic_profile(rule), inv, cur);
    REQUIRE(half.ok());
    CHECK(half->changes[0].desired == "autoneg=off,speed=1000,duplex=half");
  }
  SUBCASE("with autoneg, max advertises every mode instead of only the top one") {
    // Restricting the advertisement to 25G would take the link down wherever the
    // partner cannot do 25G; negotiation already picks the fastest shared mode.
    rule.autoneg = true;
    auto neg = make_plan_with(nic_profile(rule), inv, cur);
    REQUIRE(neg.ok());
    CHECK(neg->changes.empty());  // already autoneg, full duplex
    inv.nics[0].link.autoneg = false;
    auto forced = make_plan_with(nic_profile(rule), inv, cur);
    REQUIRE(forced.ok());
    REQUIRE(forced->changes.size() == 1);
    CHECK(forced->changes[0].desired == "autoneg=on,duplex=full");
  }
}

TEST_CASE("planner nic: a speed no mode offers is an error listing the supported ones") {
  Inventory inv = testing::smt_machine(1, 2);
  sfp_nic(inv);
  FakeCurrent cur;
  NicRule rule;
  rule.speed_mbps = 40000;
  auto plan = make_plan_with(nic_profile(rule), inv, cur);
  REQUIRE(!plan.ok());
  CHECK(plan.error().message() == "/etc/tuner/profiles/test.toml:12:1: eth0 has no 40000 Mb/s "
                                  "link mode (it supports 1000, 10000, 25000 Mb/s)");
  rule.speed_mbps = 10000;
  rule.duplex = Duplex::half;
  auto half = make_plan_with(nic_profile(rule), inv, cur);
  REQUIRE(!half.ok());
  CHECK(half.error().what ==
        "eth0 has no 10000 Mb/s half-duplex link mode (it supports 1000 Mb/s)");
}

TEST_CASE("planner nic: the link already as asked is a no-op; autoneg alone is 'autoneg=on'") {
  Inventory inv = testing::smt_machine(1, 2);
  sfp_nic(inv);
  FakeCurrent cur;
  NicRule rule;
  rule.autoneg = true;
  auto same = make_plan_with(nic_profile(rule), inv, cur);
  REQUIRE(same.ok());
  CHECK(same->changes.empty());
  CHECK(same->unchanged == 1);

  inv.nics[0].link.autoneg = false;
  auto on = make_plan_with(nic_profile(rule), inv, cur);
  REQUIRE(on.ok());
  REQUIRE(on->changes.size() == 1);
  CHECK(on->changes[0].current == "autoneg=off,speed=10000,duplex=full");
  CHECK(on->changes[0].desired == "autoneg=on");
}

TEST_CASE("planner nic: no known modes: max is skipped, a number is planned, both with notes") {
  Inventory inv = testing::smt_machine(1, 2);
  testing::add_nic(inv, "eth0", 0, 2, 40);  // nothing known about its link (XML, captured root)
  FakeCurrent cur;
  NicRule rule;
  rule.speed_max = true;
  auto max = make_plan_with(nic_profile(rule), inv, cur);
  REQUIRE(max.ok());
  CHECK(max->changes.empty());
  REQUIRE(max->notes.size() == 1);
  CHECK(max->notes[0] == "eth0: reports no supported link modes: speed = \"max\" skipped");

  rule.speed_max = false;
  rule.speed_mbps = 25000;
  auto fixed = make_plan_with(nic_profile(rule), inv, cur);
  REQUIRE(fixed.ok());
  REQUIRE(fixed->changes.size() == 1);
  CHECK(!fixed->changes[0].current);
  CHECK(fixed->changes[0].desired == "autoneg=on,speed=25000,duplex=full");
  CHECK(fixed->notes.size() == 1);
}

TEST_CASE("planner nic: channels and rings against the driver's maxima") {
  Inventory inv = testing::smt_machine(1, 2);
  Nic& nic = sfp_nic(inv);
  nic.channels = Channels{};
  nic.channels->combined = 4;
  nic.channels->combined_max = 16;
  nic.channels->rx_max = 0;
  nic.channels->tx_max = 0;
  nic.rings = Rings{512, 512, 4096, 8192};
  FakeCurrent cur;
  NicRule rule;
  rule.combined = 8;
  rule.rx_ring_max = true;
  rule.tx_ring = 4096;
  auto plan = make_plan_with(nic_profile(rule), inv, cur);
  REQUIRE(plan.ok());
  REQUIRE(plan->changes.size() == 2);
  CHECK(plan->changes[0].knob == "nic:eth0:channels");
  CHECK(plan->changes[0].current == "combined=4");
  CHECK(plan->changes[0].desired == "combined=8");
  CHECK(plan->changes[1].knob == "nic:eth0:rings");
  CHECK(plan->changes[1].current == "rx=512,tx=512");
  CHECK(plan->changes[1].desired == "rx=4096,tx=4096");

  rule.combined = 64;
  auto over = make_plan_with(nic_profile(rule), inv, cur);
  REQUIRE(!over.ok());
  CHECK(over.error().what ==
        "eth0: channels combined = 64 exceeds the maximum 16 the driver reports");
  rule.combined = std::nullopt;
  rule.rx_channels = 2;  // this driver has combined channels only
  CHECK(!make_plan_with(nic_profile(rule), inv, cur).ok());
}

TEST_CASE("planner nic: combined = local-cores counts the NIC node's cores that may take IRQs") {
  Inventory inv = testing::smt_machine(2, 6);  // node 1: cores 6-11, PUs 6-11 and 18-23
  Nic& nic = sfp_nic(inv);
  nic.numa_node = 1;
  nic.channels = Channels{};
  nic.channels->combined = 24;
  nic.channels->combined_max = 64;
  nic.channels->rx_max = 0;
  nic.channels->tx_max = 0;
  FakeCurrent cur;
  NicRule rule;
  rule.combined_local_cores = true;
  auto has_note = [](const Plan& p, const std::string& text) {
    return std::ranges::any_of(
        p.notes, [&](const std::string& n) { return n.find(text) != std::string::npos; });
  };

  auto plan = make_plan_with(nic_profile(rule), inv, cur);
  REQUIRE(plan.ok());
  REQUIRE(plan->changes.size() == 1);
  CHECK(plan->changes[0].knob == "nic:eth0:channels");
  CHECK(plan->changes[0].current == "combined=24");
  CHECK(plan->changes[0].desired == "combined=6");  // cores, not hyperthreads
  CHECK(has_note(*plan, "6 physical cores on NUMA node 1"));

  SUBCASE("isolated cores carry no queue: a core with any allowed thread counts") {
    inv.host.isolcpus = CpuSet({9, 10, 11, 21, 22});  // core 11 keeps PU 23
    auto iso = make_plan_with(nic_profile(rule), inv, cur);
    REQUIRE(iso.ok());
    CHECK(iso->changes[0].desired == "combined=4");
  }
  SUBCASE("capped at the driver's maximum, with a note saying so") {
    nic.channels->combined_max = 4;
    auto capped = make_plan_with(nic_profile(rule), inv, cur);
    REQUIRE(capped.ok());
    CHECK(capped->changes[0].desired == "combined=4");
    CHECK(has_note(*capped, "capped at the driver's maximum 4"));
  }
  SUBCASE("no NUMA locality: the machine's cores") {
    nic.numa_node = std::nullopt;
    auto any = make_plan_with(nic_profile(rule), inv, cur);
    REQUIRE(any.ok());
    CHECK(any->changes[0].desired == "combined=12");
    CHECK(has_note(*any, "the machine (no NUMA locality)"));
  }
  SUBCASE("a driver with separate rx/tx channels only: skipped with a note") {
    nic.channels->combined_max = 0;
    nic.channels->rx_max = 8;
    auto sep = make_plan_with(nic_profile(rule), inv, cur);
    REQUIRE(sep.ok());
    CHECK(sep->changes.empty());
    CHECK(has_note(*sep, "no combined channels"));
  }
  SUBCASE("already sized: a no-op") {
    nic.channels->combined = 6;
    auto same = make_plan_with(nic_profile(rule), inv, cur);
    REQUIRE(same.ok());
    CHECK(same->changes.empty());
  }
  SUBCASE("fewer queues than cores: left alone, local-cores only lowers") {
    nic.channels->combined = 4;
    auto fewer = make_plan_with(nic_profile(rule), inv, cur);
    REQUIRE(fewer.ok());
    CHECK(fewer->changes.empty());
    CHECK(has_note(*fewer, "it has 4 already, and local-cores only lowers"));
  }
  SUBCASE("the count now unknown: skipped with a note, never a guess that raises") {
    nic.channels->combined = std::nullopt;
    auto unknown = make_plan_with(nic_profile(rule), inv, cur);
    REQUIRE(unknown.ok());
    CHECK(unknown->changes.empty());
    CHECK(has_note(*unknown, "combined channel count now is unknown"));
  }
}

TEST_CASE("planner nic: local-cores sizes by the socket on NPS4/SNC, not the NUMA node") {
  // Two sockets of four nodes of 4 cores (AMD NPS4): the NIC on node 5 is on socket 1,
  // whose 16 cores take its queues; node 5 alone has 4.
  Inventory inv = testing::smt_machine(8, 4, 4);
  Nic& nic = sfp_nic(inv);
  nic.numa_node = 5;
  nic.channels = Channels{};
  nic.channels->combined = 63;
  nic.channels->combined_max = 63;
  FakeCurrent cur;
  NicRule rule;
  rule.combined_local_cores = true;
  auto plan = make_plan_with(nic_profile(rule), inv, cur);
  REQUIRE(plan.ok());
  REQUIRE(plan->changes.size() == 1);
  CHECK(plan->changes[0].desired == "combined=16");
  CHECK(std::ranges::any_of(plan->notes, [](const std::string& n) {
    return n.find("16 physical cores on socket 1 (NUMA node 5's)") != std::string::npos;
  }));
  // Isolated cores of the socket are left out, on any of its nodes.
  inv.host.isolcpus = CpuSet({16, 17, 48, 49, 28, 60});
  auto iso = make_plan_with(nic_profile(rule), inv, cur);
  REQUIRE(iso.ok());
  CHECK(iso->changes[0].desired == "combined=13");
}

TEST_CASE("planner nic: channels a live NIC does not report are skipped with a note") {
  Inventory inv = testing::smt_machine(1, 2);
  sfp_nic(inv);  // no channels, no rings
  FakeCurrent cur;
  cur.live_ = true;
  NicRule rule;
  rule.combined = 8;
  rule.rx_ring = 1024;
  auto plan = make_plan_with(nic_profile(rule), inv, cur);
  REQUIRE(plan.ok());
  CHECK(plan->changes.empty());
  CHECK(plan->notes.size() == 2);

  cur.live_ = false;  // a captured root or XML: unknown, so planned with current null
  auto offline = make_plan_with(nic_profile(rule), inv, cur);
  REQUIRE(offline.ok());
  REQUIRE(offline->changes.size() == 2);
  CHECK(!offline->changes[0].current);
}

TEST_CASE("planner nic: coalesce plans the fields the NIC reports, notes the others") {
  Inventory inv = testing::smt_machine(1, 2);
  Nic& nic = sfp_nic(inv);
  nic.coalesce = Coalesce{};
  nic.coalesce->rx_usecs = 50;
  nic.coalesce->tx_usecs = 50;
  nic.coalesce->adaptive_rx = true;
  FakeCurrent cur;
  cur.live_ = true;
  NicRule rule;
  rule.coalesce = Coalesce{};
  rule.coalesce->rx_usecs = 8;
  rule.coalesce->adaptive_rx = false;
  rule.coalesce->rx_frames = 32;  // this driver has no frame counts
  auto plan = make_plan_with(nic_profile(rule), inv, cur);
  REQUIRE(plan.ok());
  REQUIRE(plan->changes.size() == 1);
  CHECK(plan->changes[0].knob == "nic:eth0:coalesce");
  CHECK(plan->changes[0].current == "rx-usecs=50,adaptive-rx=on");
  CHECK(plan->changes[0].desired == "rx-usecs=8,adaptive-rx=off");
  REQUIRE(plan->notes.size() == 1);
  CHECK(plan->notes[0].find("does not support coalesce rx-frames") != std::string::npos);

  // Already as asked: nothing to do.
  nic.coalesce->rx_usecs = 8;
  nic.coalesce->adaptive_rx = false;
  auto same = make_plan_with(nic_profile(rule), inv, cur);
  REQUIRE(same.ok());
  CHECK(same->changes.empty());
  CHECK(same->unchanged == 1);

  // No coalescing at all (EOPNOTSUPP in the probe): a note, no change.
  nic.coalesce.reset();
  auto none = make_plan_with(nic_profile(rule), inv, cur);
  REQUIRE(none.ok());
  CHECK(none->changes.empty());
  REQUIRE(none->notes.size() == 1);
  CHECK(none->notes[0].find("does not report interrupt coalescing") != std::string::npos);

  cur.live_ = false;  // a captured root: planned whole, current unknown
  auto offline = make_plan_with(nic_profile(rule), inv, cur);
  REQUIRE(offline.ok());
  REQUIRE(offline->changes.size() == 1);
  CHECK(!offline->changes[0].current);
  CHECK(offline->changes[0].desired == "rx-usecs=8,rx-frames=32,adaptive-rx=off");
}

TEST_CASE("planner nic: virtual NICs get no link settings") {
  Inventory inv = testing::smt_machine(1, 2);
  Nic lo;
  lo.name = "lo";
  lo.is_virtual = true;
  inv.nics.push_back(lo);
  FakeCurrent cur;
  NicRule rule;
  rule.glob = "*";
  rule.autoneg = false;
  auto plan = make_plan_with(nic_profile(rule), inv, cur);
  REQUIRE(plan.ok());
  CHECK(plan->changes.empty());
  REQUIRE(plan->notes.size() == 1);
  CHECK(plan->notes[0] == "lo: virtual, link settings of nic rule '*' skipped");
}

TEST_CASE("planner nic: mtu is planned on any NIC, virtual ones too; as asked is a no-op") {
  Inventory inv = testing::smt_machine(1, 2);
  sfp_nic(inv).mtu = 1500;
  Nic veth;
  veth.name = "eth1";
  veth.is_virtual = true;
  veth.mtu = 9000;
  inv.nics.push_back(veth);
  FakeCurrent cur;
  NicRule rule;
  rule.mtu = 9000;
  auto plan = make_plan_with(nic_profile(rule), inv, cur);
  REQUIRE(plan.ok());
  REQUIRE(plan->changes.size() == 1);
  CHECK(plan->changes[0].knob == "nic:eth0:mtu");
  CHECK(plan->changes[0].current == "1500");
  CHECK(plan->changes[0].desired == "9000");
  CHECK(plan->changes[0].reason == "eth0: profile asks mtu 9000 (test.toml:12)");
  CHECK(plan->unchanged_knobs == std::vector<std::string>{"nic:eth1:mtu"});

  inv.nics[0].mtu = std::nullopt;  // not known: planned, with no current value
  auto unknown = make_plan_with(nic_profile(rule), inv, cur);
  REQUIRE(unknown.ok());
  REQUIRE(unknown->changes.size() == 1);
  CHECK(!unknown->changes[0].current);
}

TEST_CASE("planner nic: autoneg off keeps the current speed, or is an error without one") {
  Inventory inv = testing::smt_machine(1, 2);
  sfp_nic(inv);
  FakeCurrent cur;
  NicRule rule;
  rule.autoneg = false;
  auto plan = make_plan_with(nic_profile(rule), inv, cur);
  REQUIRE(plan.ok());
  REQUIRE(plan->changes.size() == 1);
  CHECK(plan->changes[0].desired == "autoneg=off,speed=10000,duplex=full");

  inv.nics[0].link.speed_mbps = std::nullopt;  // link down: no speed to keep
  auto bad = make_plan_with(nic_profile(rule), inv, cur);
  REQUIRE(!bad.ok());
  CHECK(bad.error().where == "/etc/tuner/profiles/test.toml:12:1");
}

TEST_CASE("planner nic: IRQ placement beside a channel change says to plan again") {
  // ice and i40e rebuild their queue vectors when channels change: the IRQs placed now
  // may not be the queues' IRQs afterwards.
  Inventory inv = testing::smt_machine(2, 2);
  Nic& nic = sfp_nic(inv);
  nic.channels = Channels{};
  nic.channels->combined = 2;
  nic.channels->combined_max = 8;
  FakeCurrent cur;
  NicRule rule;
  rule.combined = 4;
  Profile p = nic_profile(rule);
  IrqRule irq;
  irq.glob = "eth*";
  irq.policy = IrqPolicy::numa_local;
  irq.loc = testing::loc(3);
  p.irqs = {irq};
  auto noted = [](const Plan& plan) {
    return std::ranges::any_of(plan.notes, [](const std::string& n) {
      return n.starts_with("eth0: its queue IRQs are placed as they are numbered now");
    });
  };
  auto both = make_plan_with(p, inv, cur);
  REQUIRE(both.ok());
  CHECK(noted(*both));
  // Channels already as asked, or no placement: nothing to say.
  nic.channels->combined = 4;
  auto placed = make_plan_with(p, inv, cur);
  REQUIRE(placed.ok());
  CHECK_FALSE(noted(*placed));
  nic.channels->combined = 2;
  p.irqs.clear();
  auto resized = make_plan_with(p, inv, cur);
  REQUIRE(resized.ok());
  CHECK_FALSE(noted(*resized));
}

TEST_CASE("planner nic: a channel change that resets the link says so; one that drops filters "
          "needs accept_filter_loss") {
  auto plan_for_driver = [](const std::string& driver, bool accept) {
    Inventory inv = testing::smt_machine(1, 4);
    Nic& nic = sfp_nic(inv);
    nic.driver = driver;
    nic.channels = Channels{};
    nic.channels->combined = 8;
    nic.channels->combined_max = 16;
    FakeCurrent cur;
    NicRule rule;
    rule.combined = 4;
    rule.accept_filter_loss = accept;
    auto plan = make_plan_with(nic_profile(rule), inv, cur);
    REQUIRE_MESSAGE(plan.ok(), plan.error().message());
    return *plan;
  };
  auto has_note = [](const Plan& p, const std::string& text) {
    return std::any_of(p.notes.begin(), p.notes.end(),
                       [&](const std::string& n) { return n.find(text) != std::string::npos; });
  };
  Plan i40e = plan_for_driver("i40e", false);
  REQUIRE(i40e.changes.size() == 1);
  CHECK(has_note(i40e, "eth0: changing channels resets the link on i40e"));
  Plan mlx5 = plan_for_driver("mlx5_core", false);
  REQUIRE(mlx5.changes.size() == 1);
  CHECK_FALSE(has_note(mlx5, "resets the link"));

  Plan bnxt = plan_for_driver("bnxt_en", false);
  CHECK(bnxt.changes.empty());
  CHECK(has_note(bnxt, "eth0: channels left as they are: bnxt_en deletes the port's ntuple "
                       "filters and RSS contexts"));
  CHECK(has_note(bnxt, "accept_filter_loss = true in nic rule 'eth*'"));
  Plan accepted = plan_for_driver("bnxt_en", true);
  REQUIRE(accepted.changes.size() == 1);
  CHECK(accepted.changes[0].desired == "combined=4");
  CHECK(has_note(accepted, "changing channels resets the link on bnxt_en"));
}
