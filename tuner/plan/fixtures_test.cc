// Invariants of IRQ placement and re-planning on every captured machine in
// ${TUNER_FIXTURES}: hwloc XML exports and sysfs captures (the Dell R910 with its IRQ
// overlay). Where a capture has no IRQs for a NIC, queue IRQs are made up for it: the
// topology is what these tests exercise.
#include <algorithm>
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <set>

#include "tests/support/fixtures.h"
#include "tuner/plan/plan_test_util.h"
#include "tuner/plan/planner.h"
#include "tuner/plan/target.h"

using namespace tuner;
using testing::FakeCurrent;

namespace {

namespace fs = std::filesystem;

std::vector<std::string> fixture_files(const std::string& dir, const std::string& ext) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(std::string(TUNER_FIXTURES) + "/" + dir))
    if (e.path().string().size() > ext.size() &&
        e.path().string().compare(e.path().string().size() - ext.size(), ext.size(), ext) == 0)
      out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

Profile numa_local_profile() {
  Profile p;
  p.name = "fixture";
  p.chain = {"fixture"};
  IrqRule r;
  r.glob = "*";
  r.policy = IrqPolicy::numa_local;
  r.loc = testing::loc(2);
  p.irqs = {r};
  p.sysctls = {
      {"net.core.somaxconn", SysctlSetting::Op::at_least, "4096", "sysctl", testing::loc(5), {}}};
  return p;
}

/// Core of every PU; a PU no core lists (an XML without cores) is a core of its own.
std::map<unsigned, unsigned> core_of(const Topology& t) {
  std::map<unsigned, unsigned> out;
  for (const Core& c : t.core_list)
    for (unsigned pu : c.pus.cpus()) out[pu] = c.logical_index;
  for (unsigned pu : t.all_pus.cpus())
    if (!out.contains(pu)) out[pu] = 100000 + pu;
  return out;
}

/// The invariants one plan must hold. Returns the number of IRQs placed.
std::size_t check_placement(const Inventory& inv, const Plan& plan) {
  auto cores = core_of(inv.topology);
  std::map<unsigned, std::string> owner;  // IRQ -> NIC
  for (const Irq& irq : inv.irqs)
    if (irq.device) owner[irq.number] = *irq.device;
  std::map<std::string, std::map<unsigned, unsigned>> per_nic_core_use;
  std::size_t placed = 0;
  for (const Change& c : plan.changes) {
    if (c.knob.rfind("irq:", 0) != 0) continue;
    ++placed;
    unsigned irq = static_cast<unsigned>(std::stoul(c.knob.substr(4)));
    auto cpu = CpuSet::parse(c.desired);
    REQUIRE(cpu.ok());
    REQUIRE(cpu->size() == 1);  // one CPU per IRQ
    unsigned pu = cpu->cpus()[0];
    const Nic* nic = inv.find_nic(owner.at(irq));
    REQUIRE(nic);
    CAPTURE(c.knob);
    CAPTURE(c.desired);
    CHECK(!inv.host.isolcpus.contains(pu));
    CHECK(!inv.host.nohz_full.contains(pu));
    CpuSet allowed_on_node;
    const NumaNode* node = nic->numa_node ? inv.find_node(*nic->numa_node) : nullptr;
    if (node) allowed_on_node = node->cpus.minus(inv.host.isolcpus).minus(inv.host.nohz_full);
    CpuSet scope = allowed_on_node.empty()
                       ? inv.topology.all_pus.minus(inv.host.isolcpus).minus(inv.host.nohz_full)
                       : allowed_on_node;
    CHECK(scope.contains(pu));
    // A core gets a second queue IRQ of this NIC only once every core in scope has one.
    auto& use = per_nic_core_use[nic->name];
    if (use[cores.at(pu)] > 0) {
      for (unsigned other : scope.cpus()) {
        CAPTURE(other);
        CHECK(use[cores.at(other)] > 0);
      }
    }
    ++use[cores.at(pu)];
  }
  return placed;
}

/// Plans inv, checks placement, then re-plans the applied state: must be empty.
void check_machine(Inventory inv, const std::string& what) {
  CAPTURE(what);
  REQUIRE(!inv.topology.all_pus.empty());
  testing::add_queue_irqs(inv);
  inv.host.irqbalance_running = false;
  FakeCurrent cur;
  cur.values_["sysctl:net.core.somaxconn"] = "128";
  Profile p = numa_local_profile();
  auto plan = make_plan_with(p, inv, cur);
  REQUIRE(plan.ok());
  std::size_t placed = check_placement(inv, *plan);
  std::size_t physical =
      std::count_if(inv.nics.begin(), inv.nics.end(), [](const Nic& n) { return !n.is_virtual; });
  if (physical > 0) CHECK(placed > 0);

  Inventory applied = inv;
  FakeCurrent applied_cur = cur;
  testing::apply_plan(*plan, applied, applied_cur);
  auto again = make_plan_with(p, applied, applied_cur);
  REQUIRE(again.ok());
  CHECK(again->changes.empty());
  CHECK(again->unchanged == plan->changes.size() + plan->unchanged);
  // The same settings, named: every change of the first plan is unchanged in the second.
  std::vector<std::string> covered = plan->unchanged_knobs;
  for (const Change& c : plan->changes) covered.push_back(c.knob);
  std::sort(covered.begin(), covered.end());
  std::vector<std::string> named = again->unchanged_knobs;
  std::sort(named.begin(), named.end());
  CHECK(named == covered);

  // Isolate the first two cores of every node (or its first core when it has only
  // two): nothing may land there, the rest of the rules still hold.
  Inventory isolated = inv;
  auto cores = core_of(inv.topology);
  for (const NumaNode& node : isolated.topology.numa_nodes) {
    std::set<unsigned> node_cores;
    for (unsigned pu : node.cpus.cpus()) node_cores.insert(cores.at(pu));
    std::size_t take = std::min<std::size_t>(2, node_cores.size() / 2);
    for (unsigned pu : node.cpus.cpus())
      if (std::distance(node_cores.begin(), node_cores.find(cores.at(pu))) <
          static_cast<long>(take))
        isolated.host.isolcpus.add(pu);
  }
  CHECK(!isolated.host.isolcpus.empty());
  auto iso = make_plan_with(p, isolated, cur);
  REQUIRE(iso.ok());
  check_placement(isolated, *iso);
}

}  // namespace

TEST_CASE("planner fixtures: numa-local placement on every topology XML") {
  for (const std::string& xml : fixture_files("topologies", ".xml")) {
    Target target{Root::live(), xml};
    Inventory inv = probe_target(target);
    check_machine(inv, xml);
  }
}

TEST_CASE("planner fixtures: numa-local placement on every sysfs capture") {
  for (const std::string& tarball : fixture_files("sysfs", ".tar.bz2")) {
    bool r910 = tarball.find("40intel64-2g2n4c+pci") != std::string::npos;
    testing::ScopedFixture fixture(tarball, r910 ? std::string(TUNER_TEST_DATA) + "/irq/r910" : "");
    auto root = Root::open(fixture.root());
    REQUIRE(root.ok());
    Target target{*root, std::nullopt};
    Inventory inv = probe_target(target);
    if (r910) {
      // The overlay carries real multi-queue IRQs: they must be the ones placed.
      auto queued = std::count_if(inv.irqs.begin(), inv.irqs.end(), [](const Irq& i) {
        return i.device && i.kind == IrqKind::queue;
      });
      CHECK(queued > 0);
    }
    check_machine(inv, tarball);
  }
}

TEST_CASE("planner fixtures: spread reaches every NUMA node with a NIC's first IRQs") {
  // Taking cores in logical order used to fill node 0 before node 1 was reached, so a
  // NIC with fewer queues than node 0 has cores got "spread" over one node only.
  Profile p = numa_local_profile();
  p.irqs[0].policy = IrqPolicy::spread;
  std::size_t checked = 0;
  for (const std::string& xml : fixture_files("topologies", ".xml")) {
    CAPTURE(xml);
    Target target{Root::live(), xml};
    Inventory inv = probe_target(target);
    testing::add_queue_irqs(inv);
    inv.host.irqbalance_running = false;
    std::size_t nodes = 0;
    std::map<unsigned, unsigned> node_of;
    for (const NumaNode& n : inv.topology.numa_nodes) {
      nodes += !n.cpus.empty();
      for (unsigned pu : n.cpus.cpus()) node_of[pu] = n.os_index;
    }
    if (nodes < 2) continue;
    FakeCurrent cur;
    cur.values_["sysctl:net.core.somaxconn"] = "128";
    auto plan = make_plan_with(p, inv, cur);
    REQUIRE(plan.ok());
    for (const Nic& nic : inv.nics) {
      std::vector<unsigned> first;  // the nodes of its first IRQs, in queue order
      for (unsigned irq : nic.irqs)
        for (const Change& c : plan->changes)
          if (c.knob == "irq:" + std::to_string(irq) + ":affinity" && first.size() < nodes)
            first.push_back(node_of.at(CpuSet::parse(c.desired)->cpus()[0]));
      if (first.size() < nodes) continue;
      CAPTURE(nic.name);
      CHECK(std::set<unsigned>(first.begin(), first.end()).size() == nodes);
      ++checked;
      if (xml.find("24em64t-2n6c2t") != std::string::npos)  // node 0 even CPUs, node 1 odd
        CHECK(first == std::vector<unsigned>{0, 1});
    }
  }
  CHECK(checked > 0);
}
