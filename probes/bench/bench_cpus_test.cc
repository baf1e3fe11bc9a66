#include "probes/bench/bench_cpus.h"

#include <doctest/doctest.h>

#include <set>
#include <string>

#include "probes/topology.h"
#include "tests/support/topology_fixture.h"

namespace tuner::bench {
namespace {

Topology load(const std::string& name) { return testing::load_topology_fixture(name); }

const NumaNode& node(const Topology& t, unsigned os_index) {
  for (const NumaNode& n : t.numa_nodes)
    if (n.os_index == os_index) return n;
  FAIL("no node " << os_index);
  return t.numa_nodes.front();
}

// The core (logical index) each CPU belongs to; a selection must not use one twice.
std::set<unsigned> cores_of(const Topology& t, const CpuSet& cpus) {
  std::set<unsigned> out;
  for (const Core& c : t.core_list)
    if (!c.pus.intersect(cpus).empty()) out.insert(c.logical_index);
  return out;
}

}  // namespace

TEST_CASE("bench cpus: one CPU per core on each node of a 2-node SMT machine") {
  // 2 nodes x 6 cores x 2 threads, CPUs interleaved between the nodes (0,2,4.. on node 0).
  Topology t = load("24em64t-2n6c2t-pci.xml");
  auto sel = cpus_per_node(t, t.all_pus);
  REQUIRE(sel.size() == 2);
  for (const NodeCpus& n : sel) {
    CAPTURE(n.node);
    CHECK(n.cpus.size() == 6);
    CHECK(n.cpus.is_subset_of(node(t, n.node).cpus));
    CHECK(cores_of(t, n.cpus).size() == 6);  // no SMT sibling pairs
  }
  CHECK(sel[0].node == 0);
  CHECK(sel[1].node == 1);
}

TEST_CASE("bench cpus: 24 nodes of 8 cores, capped and restricted") {
  Topology t = load("192em64t-24n8c2t.xml");
  auto all = cpus_per_node(t, t.all_pus);
  REQUIRE(all.size() == 24);
  for (const NodeCpus& n : all) CHECK(n.cpus.size() == 8);
  CHECK(all[5].cpus.to_string() == "40-47");  // primary threads, not 232-239

  auto capped = cpus_per_node(t, t.all_pus, 3);
  REQUIRE(capped.size() == 24);
  CHECK(capped[0].cpus.to_string() == "0-2");

  // A process confined to node 3's SMT siblings still gets one CPU per core there.
  auto confined = cpus_per_node(t, *CpuSet::parse("216-223"));
  REQUIRE(confined.size() == 1);
  CHECK(confined[0].node == 3);
  CHECK(confined[0].cpus.to_string() == "216-223");
}

TEST_CASE("bench cpus: a topology without cores uses every PU of the node") {
  Topology t = load("8intel64-4n2t-memattrs.xml");
  REQUIRE(t.core_list.empty());
  auto sel = cpus_per_node(t, t.all_pus);
  REQUIRE(sel.size() == 4);
  CHECK(sel[0].cpus.to_string() == "0-1");
  CHECK(sel[3].cpus.to_string() == "6-7");
}

TEST_CASE("bench cpus: KNL memory-only nodes run on the CPUs they are attached to") {
  Topology t = load("64intel64-fakeKNL-SNC4-hybrid.xml");
  auto sel = cpus_per_node(t, t.all_pus);
  REQUIRE(sel.size() == 8);           // 4 DDR + 4 MCDRAM nodes
  CHECK(sel[4].cpus == sel[1].cpus);  // MCDRAM node 4 sits with DDR node 1
  CHECK(sel[0].cpus.size() == 4);     // 4 cores of 4 threads per cluster

  CpuSet lat = last_cpu_per_node(t, t.all_pus);
  CHECK(lat.to_string() == "51,55,59,63");  // one per cluster, not two
}

TEST_CASE("bench cpus: latency CPUs are the last allowed CPU of each node") {
  Topology t = load("24em64t-2n6c2t-pci.xml");
  CHECK(last_cpu_per_node(t, t.all_pus).to_string() == "22-23");
  CHECK(last_cpu_per_node(t, *CpuSet::parse("0-9")).to_string() == "8-9");
  CHECK(last_cpu_per_node(t, *CpuSet::parse("0,2")).to_string() == "2");
  Topology amd = load("16amd64-4distances.xml");  // nodes in scrambled CPU order
  CHECK(last_cpu_per_node(amd, amd.all_pus).to_string() == "1,3,5,7,9,11,13,15");
  CHECK(last_cpu_per_node(Topology{}, *CpuSet::parse("0-3")).to_string() == "3");
}

TEST_CASE("bench cpus: last-level cache is the L3s a node's CPUs see, or L2 without L3") {
  Topology t = load("16intel64-manyVFs.xml");
  CHECK(last_level_cache_bytes(t, node(t, 0).cpus) == 20ull << 20);
  CHECK(last_level_cache_bytes(t, t.all_pus) == 40ull << 20);
  Topology amd = load("16amd64-4distances.xml");  // L2 only, 1 MiB per core
  CHECK(last_level_cache_bytes(amd, node(amd, 0).cpus) == 2ull << 20);
  Topology none = load("8intel64-4n2t-memattrs.xml");
  CHECK(last_level_cache_bytes(none, none.all_pus) == 0);
}

}  // namespace tuner::bench
