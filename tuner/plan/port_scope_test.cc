// Which ports an [irq] or [nic] rule covers by kind of link (issue 42, item 6): IPoIB
// ports (ARPHRD_INFINIBAND, 32) are for rules written for them, never for "*".
#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include "base/strings.h"
#include "tuner/plan/plan_test_util.h"
#include "tuner/plan/planner.h"

using namespace tuner;
using testing::FakeCurrent;

namespace {

/// A node with a 100G Ethernet port ens1 (IRQs 100-103 on node 0) and two IPoIB ports
/// ib0, ib1 of a ConnectX in InfiniBand mode (IRQs 200-203, 300-303 on node 1), every
/// link up at a known speed.
Inventory ib_node() {
  Inventory inv = testing::smt_machine(2, 4);
  auto port = [&](const std::string& name, int node, unsigned irq, unsigned type) {
    Nic& n = testing::add_nic(inv, name, node, 4, irq);
    n.link_type = type;
    n.link.up = true;
    n.link.speed_mbps = type == 32 ? 200000 : 100000;
  };
  port("ens1", 0, 100, 1);
  port("ib0", 1, 200, 32);
  port("ib1", 1, 300, 32);
  return inv;
}

Profile rule(const std::string& glob, std::optional<LinkKind> link_type = std::nullopt) {
  Profile p;
  p.name = "site";
  p.chain = {"site"};
  IrqRule r;
  r.glob = glob;
  r.policy = IrqPolicy::numa_local;
  r.min_speed_mbps = 10000;
  r.link_type = link_type;
  r.loc = testing::loc(3);
  p.irqs = {r};
  return p;
}

/// The ports whose queue IRQs the plan places: "ens1", "ib0", "ib1".
std::set<std::string> placed(const Plan& plan) {
  std::set<std::string> out;
  for (const Change& c : plan.changes) {
    unsigned irq = static_cast<unsigned>(std::stoul(c.knob.substr(4)));
    out.insert(irq < 200 ? "ens1" : irq < 300 ? "ib0" : "ib1");
  }
  return out;
}

/// A note about port (notes with the same text name all their ports: "a, b: ...")
/// that holds text.
bool noted(const Plan& plan, const std::string& port, const std::string& text) {
  for (const std::string& n : plan.notes) {
    std::size_t colon = n.find(": ");
    if (colon == std::string::npos || n.find(text, colon) == std::string::npos) continue;
    for (std::string_view s : split(std::string_view(n).substr(0, colon), ','))
      if (trim(s) == port) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("port scope: a glob only IPoIB ports match places their IRQs; '*' does not") {
  Inventory inv = ib_node();
  FakeCurrent cur;
  auto ib = make_plan_with(rule("ib*"), inv, cur);
  REQUIRE_MESSAGE(ib.ok(), ib.error().message());
  CHECK(placed(*ib) == std::set<std::string>{"ib0", "ib1"});
  // On the IPoIB ports' node (1: CPUs 4-7, 12-15), a core each first.
  std::map<std::string, std::string> want = {{"irq:200:affinity", "4"}, {"irq:201:affinity", "5"}};
  for (const Change& c : ib->changes)
    if (want.contains(c.knob)) CHECK(c.desired == want[c.knob]);

  auto all = make_plan_with(rule("*"), inv, cur);
  REQUIRE(all.ok());
  CHECK(placed(*all) == std::set<std::string>{"ens1"});
  CHECK(noted(*all, "ib0",
              "an IPoIB port (InfiniBand): rule '*' is for Ethernet ports (it "
              "matches every name); set link_type = \"infiniband\" or name the port"));
}

TEST_CASE("port scope: a wildcard that also matches an Ethernet port leaves IPoIB out") {
  Inventory inv = ib_node();
  Nic& odd = testing::add_nic(inv, "ibx0", 0, 2, 400);  // an Ethernet port named ib*
  odd.link_type = 1;
  odd.link.speed_mbps = 25000;
  FakeCurrent cur;
  auto plan = make_plan_with(rule("ib*"), inv, cur);
  REQUIRE(plan.ok());
  std::set<std::string> knobs;
  for (const Change& c : plan->changes) knobs.insert(c.knob);
  CHECK(knobs.contains("irq:400:affinity"));
  CHECK_FALSE(knobs.contains("irq:200:affinity"));
  CHECK(noted(*plan, "ib0",
              "an IPoIB port (InfiniBand): rule 'ib*' is for Ethernet ports (it "
              "also matches ibx0, not IPoIB)"));
  // Said outright, the kind decides, whatever else the glob matches.
  auto ib = make_plan_with(rule("ib*", LinkKind::infiniband), inv, cur);
  REQUIRE(ib.ok());
  CHECK(placed(*ib) == std::set<std::string>{"ib0", "ib1"});
  CHECK(noted(*ib, "ibx0", "link type 1: rule 'ib*' says link_type = \"infiniband\", skipped"));
}

TEST_CASE("port scope: link_type picks the kind of port for any glob") {
  Inventory inv = ib_node();
  FakeCurrent cur;
  auto ib = make_plan_with(rule("*", LinkKind::infiniband), inv, cur);
  REQUIRE(ib.ok());
  CHECK(placed(*ib) == std::set<std::string>{"ib0", "ib1"});
  auto eth = make_plan_with(rule("*", LinkKind::ethernet), inv, cur);
  REQUIRE(eth.ok());
  CHECK(placed(*eth) == std::set<std::string>{"ens1"});
  CHECK(noted(*eth, "ib0", "link type 32: rule '*' says link_type = \"ethernet\", skipped"));
  // A port named in ports is still of the wrong kind: link_type is a filter.
  Profile named = rule("*", LinkKind::ethernet);
  named.irqs[0].ports = {"ib0", "ens1"};
  auto n = make_plan_with(named, inv, cur);
  REQUIRE(n.ok());
  CHECK(placed(*n) == std::set<std::string>{"ens1"});
  // A kind the probe could not tell (an XML export) is not assumed.
  inv.nics[0].link_type.reset();
  auto unknown = make_plan_with(rule("*", LinkKind::ethernet), inv, cur);
  REQUIRE(unknown.ok());
  CHECK(placed(*unknown).empty());
  CHECK(noted(*unknown, "ens1", "link type unknown: rule '*' says link_type = \"ethernet\""));
}

TEST_CASE("port scope: [nic] rules follow the same kinds") {
  Inventory inv = ib_node();
  for (Nic& n : inv.nics) {
    n.channels = Channels{};
    n.channels->combined = 16;
    n.channels->combined_max = 63;
  }
  FakeCurrent cur;
  auto with_nic_rule = [](const std::string& glob) {
    Profile p;
    p.name = "site";
    p.chain = {"site"};
    NicRule r;
    r.glob = glob;
    r.combined = 4;
    r.loc = testing::loc(3);
    p.nics = {r};
    return p;
  };
  auto ib = make_plan_with(with_nic_rule("ib*"), inv, cur);
  REQUIRE(ib.ok());
  std::set<std::string> knobs;
  for (const Change& c : ib->changes) knobs.insert(c.knob);
  CHECK(knobs == std::set<std::string>{"nic:ib0:channels", "nic:ib1:channels"});
  auto all = make_plan_with(with_nic_rule("*"), inv, cur);
  REQUIRE(all.ok());
  REQUIRE(all->changes.size() == 1);
  CHECK(all->changes[0].knob == "nic:ens1:channels");
}

TEST_CASE("port scope: default_route = false leaves the management port out unless named") {
  // ens1 holds the default route (the in-band management port an operator reaches the
  // node by); ens2 is a data port at the same speed.
  Inventory inv = testing::smt_machine(2, 4);
  for (auto [name, irq] : {std::pair{"ens1", 100u}, std::pair{"ens2", 200u}}) {
    Nic& n = testing::add_nic(inv, name, 0, 4, irq);
    n.link_type = 1;
    n.link.up = true;
    n.link.speed_mbps = 10000;
    n.default_route = std::string(name) == "ens1";
  }
  FakeCurrent cur;
  Profile p = rule("*");
  p.irqs[0].default_route = false;
  auto plan = make_plan_with(p, inv, cur);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  std::set<std::string> knobs;
  for (const Change& c : plan->changes) knobs.insert(c.knob.substr(0, 6));
  CHECK(knobs == std::set<std::string>{"irq:20"});  // ens2's IRQs 200-203 only
  CHECK(noted(*plan, "ens1",
              "holds the default route (the management or front-end port): "
              "rule '*' says default_route = false, skipped; name it in ports"));

  p.irqs[0].ports = {"ens1", "ens2"};  // named: in scope
  auto named = make_plan_with(p, inv, cur);
  REQUIRE(named.ok());
  CHECK(named->changes.size() == 8);

  p.irqs[0].ports.clear();  // without the key, any port
  p.irqs[0].default_route.reset();
  auto any = make_plan_with(p, inv, cur);
  REQUIRE(any.ok());
  CHECK(any->changes.size() == 8);

  // Routes unknown (a capture without proc/net/route): planned, and the plan says so.
  p.irqs[0].default_route = false;
  for (Nic& n : inv.nics) n.default_route.reset();
  auto unknown = make_plan_with(p, inv, cur);
  REQUIRE(unknown.ok());
  CHECK(unknown->changes.size() == 8);
  CHECK(noted(*unknown, "ens1", "the routes are not known here"));
  CHECK(noted(*unknown, "ens2", "the routes are not known here"));
}

TEST_CASE("port scope: one note when the NIC rules leave every port out, none otherwise") {
  // dl-training on an all-ConnectX node: every port has an RDMA device (D1 of
  // profiles/REVIEW.md); a DTN whose only fast port holds the default route likewise.
  const std::string says = "the profile's NIC rules apply to no port on this node";
  auto count = [&](const Plan& plan) {
    return std::count_if(plan.notes.begin(), plan.notes.end(),
                         [&](const std::string& n) { return n.find(says) != std::string::npos; });
  };
  Inventory inv = ib_node();
  for (Nic& n : inv.nics) n.rdma_device = "mlx5_" + n.name;
  Profile p = rule("*");
  p.irqs[0].rdma = false;
  FakeCurrent cur;
  auto none = make_plan_with(p, inv, cur);
  REQUIRE_MESSAGE(none.ok(), none.error().message());
  CHECK(none->changes.empty());
  CHECK(count(*none) == 1);
  CHECK(noted(*none, "ens1", "an RDMA port (mlx5_ens1): rule '*' says rdma = false"));
  // The same node with ens1 named: it is tuned, and the note is gone.
  p.irqs[0].ports = {"ens1"};
  auto named = make_plan_with(p, inv, cur);
  REQUIRE_MESSAGE(named.ok(), named.error().message());
  CHECK(placed(*named) == std::set<std::string>{"ens1"});
  CHECK(count(*named) == 0);
  // The default route on the only Ethernet port, the IPoIB ports not matched by "*".
  Inventory dtn = ib_node();
  dtn.nics[0].default_route = true;
  Profile q = rule("*");
  q.irqs[0].default_route = false;
  auto routed = make_plan_with(q, dtn, cur);
  REQUIRE_MESSAGE(routed.ok(), routed.error().message());
  CHECK(count(*routed) == 1);
  // No rule, no note; a rule whose glob matches nothing here, none either.
  CHECK(count(*make_plan_with(rule("eth*"), inv, cur)) == 0);
}

TEST_CASE("port scope: default_route = false leaves out a port an SSH session arrives through") {
  // The management network reached by a subnet route on ens1 (an SSH session from
  // 10.9.0.2 arrives there), the default route on the front end ens3; ens2 is data.
  Inventory inv = testing::smt_machine(2, 4);
  for (auto [name, irq] :
       {std::pair{"ens1", 100u}, std::pair{"ens2", 200u}, std::pair{"ens3", 300u}}) {
    Nic& n = testing::add_nic(inv, name, 0, 4, irq);
    n.link_type = 1;
    n.link.up = true;
    n.link.speed_mbps = 10000;
    n.default_route = std::string(name) == "ens3";
    n.ssh_session = std::string(name) == "ens1";
  }
  inv.nics[0].ssh_session_peer = "10.9.0.2 via bond0";
  FakeCurrent cur;
  Profile p = rule("*");
  p.irqs[0].default_route = false;
  auto plan = make_plan_with(p, inv, cur);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  std::set<std::string> knobs;
  for (const Change& c : plan->changes) knobs.insert(c.knob.substr(0, 6));
  CHECK(knobs == std::set<std::string>{"irq:20"});  // ens2's IRQs only
  CHECK(noted(*plan, "ens1",
              "an SSH session to this node arrives through it (from 10.9.0.2 via bond0: the "
              "management port): rule '*' says default_route = false, skipped; name it in "
              "ports"));
  CHECK(noted(*plan, "ens3", "holds the default route"));

  p.irqs[0].ports = {"ens1", "ens2"};  // named: in scope
  auto named = make_plan_with(p, inv, cur);
  REQUIRE(named.ok());
  CHECK(named->changes.size() == 8);

  // Sessions unknown (a capture without proc/net/tcp): in scope, as before this probe.
  p.irqs[0].ports.clear();
  for (Nic& n : inv.nics) n.ssh_session.reset();
  auto unknown = make_plan_with(p, inv, cur);
  REQUIRE(unknown.ok());
  CHECK(unknown->changes.size() == 8);
}
