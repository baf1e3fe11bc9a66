// XPS on every captured machine in ${TUNER_FIXTURES} (hwloc XML exports and sysfs
// captures), as network-throughput plans it: queue IRQs placed numa-local, channels
// lowered to the NIC's socket's cores, xps = "follow-irq". The union of the TX queues'
// maps must cover every online CPU, SMT siblings and the other sockets included, and
// one apply must leave nothing for the next plan.
#include <doctest/doctest.h>

#include <map>

#include "tests/support/fixtures.h"
#include "tuner/plan/plan_test_util.h"
#include "tuner/plan/planner.h"
#include "tuner/plan/target.h"

using namespace tuner;

namespace {

Profile throughput_queues() {
  Profile p;
  p.name = "xps";
  p.chain = {"xps"};
  IrqRule irq;
  irq.glob = "*";
  irq.policy = IrqPolicy::numa_local;
  irq.loc = testing::loc(2);
  p.irqs = {irq};
  NicRule nic;
  nic.glob = "*";
  nic.combined_local_cores = true;
  nic.xps = XpsPolicy::follow_irq;
  nic.loc = nic.xps_loc = testing::loc(5);
  p.nics = {nic};
  return p;
}

/// The CPU each IRQ of the plan is placed on, by IRQ number (ids by number here).
std::map<unsigned, unsigned> placed_cpus(const Plan& plan) {
  std::map<unsigned, unsigned> out;
  for (const Change& c : plan.changes)
    if (c.knob.starts_with("irq:"))
      out[static_cast<unsigned>(std::stoul(c.knob.substr(4)))] =
          CpuSet::parse(c.desired)->cpus().front();
  return out;
}

CpuSet siblings_of(const Topology& t, unsigned cpu) {
  for (const Core& c : t.core_list)
    if (c.pus.contains(cpu)) return c.pus;
  return CpuSet(std::vector<unsigned>{cpu});
}

/// Checks every NIC's XPS maps on inv; returns how many NICs were checked.
std::size_t check_xps(Inventory inv, const std::string& what) {
  CAPTURE(what);
  testing::add_queue_irqs(inv);
  inv.host.irqbalance_running = false;
  for (Nic& nic : inv.nics) {
    auto queues =
        static_cast<unsigned>(std::count_if(inv.irqs.begin(), inv.irqs.end(), [&](const Irq& i) {
          return i.device == nic.name && i.kind == IrqKind::queue;
        }));
    nic.rx_queues = nic.tx_queues = queues;
    nic.channels = Channels{};
    nic.channels->combined = nic.channels->combined_max = queues;
  }
  testing::FakeCurrent cur;
  Profile p = throughput_queues();
  auto plan = make_plan_with(p, inv, cur);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  std::map<unsigned, unsigned> placed = placed_cpus(*plan);
  const CpuSet& online = inv.topology.all_pus;
  std::size_t checked = 0;
  for (const Nic& nic : inv.nics) {
    CAPTURE(nic.name);
    std::map<unsigned, CpuSet> masks;  // by TX queue
    for (const Change& c : plan->changes)
      if (c.knob.starts_with("nic:" + nic.name + ":xps:tx-")) {
        masks[static_cast<unsigned>(std::stoul(c.knob.substr(c.knob.rfind('-') + 1)))] =
            *CpuSet::parse(c.desired);
        CHECK(c.written_after == "nic:" + nic.name + ":channels");
      }
    if (masks.size() < 2) continue;
    CpuSet all, irq_cpus;
    std::map<unsigned, unsigned> cpu_of;  // queue -> its IRQ's CPU
    for (const Irq& irq : inv.irqs)
      if (irq.device == nic.name && irq.queue_index && masks.contains(*irq.queue_index)) {
        auto it = placed.find(irq.number);  // else already where the plan wants it
        unsigned cpu = it != placed.end() ? it->second : CpuSet::parse(*irq.affinity)->cpus()[0];
        cpu_of[*irq.queue_index] = cpu;
        irq_cpus.add(cpu);
      }
    for (const auto& [queue, mask] : masks) {
      unsigned q = queue;  // a copy: CAPTURE's lambda cannot take a structured binding (clang 14)
      CAPTURE(q);
      all = all.unite(mask);
      // Its IRQ's CPU and that CPU's siblings (those no other queue's IRQ is on).
      CpuSet own = siblings_of(inv.topology, cpu_of.at(q)).intersect(online);
      CHECK(own.minus(irq_cpus).unite(CpuSet({cpu_of.at(q)})).is_subset_of(mask));
    }
    CHECK(all == online);
    ++checked;
  }
  // One apply: the next plan has nothing left to do.
  Inventory applied = inv;
  testing::FakeCurrent applied_cur = cur;
  testing::apply_plan(*plan, applied, applied_cur);
  auto again = make_plan_with(p, applied, applied_cur);
  REQUIRE_MESSAGE(again.ok(), again.error().message());
  CHECK(again->changes.empty());
  return checked;
}

}  // namespace

TEST_CASE("xps fixtures: every TX map together covers every online CPU; one apply converges") {
  std::size_t checked = 0, two_socket = 0;
  for (const std::string& xml : testing::fixture_files("topologies", ".xml")) {
    Inventory inv = probe_target(Target{Root::live(), xml});
    std::size_t n = check_xps(inv, xml);
    checked += n;
    if (inv.topology.packages >= 2) two_socket += n;
  }
  for (const std::string& tarball : testing::fixture_files("sysfs", ".tar.bz2")) {
    auto root = Root::open(testing::shared_fixture(tarball));
    REQUIRE(root.ok());
    Inventory inv = probe_target(Target{*root, std::nullopt});
    std::size_t n = check_xps(inv, tarball);
    checked += n;
    if (inv.topology.packages >= 2) two_socket += n;
  }
  CHECK(checked > 0);
  CHECK(two_socket > 0);
}

TEST_CASE("xps fixtures: a 2-socket capture: the other socket and the SMT siblings are mapped") {
  // HP ProLiant SL390s G7: 2 sockets of 6 cores x 2 threads; node 0 has the even CPUs.
  std::string xml = std::string(TUNER_FIXTURES) + "/topologies/24em64t-2n6c2t-pci.xml";
  Inventory inv = probe_target(Target{Root::live(), xml});
  REQUIRE(inv.topology.packages == 2);
  REQUIRE(inv.topology.all_pus.size() == 24);
  CHECK(check_xps(inv, xml) > 0);
}
