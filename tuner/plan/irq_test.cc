#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "tuner/plan/plan_test_util.h"
#include "tuner/plan/planner.h"

using namespace tuner;
using testing::FakeCurrent;

namespace {

Profile irq_profile(const std::string& policy, const std::string& irqbalance = "leave") {
  Profile p;
  p.name = "net";
  p.chain = {"net"};
  IrqRule r;
  r.glob = "eth*";
  r.policy = parse_irq_policy(policy).value();
  r.irqbalance = parse_irqbalance_action(irqbalance).value();
  r.loc = testing::loc(8);
  p.irqs = {r};
  return p;
}

std::map<std::string, std::string> desired(const Plan& plan) {
  std::map<std::string, std::string> out;
  for (const Change& c : plan.changes) out[c.knob] = c.desired;
  return out;
}

/// The plan's notes but those naming add_nic()'s control vector, which every NIC has.
std::vector<std::string> notes(const Plan& plan) {
  std::vector<std::string> out;
  for (const std::string& n : plan.notes)
    if (n.find("left alone, control vectors") == std::string::npos &&
        n.find("no MSI index on this kernel") == std::string::npos)
      out.push_back(n);
  return out;
}

}  // namespace

TEST_CASE("planner irq: numa-local spreads queues over the NIC's node, a core each first") {
  Inventory inv = testing::smt_machine(2, 4);  // node 1: cores 4-7, PUs 4-7 and 12-15
  testing::add_nic(inv, "eth2", 1, 6, 100);    // IRQs 100-105 queues, 106 link
  FakeCurrent cur;
  auto plan = make_plan_with(irq_profile("numa-local"), inv, cur);
  REQUIRE(plan.ok());
  auto d = desired(*plan);
  CHECK(d == std::map<std::string, std::string>{{"irq:100:affinity", "4"},
                                                {"irq:101:affinity", "5"},
                                                {"irq:102:affinity", "6"},
                                                {"irq:103:affinity", "7"},
                                                {"irq:104:affinity", "12"},
                                                {"irq:105:affinity", "13"}});
  CHECK(plan->changes[3].reason == "eth2 is on NUMA node 1; queue 3 -> CPU 7");
  CHECK(plan->changes[0].current == "0-15");
  CHECK(plan->changes[0].group == "irq");
}

TEST_CASE("planner irq: IRQs named by number are said to be unstable; by owner, not") {
  Inventory inv = testing::smt_machine(2, 4);
  testing::add_nic(inv, "eth2", 1, 2, 100);
  FakeCurrent cur;
  auto plan = make_plan_with(irq_profile("numa-local"), inv, cur);
  REQUIRE(plan.ok());
  REQUIRE_FALSE(plan->notes.empty());
  CHECK(plan->notes.back().find("2 IRQs (irq:100:affinity, ...) have no MSI index on this "
                                "kernel, so they are named by number") == 0);
  CHECK(plan->notes.back().find("'tuner restore' does not re-apply them") != std::string::npos);
  // With their MSI vectors known they are named by owner, which a reboot keeps.
  for (Irq& irq : inv.irqs) {
    irq.pci = "0000:3b:00.0";
    irq.msi_index = irq.number - 100;
  }
  auto owned = make_plan_with(irq_profile("numa-local"), inv, cur);
  REQUIRE(owned.ok());
  REQUIRE_FALSE(owned->changes.empty());
  CHECK(owned->changes[0].knob == "irq:0000:3b:00.0/msi0:affinity");
  for (const std::string& n : owned->notes) CHECK(n.find("MSI index") == std::string::npos);
}

TEST_CASE("planner irq: numa-local on a socket split into nodes takes the socket's cores next") {
  // AMD NPS4: two sockets of four nodes of 4 cores (64 cores; PU c and c + 32). eth0 on
  // node 5 (cores 20-23) with 10 queues: its node's 4 cores, then 6 more cores of
  // socket 1 (nodes 4, 6, 7 in turn), and no SMT sibling while a core is free.
  Inventory inv = testing::smt_machine(8, 4, 4);
  testing::add_nic(inv, "eth0", 5, 10, 100);
  FakeCurrent cur;
  auto plan = make_plan_with(irq_profile("numa-local"), inv, cur);
  REQUIRE(plan.ok());
  std::vector<std::string> cpus;
  for (const Change& c : plan->changes) cpus.push_back(c.desired);
  CHECK(cpus ==
        std::vector<std::string>{"20", "21", "22", "23", "16", "24", "28", "17", "25", "29"});
  CHECK(plan->changes[9].reason ==
        "eth0 is on NUMA node 5 with 4 cores for 10 queue vectors, so the rest of its socket's "
        "cores too; queue 9 -> CPU 29");
  // 20 vectors: each of the socket's 16 cores once, then node 5's own SMT siblings.
  Inventory inv2 = testing::smt_machine(8, 4, 4);
  testing::add_nic(inv2, "eth0", 5, 20, 200);
  auto more = make_plan_with(irq_profile("numa-local"), inv2, cur);
  REQUIRE(more.ok());
  std::vector<std::string> got;
  for (const Change& c : more->changes) got.push_back(c.desired);
  REQUIRE(got.size() == 20);
  std::set<std::string> first16(got.begin(), got.begin() + 16);
  CHECK(first16.size() == 16);
  for (const std::string& c : first16) CHECK(std::stoul(c) >= 16);
  for (const std::string& c : first16) CHECK(std::stoul(c) < 32);  // socket 1, primaries
  CHECK(std::vector<std::string>(got.begin() + 16, got.end()) ==
        std::vector<std::string>{"52", "53", "54", "55"});
}

TEST_CASE("planner irq: IRQs follow queue order, not IRQ numbers, and the link IRQ stays") {
  Inventory inv = testing::smt_machine(1, 2);
  testing::add_nic(inv, "eth0", 0, 2, 60);
  inv.irqs[0].number = 61;  // queue 0
  inv.irqs[1].number = 60;  // queue 1
  FakeCurrent cur;
  auto plan = make_plan_with(irq_profile("numa-local"), inv, cur);
  REQUIRE(plan.ok());
  auto d = desired(*plan);
  CHECK(d.at("irq:61:affinity") == "0");
  CHECK(d.at("irq:60:affinity") == "1");
  CHECK(!d.contains("irq:62:affinity"));  // "eth0": the link vector has no queue
}

TEST_CASE("planner irq: separate RX and TX vectors: the RX queues get every core") {
  // virtio-net: input.N and output.N vectors, as in /proc/interrupts "virtio1-input.0".
  Inventory inv = testing::smt_machine(1, 2);  // cores 0-1, SMT siblings 2-3
  testing::add_nic(inv, "eth0", 0, 4, 40);     // IRQs 40-43 (+44 link) renamed below
  for (unsigned i = 0; i < 4; ++i) {
    inv.irqs[i].queue = (i % 2 ? "output." : "input.") + std::to_string(i / 2);
    inv.irqs[i].name = "virtio1-" + *inv.irqs[i].queue;
    inv.irqs[i].queue_index = i / 2;
    inv.irqs[i].queue_type = i % 2 ? QueueType::tx : QueueType::rx;
  }
  FakeCurrent cur;
  auto plan = make_plan_with(irq_profile("numa-local"), inv, cur);
  REQUIRE(plan.ok());
  auto d = desired(*plan);
  // input.0 (40) and input.1 (42) land on different cores; the outputs then take the
  // SMT siblings, so output.N shares a physical core with input.N.
  CHECK(d.at("irq:40:affinity") == "0");
  CHECK(d.at("irq:42:affinity") == "1");
  CHECK(d.at("irq:41:affinity") == "2");
  CHECK(d.at("irq:43:affinity") == "3");
}

TEST_CASE("planner irq: isolated CPUs are skipped, round robin past the last CPU") {
  Inventory inv = testing::smt_machine(1, 4);  // PUs 0-3 + 4-7
  inv.host.isolcpus = *CpuSet::parse("2-3,6-7");
  testing::add_nic(inv, "eth0", 0, 6, 40);
  FakeCurrent cur;
  auto plan = make_plan_with(irq_profile("numa-local"), inv, cur);
  REQUIRE(plan.ok());
  std::vector<std::string> cpus;
  for (const Change& c : plan->changes) cpus.push_back(c.desired);
  CHECK(cpus == std::vector<std::string>{"0", "1", "4", "5", "0", "1"});
}

TEST_CASE("planner irq: a NIC without locality falls back to every node, with a note") {
  Inventory inv = testing::smt_machine(2, 2);
  testing::add_nic(inv, "eth0", std::nullopt, 4, 40);
  FakeCurrent cur;
  auto plan = make_plan_with(irq_profile("numa-local"), inv, cur);
  REQUIRE(plan.ok());
  auto d = desired(*plan);
  CHECK(d.at("irq:40:affinity") == "0");
  CHECK(d.at("irq:41:affinity") == "2");  // node 1's first core: nodes take turns
  CHECK(d.at("irq:42:affinity") == "1");
  CHECK(d.at("irq:43:affinity") == "3");
  CHECK(plan->changes[0].reason.find("no NUMA locality") != std::string::npos);
  REQUIRE(notes(*plan).size() == 1);
  CHECK(notes(*plan)[0] == "eth0: no NUMA node with CPUs: IRQs spread over all nodes");
}

TEST_CASE("planner irq: spread uses the whole machine; pin uses the list as given") {
  Inventory inv = testing::smt_machine(2, 2);  // PUs 0-7
  testing::add_nic(inv, "eth0", 0, 4, 40);
  FakeCurrent cur;
  auto spread = make_plan_with(irq_profile("spread"), inv, cur);
  REQUIRE(spread.ok());
  CHECK(desired(*spread).at("irq:43:affinity") == "3");

  Profile pin = irq_profile("pin");
  pin.irqs[0].cpus = *CpuSet::parse("1,5");
  auto pinned = make_plan_with(pin, inv, cur);
  REQUIRE(pinned.ok());
  REQUIRE(pinned->changes.size() == 4);
  for (const Change& c : pinned->changes) CHECK(c.desired == "1,5");

  pin.irqs[0].cpus = *CpuSet::parse("0-511");
  auto bad = make_plan_with(pin, inv, cur);
  REQUIRE(!bad.ok());
  CHECK(bad.error().message() == "/etc/tuner/profiles/test.toml:8:1: cpus '0-511' names CPUs "
                                 "this machine does not have (it has 0-7)");
}

TEST_CASE("planner irq: IRQs already in place count as unchanged") {
  Inventory inv = testing::smt_machine(1, 2);
  testing::add_nic(inv, "eth0", 0, 2, 40);
  inv.irqs[0].affinity = "0";
  FakeCurrent cur;
  auto plan = make_plan_with(irq_profile("numa-local"), inv, cur);
  REQUIRE(plan.ok());
  CHECK(plan->unchanged == 1);
  REQUIRE(plan->changes.size() == 1);
  CHECK(plan->changes[0].knob == "irq:41:affinity");
}

TEST_CASE("planner irq: virtual NICs, NICs without queue IRQs and managed IRQs get notes") {
  Inventory inv = testing::smt_machine(1, 2);
  Nic veth;
  veth.name = "eth9";
  veth.is_virtual = true;
  inv.nics.push_back(veth);
  Nic bare;
  bare.name = "eth5";
  inv.nics.push_back(bare);
  testing::add_nic(inv, "eth0", 0, 2, 40);
  inv.irqs[0].managed = true;
  FakeCurrent cur;
  auto plan = make_plan_with(irq_profile("numa-local"), inv, cur);
  REQUIRE(plan.ok());
  REQUIRE(plan->changes.size() == 1);
  CHECK(plan->changes[0].knob == "irq:41:affinity");
  CHECK(plan->changes[0].desired == "0");  // the managed IRQ does not use up a core
  REQUIRE(plan->notes.size() == 5);
  // A synthetic IRQ has no MSI index: its id is its number, said once (issue 41).
  CHECK(plan->notes[4] ==
        "1 IRQ (irq:41:affinity) has no MSI index on this kernel, so it is named by number, "
        "which can belong to another device after a reboot: 'tuner restore' does not re-apply "
        "it");
  CHECK(plan->notes[0] ==
        "eth0: left alone, control vectors (link, mailbox, events): IRQ 42 (eth0)");
  CHECK(plan->notes[1] ==
        "eth0: IRQs 40 have kernel-managed affinity and cannot be moved: skipped");
  CHECK(plan->notes[2] == "eth5: no queue IRQs to place (irq rule 'eth*')");
  CHECK(plan->notes[3] == "eth9: virtual, no IRQs to place (irq rule 'eth*')");
}

TEST_CASE("planner irq: control and ambiguous vectors stay where they are, with notes") {
  Inventory inv = testing::smt_machine(1, 2);
  testing::add_nic(inv, "eth0", 0, 2, 40);  // 40-41 queues, 42 control "eth0"
  inv.nics[0].pci = "0000:3b:00.0";
  Irq misc = inv.irqs[2];
  misc.number = 50;
  misc.name = "i40e-0000:3b:00.0:misc";
  misc.pci = "0000:3b:00.0";
  inv.irqs.push_back(misc);
  // A queue vector of the same function that the probe could not give a netdev.
  Irq comp = inv.irqs[0];
  comp.number = 51;
  comp.name = "mlx4-1@0000:3b:00.0";
  comp.device.reset();
  comp.pci = "0000:3b:00.0";
  comp.ambiguous = "named by PCI address, and the function has several netdevs (eth0, eth1)";
  inv.irqs.push_back(comp);
  FakeCurrent cur;
  auto plan = make_plan_with(irq_profile("numa-local"), inv, cur);
  REQUIRE(plan.ok());
  CHECK(desired(*plan) ==
        std::map<std::string, std::string>{{"irq:40:affinity", "0"}, {"irq:41:affinity", "1"}});
  REQUIRE(plan->notes.size() == 3);
  CHECK(plan->notes[2].find("2 IRQs (irq:40:affinity, ...) have no MSI index") == 0);
  CHECK(plan->notes[0] == "eth0: left alone, control vectors (link, mailbox, events): IRQs 42 "
                          "(eth0), 50 (i40e-0000:3b:00.0:misc)");
  CHECK(plan->notes[1] == "eth0: left alone, IRQ 51 (mlx4-1@0000:3b:00.0): named by PCI "
                          "address, and the function has several netdevs (eth0, eth1)");
}

TEST_CASE("planner irq: irqbalance stop, ban and leave") {
  Inventory inv = testing::smt_machine(1, 2);
  testing::add_nic(inv, "eth0", 0, 2, 58);
  testing::add_nic(inv, "eth1", 0, 1, 9);
  inv.host.irqbalance_running = true;
  FakeCurrent cur;
  cur.values_["irqbalance:banned"] = "none";

  auto stop = make_plan_with(irq_profile("numa-local", "stop"), inv, cur);
  REQUIRE(stop.ok());
  const Change& last = stop->changes.back();
  CHECK(last.knob == "irqbalance:service");
  CHECK(last.current == "active");
  CHECK(last.desired == "inactive");

  auto ban = make_plan_with(irq_profile("numa-local", "ban"), inv, cur);
  REQUIRE(ban.ok());
  CHECK(ban->changes.back().knob == "irqbalance:banned");
  CHECK(ban->changes.back().current == "none");
  CHECK(ban->changes.back().desired == "9,58,59");

  auto leave = make_plan_with(irq_profile("numa-local", "leave"), inv, cur);
  REQUIRE(leave.ok());
  CHECK(leave->changes.back().knob.rfind("irq:", 0) == 0);
  REQUIRE(notes(*leave).size() == 1);
  CHECK(notes(*leave)[0].find("irqbalance is running and will move") != std::string::npos);

  inv.host.irqbalance_running = false;
  auto quiet = make_plan_with(irq_profile("numa-local", "stop"), inv, cur);
  REQUIRE(quiet.ok());
  CHECK(quiet->changes.back().knob.rfind("irq:", 0) == 0);
  CHECK(quiet->unchanged == 1);  // irqbalance already inactive
}

TEST_CASE("planner irq: a pin rule without cpus is an error even when no NIC matches") {
  Inventory inv = testing::smt_machine(1, 2);
  FakeCurrent cur;
  auto plan = make_plan_with(irq_profile("pin"), inv, cur);
  REQUIRE(!plan.ok());
  CHECK(plan.error().where == "/etc/tuner/profiles/test.toml:8:1");
  CHECK(plan.error().what.find("needs a non-empty cpus list") != std::string::npos);
}

TEST_CASE("planner irq: of two matching rules the later one wins, with a note") {
  Inventory inv = testing::smt_machine(1, 4);
  testing::add_nic(inv, "eth0", 0, 1, 40);
  Profile p = irq_profile("numa-local");
  IrqRule pin = p.irqs[0];
  pin.glob = "eth0";
  pin.policy = IrqPolicy::pin;
  pin.cpus = *CpuSet::parse("3");
  p.irqs.push_back(pin);
  FakeCurrent cur;
  auto plan = make_plan_with(p, inv, cur);
  REQUIRE(plan.ok());
  CHECK(desired(*plan).at("irq:40:affinity") == "3");
  REQUIRE(notes(*plan).size() == 1);
  CHECK(notes(*plan)[0] == "eth0: matches irq rules 'eth*', 'eth0'; the last one ('eth0') is used");
}

TEST_CASE("planner irq: the same note for several NICs is printed once, naming them all") {
  Inventory inv = testing::smt_machine(1, 2);
  for (const char* name : {"eth0", "eth1", "eth10", "eth2"}) {
    Nic nic;
    nic.name = name;
    inv.nics.push_back(nic);
  }
  FakeCurrent cur;
  auto plan = make_plan_with(irq_profile("numa-local"), inv, cur);
  REQUIRE(plan.ok());
  REQUIRE(plan->notes.size() == 1);
  CHECK(plan->notes[0] == "eth0, eth1, eth2, eth10: no IRQs known on this target, nothing placed "
                          "(irq rule 'eth*')");
}

TEST_CASE("planner irq: rules leave IPoIB ports and, with min_speed, slow or unknown links alone") {
  Inventory inv = testing::smt_machine(2, 4);
  testing::add_nic(inv, "eth0", 0, 2, 100).link.speed_mbps = 1000;  // a 1 GbE management port
  testing::add_nic(inv, "eth1", 1, 2, 110).link.speed_mbps = 100000;
  Nic& ib = testing::add_nic(inv, "eth2", 1, 2, 120);  // named eth* to match the glob
  ib.link_type = 32;
  ib.link.speed_mbps = 100000;
  testing::add_nic(inv, "eth3", 1, 2, 130);                 // link down: no speed
  testing::add_nic(inv, "eth4", 1, 2, 140).link.up = true;  // virtio_net: up, no speed
  FakeCurrent cur;
  Profile p = irq_profile("numa-local");
  p.irqs[0].min_speed_mbps = 10000;
  auto plan = make_plan_with(p, inv, cur);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  auto d = desired(*plan);
  CHECK(d ==
        std::map<std::string, std::string>{{"irq:110:affinity", "4"}, {"irq:111:affinity", "5"}});
  auto n = notes(*plan);
  auto has = [&](const std::string& text) {
    return std::any_of(n.begin(), n.end(),
                       [&](const std::string& s) { return s.find(text) != std::string::npos; });
  };
  CHECK(has("eth0: 1000 Mb/s, below the min_speed 10000 Mb/s of rule 'eth*': skipped"));
  CHECK(has("eth2: an IPoIB port (InfiniBand): rule 'eth*' is for Ethernet ports"));
  CHECK(has("eth3: link speed unknown (down, or not probed)"));
  CHECK(has("eth4: link up, but its driver reports no speed (virtio, veth): rule 'eth*'"));
  // Without min_speed only the IPoIB port is left out; named exactly, it is placed too.
  p.irqs[0].min_speed_mbps.reset();
  auto any_speed = make_plan_with(p, inv, cur);
  REQUIRE(any_speed.ok());
  CHECK(desired(*any_speed).size() == 8);
  IrqRule named = p.irqs[0];
  named.glob = "eth2";
  p.irqs = {named};
  auto ipoib = make_plan_with(p, inv, cur);
  REQUIRE(ipoib.ok());
  CHECK(desired(*ipoib).size() == 2);
}

TEST_CASE("planner irq: rdma = false leaves RoCE ports alone, with a note") {
  Inventory inv = testing::smt_machine(2, 4);
  testing::add_nic(inv, "eth0", 0, 2, 100).link.speed_mbps = 100000;  // frontend: no RDMA
  Nic& roce = testing::add_nic(inv, "eth1", 1, 2, 110);               // GPU fabric port
  roce.link.speed_mbps = 400000;
  roce.rdma_device = "mlx5_1";
  FakeCurrent cur;
  Profile p = irq_profile("numa-local");
  auto all = make_plan_with(p, inv, cur);
  REQUIRE(all.ok());
  CHECK(desired(*all).size() == 4);  // unset: every port
  p.irqs[0].rdma = false;
  auto plan = make_plan_with(p, inv, cur);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  CHECK(desired(*plan) ==
        std::map<std::string, std::string>{{"irq:100:affinity", "0"}, {"irq:101:affinity", "1"}});
  auto n = notes(*plan);
  CHECK(std::find(n.begin(), n.end(),
                  "eth1: an RDMA port (mlx5_1): rule 'eth*' says rdma = false, skipped") !=
        n.end());
}

TEST_CASE("planner irq: ports names the interfaces a rule applies to, IPoIB and RDMA included") {
  Inventory inv = testing::smt_machine(2, 4);
  testing::add_nic(inv, "eth0", 0, 2, 100).link.speed_mbps = 100000;
  Nic& roce = testing::add_nic(inv, "eth1", 1, 2, 110);
  roce.link.speed_mbps = 400000;
  roce.rdma_device = "mlx5_1";
  Nic& ib = testing::add_nic(inv, "eth2", 1, 2, 120);
  ib.link_type = 32;
  ib.link.speed_mbps = 400000;
  FakeCurrent cur;
  Profile p = irq_profile("numa-local");
  p.irqs[0].rdma = false;
  p.irqs[0].ports = {"eth1", "eth2"};
  auto plan = make_plan_with(p, inv, cur);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  auto d = desired(*plan);
  CHECK(d.size() == 4);  // eth1's and eth2's queue IRQs: named, so in scope
  CHECK(d.contains("irq:110:affinity"));
  CHECK(d.contains("irq:120:affinity"));
  CHECK_FALSE(d.contains("irq:100:affinity"));
  auto n = notes(*plan);
  CHECK(std::find(n.begin(), n.end(), "eth0: not among the ports rule 'eth*' names") != n.end());
}

TEST_CASE("planner irq: one socket over two remote nodes (a VM's) is two places, not one") {
  // qemu's -numa with one socket: both nodes in package 0, SLIT 20 between them. The
  // NIC's queues stay on its node even when they outnumber its cores.
  Inventory inv = testing::smt_machine(2, 2, 2);
  inv.topology.distances = {{10, 20}, {20, 10}};
  testing::add_nic(inv, "eth0", 1, 4, 100);
  FakeCurrent cur;
  auto plan = make_plan_with(irq_profile("numa-local"), inv, cur);
  REQUIRE(plan.ok());
  const CpuSet node1 = inv.topology.numa_nodes[1].cpus;
  for (const Change& c : plan->changes) CHECK(CpuSet::parse(c.desired)->is_subset_of(node1));
  // Without distances the same: a split socket is never assumed.
  inv.topology.distances.clear();
  auto unknown = make_plan_with(irq_profile("numa-local"), inv, cur);
  REQUIRE(unknown.ok());
  for (const Change& c : unknown->changes) CHECK(CpuSet::parse(c.desired)->is_subset_of(node1));
}
