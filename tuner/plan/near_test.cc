#include "tuner/plan/near.h"

#include <doctest/doctest.h>

#include "probes/topology.h"
#include "tests/support/temp_dir.h"

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

namespace tuner {

// /proc/driver/nvidia/gpus/PCI/information as the 550 driver writes it (tabs and all).
std::string nvidia_information(const std::string& pci, const std::string& uuid, int minor) {
  return "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 486\nGPU UUID: \t " + uuid +
         "\nVideo BIOS: \t 96.00.74.00.01\nBus Type: \t PCIe\nDMA Size: \t 52 bits\n"
         "DMA Mask: \t 0xfffffffffffff\nBus Location: \t " +
         pci + "\nDevice Minor: \t " + std::to_string(minor) + "\nGPU Excluded:\t No\n";
}

TEST_CASE("near: gpuN under CUDA_VISIBLE_DEVICES is the N-th GPU the process sees") {
  Inventory inv = supermicro();  // gpu0 = 0000:03:00.0 (node 0), gpu1 = 0000:84:00.0 (node 1)
  testing::TempDir dir{"tuner-cuda-visible"};
  dir.write("proc/driver/nvidia/gpus/0000:03:00.0/information",
            nvidia_information("0000:03:00.0", "GPU-8e2f1c3a-5b7d-4c2e-9a1f-0123456789ab", 0));
  dir.write("proc/driver/nvidia/gpus/0000:84:00.0/information",
            nvidia_information("0000:84:00.0", "GPU-8e2f77aa-0000-4c2e-9a1f-0123456789ab", 1));
  Root root = Root::open(dir.path).value();
  // A rank with LOCAL_RANK 0 under "1,0" runs near the machine's second GPU.
  CHECK(cuda_visible_gpu(inv, root, "1,0", 0).value() == "0000:84:00.0");
  CHECK(cuda_visible_gpu(inv, root, "1,0", 1).value() == "0000:03:00.0");
  CHECK(cuda_visible_gpu(inv, root, " 1 ", 0).value() == "0000:84:00.0");
  CHECK(resolve_near(inv, cuda_visible_gpu(inv, root, "1", 0).value())->node == 1u);
  // UUIDs, whole or a unique prefix, through the driver's own table.
  CHECK(cuda_visible_gpu(inv, root, "GPU-8e2f77aa-0000-4c2e-9a1f-0123456789ab", 0).value() ==
        "0000:84:00.0");
  CHECK(cuda_visible_gpu(inv, root, "GPU-8e2f1", 0).value() == "0000:03:00.0");
  auto error = [&](const char* visible, unsigned n) {
    auto r = cuda_visible_gpu(inv, root, visible, n);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().where == "CUDA_VISIBLE_DEVICES");
    return r.error().what;
  };
  CHECK(error("GPU-8e2f", 0).find("the start of 2 GPUs' UUIDs") != std::string::npos);
  CHECK(error("GPU-ffff", 0).find("no GPU has UUID") != std::string::npos);
  CHECK(error("1", 1).find("makes 1 GPU visible") != std::string::npos);
  CHECK(error("5", 0).find("names GPU 5, and this machine has 2 GPUs") != std::string::npos);
  CHECK(error("", 0).find("hides every GPU") != std::string::npos);
  CHECK(error("-1", 0).find("hides every GPU") != std::string::npos);
  CHECK(error("x1", 0).find("neither a GPU index nor a GPU-UUID") != std::string::npos);
  CHECK(error("MIG-4f0e8a3c-aaaa", 0).find("MIG instance") != std::string::npos);
}

}  // namespace tuner
