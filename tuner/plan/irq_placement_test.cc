#include "tuner/plan/irq_placement.h"

#include <doctest/doctest.h>

#include "tuner/plan/plan_test_util.h"

using namespace tuner;

TEST_CASE("irq_placement: a core each before any SMT sibling") {
  Inventory inv = testing::smt_machine(2, 4);  // node 0: cores 0-3, PUs 0-3 + 8-11
  const CpuSet& node0 = inv.topology.numa_nodes[0].cpus;
  CHECK(node0.to_string() == "0-3,8-11");
  std::vector<unsigned> order = irq_cpu_order(inv.topology.core_list, node0);
  CHECK(order == std::vector<unsigned>{0, 1, 2, 3, 8, 9, 10, 11});
}

TEST_CASE("irq_placement: isolated and nohz_full CPUs are never used") {
  Inventory inv = testing::smt_machine(1, 4);  // PUs 0-3 primary, 4-7 siblings
  inv.host.isolcpus = *CpuSet::parse("1,5");
  inv.host.nohz_full = *CpuSet::parse("2");
  CpuSet allowed = irq_allowed_cpus(inv.topology.all_pus, inv.host);
  CHECK(allowed.to_string() == "0,3-4,6-7");
  std::vector<unsigned> order = irq_cpu_order(inv.topology.core_list, allowed);
  // Core 2 keeps its sibling 6 as its first offer; core 1 is gone entirely.
  CHECK(order == std::vector<unsigned>{0, 6, 3, 4, 7});
}

TEST_CASE("irq_placement: round robin when queues outnumber CPUs") {
  std::vector<unsigned> order = {0, 1, 2};
  CHECK(assign_round_robin(7, order) == std::vector<unsigned>{0, 1, 2, 0, 1, 2, 0});
  CHECK(assign_round_robin(2, order) == std::vector<unsigned>{0, 1});
  CHECK(assign_round_robin(3, {}).empty());
}

TEST_CASE("irq_placement: no core list means every PU is its own core") {
  CpuSet allowed = *CpuSet::parse("4-6");
  CHECK(irq_cpu_order({}, allowed) == std::vector<unsigned>{4, 5, 6});
}

TEST_CASE("irq_placement: cores are taken in logical-index order, not PU order") {
  // hwloc logical order can differ from OS numbering (AMD, some Intel BIOSes).
  std::vector<Core> cores(2);
  cores[0].logical_index = 0;
  cores[0].pus = CpuSet({6, 7});
  cores[1].logical_index = 1;
  cores[1].pus = CpuSet({0, 1});
  CHECK(irq_cpu_order(cores, *CpuSet::parse("0,1,6,7")) == std::vector<unsigned>{6, 0, 7, 1});
  // PUs no core lists are cores of their own, after the listed ones.
  CHECK(irq_cpu_order(cores, *CpuSet::parse("0-7")) ==
        std::vector<unsigned>{6, 0, 2, 3, 4, 5, 7, 1});
}
