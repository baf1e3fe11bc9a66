#include "tuner/plan/xps_map.h"

#include <doctest/doctest.h>

#include "tuner/plan/plan_test_util.h"

using namespace tuner;

namespace {

CpuSet cpus(std::vector<unsigned> list) { return CpuSet(std::move(list)); }

CpuSet united(const std::vector<CpuSet>& masks) {
  CpuSet out;
  for (const CpuSet& m : masks) out = out.unite(m);
  return out;
}

}  // namespace

TEST_CASE("xps map: IRQ CPUs with their siblings, the other socket spread one core each") {
  // Two sockets of 4 SMT cores: core c is CPUs c and c + 8; node 0 has cores 0-3.
  Inventory inv = testing::smt_machine(2, 4);
  auto masks = xps_masks(inv.topology, {cpus({0}), cpus({1}), cpus({2}), cpus({3})});
  CHECK(masks == std::vector<CpuSet>{cpus({0, 4, 8, 12}), cpus({1, 5, 9, 13}), cpus({2, 6, 10, 14}),
                                     cpus({3, 7, 11, 15})});
  CHECK(united(masks) == inv.topology.all_pus);
}

TEST_CASE("xps map: more cores than queues: the local ones first, then evenly") {
  Inventory inv = testing::smt_machine(2, 4);
  auto masks = xps_masks(inv.topology, {cpus({0}), cpus({1})});
  // Cores 2 and 3 of the same socket, one each; then the other socket's four, two each.
  CHECK(masks[0] == cpus({0, 2, 4, 6, 8, 10, 12, 14}));
  CHECK(masks[1] == cpus({1, 3, 5, 7, 9, 11, 13, 15}));
  // Socket 1's cores are nearer to a queue there: a NIC placed over both sockets.
  auto spread = xps_masks(inv.topology, {cpus({0}), cpus({4})});
  CHECK(spread[0] == cpus({0, 1, 2, 3, 8, 9, 10, 11}));
  CHECK(spread[1] == cpus({4, 5, 6, 7, 12, 13, 14, 15}));
}

TEST_CASE("xps map: a sibling that is another queue's IRQ CPU stays that queue's") {
  // Six queues on four cores: queues 4 and 5 on the siblings of cores 0 and 1.
  Inventory inv = testing::smt_machine(1, 4);
  auto masks =
      xps_masks(inv.topology, {cpus({0}), cpus({1}), cpus({2}), cpus({3}), cpus({4}), cpus({5})});
  CHECK(masks == std::vector<CpuSet>{cpus({0}), cpus({1}), cpus({2, 6}), cpus({3, 7}), cpus({4}),
                                     cpus({5})});
  // Two queues on one CPU (more queues than CPUs): both send from it and its sibling.
  auto doubled = xps_masks(inv.topology, {cpus({0}), cpus({0})});
  CHECK(cpus({0, 4}).is_subset_of(doubled[0]));
  CHECK(cpus({0, 4}).is_subset_of(doubled[1]));
  CHECK(united(doubled) == inv.topology.all_pus);
}

TEST_CASE("xps map: same package first on a socket split into NUMA nodes") {
  // NPS2: nodes 0-1 are socket 0 (SLIT 12 between them), 2-3 socket 1 (32 across).
  Inventory inv = testing::smt_machine(4, 2, 2);
  // Core c: CPUs c and c + 8; node n has cores 2n, 2n + 1. Queues on nodes 0 and 2.
  auto masks = xps_masks(inv.topology, {cpus({0}), cpus({4})});
  CHECK(masks[0] == cpus({0, 1, 2, 3, 8, 9, 10, 11}));
  CHECK(masks[1] == cpus({4, 5, 6, 7, 12, 13, 14, 15}));
}

TEST_CASE("xps map: nothing known, nothing mapped") {
  Inventory inv = testing::smt_machine(1, 2);
  CHECK(xps_masks(inv.topology, {CpuSet{}, CpuSet{}}) == std::vector<CpuSet>{CpuSet{}, CpuSet{}});
  // A queue with no IRQ known gets nothing; the others cover every CPU.
  auto masks = xps_masks(inv.topology, {cpus({1}), CpuSet{}});
  CHECK(masks == std::vector<CpuSet>{inv.topology.all_pus, CpuSet{}});
}
