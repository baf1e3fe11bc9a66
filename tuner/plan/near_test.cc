#include "tuner/plan/near.h"

#include <doctest/doctest.h>

#include "probes/topology.h"

namespace tuner {

namespace {

// The facts of the Supermicro X9DRG-HF fixture (32em64t-2n8c2t-pci-normalio.xml):
// two nodes, GPUs on both, eth0/eth1 (I350) on node 1.
Inventory supermicro() {
  Inventory inv;
  NumaNode n0, n1;
  n0.os_index = 0;
  n0.cpus = *CpuSet::parse("0-7,16-23");
  n1.os_index = 1;
  n1.cpus = *CpuSet::parse("8-15,24-31");
  inv.topology.numa_nodes = {n0, n1};
  PciDevice gpu_a{"0000:03:00.0", "gpu", 0x10de, 0x1094, 0x0302, 0, n0.cpus, {}, {}, {}, {}};
  PciDevice eth0{"0000:81:00.0", "nic",    0x8086,   0x1521, 0x0200, 1,
                 n1.cpus,        {"eth0"}, {"eth0"}, {},     {}};
  PciDevice gpu_b{"0000:84:00.0",     "gpu", 0x10de, 0x1094, 0x0302, 1, n1.cpus,
                  {"cuda0", "card0"}, {},    {},     {}};
  PciDevice odd{"0000:05:03.0", "other", 0x102b, 0x0532, 0x0300, std::nullopt, {}, {}, {}, {}, {}};
  inv.topology.pci = {gpu_a, eth0, gpu_b, odd};
  Nic nic;
  nic.name = "eth0";
  nic.pci = "0000:81:00.0";
  Nic veth;
  veth.name = "veth0";
  veth.is_virtual = true;
  inv.nics = {nic, veth};
  return inv;
}

}  // namespace

TEST_CASE("near: every kind of device name resolves to its node") {
  Inventory inv = supermicro();
  auto eth = resolve_near(inv, "eth0");
  REQUIRE(eth.ok());
  CHECK(eth->node == 1u);
  CHECK(eth->cpus.to_string() == "8-15,24-31");
  CHECK(eth->how == "eth0 is PCI 0000:81:00.0 on node 1");
  CHECK(resolve_near(inv, "gpu0")->node == 0u);
  CHECK(resolve_near(inv, "gpu1")->node == 1u);
  CHECK(resolve_near(inv, "cuda0")->node == 1u);
  CHECK(resolve_near(inv, "0000:03:00.0")->node == 0u);
  CHECK(resolve_near(inv, "84:00.0")->node == 1u);  // short PCI address, any case
  CHECK(resolve_near(inv, "0000:81:00.0")->cpus.to_string() == "8-15,24-31");
  auto node = resolve_near(inv, "node:1");
  REQUIRE(node.ok());
  CHECK(node->cpus.to_string() == "8-15,24-31");
}

TEST_CASE("near: unknown devices list what is known; no locality is not a guess") {
  Inventory inv = supermicro();
  for (const char* bad : {"eth7", "gpu2", "node:2", "node:x", "0000:99:00.0", "gpu", ""}) {
    auto r = resolve_near(inv, bad);
    REQUIRE_MESSAGE(!r.ok(), bad);
    CHECK(r.error().what.find("known: 0000:03:00.0, 0000:05:03.0") != std::string::npos);
    CHECK(r.error().what.find("eth0") != std::string::npos);
    CHECK(r.error().what.find("gpu1") != std::string::npos);
  }
  auto veth = resolve_near(inv, "veth0");
  REQUIRE(veth.ok());
  CHECK(!veth->node);
  CHECK(veth->how.find("virtual") != std::string::npos);
  CHECK(!resolve_near(inv, "0000:05:03.0")->node);
  // With a single node, every device is on it.
  inv.topology.numa_nodes.pop_back();
  auto one = resolve_near(inv, "veth0");
  REQUIRE(one.ok());
  CHECK(one->node == 0u);
  auto gone = resolve_near(inv, "eth0");  // says node 1, which the topology lacks
  REQUIRE(!gone.ok());
  CHECK(gone.error().what.find("does not have") != std::string::npos);
}

TEST_CASE("near: PCI addresses as lspci, sysfs and nvidia-smi write them") {
  CHECK(normalize_pci("3B:00.0") == "0000:3b:00.0");
  CHECK(normalize_pci("0000:3b:00.0") == "0000:3b:00.0");
  CHECK(normalize_pci("00000000:3B:00.0") == "0000:3b:00.0");  // nvidia-smi's pci.bus_id
  CHECK(normalize_pci("10000:01:00.1") == "10000:01:00.1");    // a VMD domain
  for (const char* bad : {"eth0", "3b:00", "3b:00.8", "3b:20.0", "000000000:3b:00.0",
                          "0000:3b:00.0:1", "+3:00.0", "g0:00.0", "", ":."})
    CHECK_MESSAGE(!normalize_pci(bad), bad);
  Inventory inv = supermicro();
  CHECK(resolve_near(inv, "00000000:84:00.0")->node == 1u);
}

TEST_CASE("near: nodes from /sys when the topology has none") {
  Inventory inv;
  REQUIRE(fill_nodes_from_sysfs(Root::live(), inv));
  CHECK(!inv.topology.numa_nodes.empty());
  CHECK(!inv.topology.numa_nodes[0].cpus.empty());
  CHECK(resolve_near(inv, "node:" + std::to_string(inv.topology.numa_nodes[0].os_index)).ok());
  CHECK(!fill_nodes_from_sysfs(Root::live(), inv));  // only ever fills an empty list
}

TEST_CASE("near: on the real Supermicro topology export") {
  auto topo = probe_topology(
      Root::live(), std::string(TUNER_FIXTURES) + "/topologies/32em64t-2n8c2t-pci-normalio.xml");
  if (!topo.ok()) {
    MESSAGE("skipped: topology probe unavailable: " << topo.error().message());
    return;
  }
  Inventory inv;
  inv.topology = *topo;
  CHECK(resolve_near(inv, "eth0")->node == 1u);
  CHECK(resolve_near(inv, "gpu0")->node == 0u);
  CHECK(resolve_near(inv, "cuda0")->node == 1u);
  CHECK(resolve_near(inv, "node:0")->cpus.to_string() == "0-7,16-23");
}

}  // namespace tuner
