#include "probes/topology.h"

#include <doctest/doctest.h>
#include <sched.h>
#include <unistd.h>

#include <cstdlib>

#include "probes/topology_pci.h"
#include "tests/support/fixtures.h"
#include "tests/support/hwloc_reference.h"
#include "tests/support/temp_dir.h"

namespace tuner {
namespace {

using testing::HwlocReference;

// What must hold for any topology, whatever the machine.
void check_consistent(const Topology& topo) {
  CHECK(topo.pus == topo.all_pus.size());
  CHECK(!topo.numa_nodes.empty());
  for (size_t i = 1; i < topo.numa_nodes.size(); ++i)
    CHECK(topo.numa_nodes[i - 1].os_index < topo.numa_nodes[i].os_index);
  for (const NumaNode& n : topo.numa_nodes) CHECK(n.cpus.is_subset_of(topo.all_pus));
  CpuSet in_cores;
  for (const Core& c : topo.core_list) {
    CHECK(!c.pus.empty());
    CHECK(c.pus.intersect(in_cores).empty());  // a PU belongs to one core
    in_cores = in_cores.unite(c.pus);
    CHECK(c.package < std::max(topo.packages, 1u));
    if (c.numa_node) {
      const NumaNode* node = nullptr;
      for (const NumaNode& n : topo.numa_nodes)
        if (n.os_index == *c.numa_node) node = &n;
      REQUIRE(node != nullptr);
      CHECK(c.pus.is_subset_of(node->cpus));
    }
  }
  CHECK(topo.core_list.size() == topo.cores);
  if (topo.cores > 0) CHECK(in_cores == topo.all_pus);
  for (const Cache& c : topo.caches) {
    CHECK(c.level >= 1);
    CHECK(c.size_bytes > 0);
    CHECK(c.cpus.is_subset_of(topo.all_pus));
  }
  if (!topo.distances.empty()) {
    REQUIRE(topo.distances.size() == topo.numa_nodes.size());
    for (size_t i = 0; i < topo.distances.size(); ++i) {
      REQUIRE(topo.distances[i].size() == topo.numa_nodes.size());
      for (size_t j = 0; j < topo.distances.size(); ++j)
        if (i != j) CHECK(topo.distances[i][i] < topo.distances[i][j]);
    }
  }
  for (const PciDevice& d : topo.pci) {
    CHECK(d.address.size() == 12);
    CHECK(d.local_cpus.is_subset_of(topo.all_pus));
    for (const std::string& n : d.netdevs)
      CHECK(std::find(d.os_devices.begin(), d.os_devices.end(), n) != d.os_devices.end());
  }
}

// NUMA node count, PU count and every netdev's node against hwloc's own reading.
void check_against(const Topology& topo, const HwlocReference& ref) {
  REQUIRE(ref.loaded);
  CHECK(topo.numa_nodes.size() == ref.numa_nodes);
  CHECK(topo.pus == ref.pus);
  std::map<std::string, std::optional<int>> probed;
  for (const PciDevice& d : topo.pci)
    for (const std::string& n : d.netdevs) probed[n] = d.numa_node;
  CHECK(probed.size() == ref.netdev_nodes.size());
  for (const auto& entry : ref.netdev_nodes) {
    // Named copies: clang 14 cannot capture structured bindings (CAPTURE is a lambda).
    const std::string& name = entry.first;
    const auto& nodes = entry.second;
    CAPTURE(name);
    REQUIRE(probed.count(name) == 1);
    const std::optional<int>& node = probed[name];
    if (nodes.empty()) {
      CHECK(!node.has_value());
    } else if (nodes.size() == 1) {
      REQUIRE(node.has_value());
      CHECK(*node == static_cast<int>(nodes[0]));
    } else {  // several nodes equally near: any of them
      REQUIRE(node.has_value());
      CHECK(std::find(nodes.begin(), nodes.end(), static_cast<unsigned>(*node)) != nodes.end());
    }
  }
}

}  // namespace

TEST_CASE("topology: every XML fixture matches hwloc") {
  auto files = testing::fixture_files("topologies", ".xml");
  REQUIRE(files.size() >= 10);
  for (const std::string& xml : files) {
    CAPTURE(xml);
    auto topo = probe_topology(Root::live(), xml);
    REQUIRE_MESSAGE(topo.ok(), topo.error().message());
    CHECK(topo->source == "xml:" + xml);
    check_consistent(*topo);
    check_against(*topo, testing::hwloc_reference(xml, std::nullopt));
  }
}

TEST_CASE("topology: every captured sysfs root matches hwloc") {
  auto tarballs = testing::fixture_files("sysfs", ".tar.bz2");
  REQUIRE(tarballs.size() >= 5);
  for (const std::string& tarball : tarballs) {
    CAPTURE(tarball);
    std::string dir = testing::shared_fixture(tarball);
    auto root = Root::open(dir);
    REQUIRE(root.ok());
    auto topo = probe_topology(*root, std::nullopt);
    REQUIRE_MESSAGE(topo.ok(), topo.error().message());
    CHECK(topo->source == "root:" + dir);
    check_consistent(*topo);
    check_against(*topo, testing::hwloc_reference(std::nullopt, dir));
  }
}

TEST_CASE("topology: live machine") {
  auto topo = probe_topology(Root::live(), std::nullopt);
  REQUIRE_MESSAGE(topo.ok(), topo.error().message());
  CHECK(topo->source == "live");
  const auto online = static_cast<unsigned>(::sysconf(_SC_NPROCESSORS_ONLN));
  cpu_set_t mask;
  CPU_ZERO(&mask);
  REQUIRE(::sched_getaffinity(0, sizeof mask, &mask) == 0);
  if (static_cast<unsigned>(CPU_COUNT(&mask)) == online) {
    CHECK(topo->pus == online);
  } else {  // a restricted cpuset (container): hwloc keeps only the allowed PUs
    CHECK(topo->pus <= online);
    CHECK(topo->pus >= static_cast<unsigned>(CPU_COUNT(&mask)));
  }
  CHECK(topo->numa_nodes.size() >= 1);
  for (const NumaNode& n : topo->numa_nodes) CHECK(n.memory_bytes.value_or(0) > 0);
  CHECK(topo->cores >= 1);
  CHECK(topo->packages >= 1);
  check_consistent(*topo);
  check_against(*topo, testing::hwloc_reference(std::nullopt, std::nullopt));
}

TEST_CASE("topology: unreadable inputs give a clean error") {
  SUBCASE("missing XML file") {
    auto topo = probe_topology(Root::live(), std::string("/nonexistent/topo.xml"));
    REQUIRE(!topo.ok());
    CHECK(topo.error().err == ENOENT);
    CHECK(topo.error().message().find("/nonexistent/topo.xml") != std::string::npos);
  }
  SUBCASE("XML file that is not a topology") {
    testing::TempDir tmp;
    std::string path = tmp.write("bad.xml", "<topology><object type=\"Bogus\"");
    auto topo = probe_topology(Root::live(), path);
    REQUIRE(!topo.ok());
    CHECK(topo.error().message().find(path) != std::string::npos);
  }
  SUBCASE("root without sys/") {
    testing::TempDir tmp;
    auto root = Root::open(tmp.path);
    REQUIRE(root.ok());
    auto topo = probe_topology(*root, std::nullopt);
    REQUIRE(!topo.ok());
    CHECK(topo.error().err == ENOENT);
    CHECK(topo.error().message().find(tmp.path) != std::string::npos);
  }
}

TEST_CASE("topology: hwloc environment does not leak between probes") {
  auto live = probe_topology(Root::live(), std::nullopt);
  REQUIRE(live.ok());
  auto tarballs = testing::fixture_files("sysfs", ".tar.bz2");
  REQUIRE(!tarballs.empty());
  std::string dir = testing::shared_fixture(tarballs.back());
  auto root = Root::open(dir);
  REQUIRE(root.ok());
  auto captured = probe_topology(*root, std::nullopt);
  REQUIRE(captured.ok());
  CHECK(::getenv("HWLOC_FSROOT") == nullptr);
  CHECK(::getenv("HWLOC_THISSYSTEM") == nullptr);

  auto again = probe_topology(Root::live(), std::nullopt);
  REQUIRE(again.ok());
  CHECK(again->source == "live");
  CHECK(again->pus == live->pus);
  CHECK(again->all_pus == live->all_pus);
  CHECK(again->numa_nodes.size() == live->numa_nodes.size());

  // A redirection left in the caller's environment neither changes a live probe nor
  // gets lost.
  std::string xml = testing::fixture_files("topologies", ".xml").front();
  ::setenv("HWLOC_XMLFILE", xml.c_str(), 1);
  auto redirected = probe_topology(Root::live(), std::nullopt);
  const char* kept = ::getenv("HWLOC_XMLFILE");
  CHECK((kept && std::string(kept) == xml));
  ::unsetenv("HWLOC_XMLFILE");
  REQUIRE(redirected.ok());
  CHECK(redirected->all_pus == live->all_pus);
}

TEST_CASE("topology: PCI kind from class and OS devices") {
  CHECK(pci_kind(0x0200, 0x8086, {}) == "nic");
  CHECK(pci_kind(0x0280, 0x8086, {.network = true, .openfabrics = true}) == "nic");
  CHECK(pci_kind(0x0207, 0x8086, {.network = true, .openfabrics = true}) == "infiniband");
  CHECK(pci_kind(0x0c06, 0x8086, {.network = true}) == "infiniband");
  CHECK(pci_kind(0x0b40, 0x8086, {.openfabrics = true}) == "infiniband");
  CHECK(pci_kind(0x0302, 0x8086, {}) == "gpu");
  // Co-processors are not GPUs (NEC Vector Engine, Xeon Phi), unless CUDA/OpenCL/ROCm
  // names them a compute device.
  CHECK(pci_kind(0x0b40, 0x1bcf, {.coproc = true}) == "coprocessor");
  CHECK(pci_kind(0x0b40, 0x8086, {}) == "coprocessor");
  CHECK(pci_kind(0x0380, 0x1bcf, {.coproc = true}) == "gpu");  // a display class still is
  CHECK(pci_kind(0x0b40, 0x10de, {.gpu = true, .compute = true}) == "gpu");
  CHECK(pci_kind(0x0108, 0x8086, {}) == "nvme");
  // BMC VGA chips are displays, not GPUs; NVIDIA VGA-class cards and compute devices are.
  CHECK(pci_kind(0x0300, 0x102b, {.gpu = true}) == "display");
  CHECK(pci_kind(0x0300, 0x1002, {}) == "display");
  CHECK(pci_kind(0x0300, 0x10de, {}) == "gpu");
  CHECK(pci_kind(0x0300, 0x1002, {.gpu = true, .compute = true}) == "gpu");
  CHECK(pci_kind(0x0106, 0x8086, {}) == "other");
  CHECK(pci_kind(0x0000, 0x8086, {.network = true}) == "nic");
}

}  // namespace tuner

TEST_CASE("topology: BMC display chips are not GPUs, DGX-2 GPUs are") {
  const std::string dir = std::string(TUNER_FIXTURES) + "/topologies/";
  auto sgi = tuner::probe_topology(tuner::Root::live(), dir + "192em64t-24n8c2t.xml");
  REQUIRE(sgi.ok());
  int gpus = 0, displays = 0;
  for (const tuner::PciDevice& d : sgi->pci) {
    gpus += d.kind == "gpu";
    displays += d.kind == "display";
  }
  CHECK(gpus == 0);
  CHECK(displays >= 1);  // the Matrox G200 of its BMC
  auto dgx = tuner::probe_topology(tuner::Root::live(), dir + "nvidiaDGX2.xml");
  REQUIRE(dgx.ok());
  gpus = 0;
  for (const tuner::PciDevice& d : dgx->pci) gpus += d.kind == "gpu";
  CHECK(gpus == 16);
}

TEST_CASE("topology: NEC Vector Engines (PCI class 0x0b40) are co-processors, not GPUs") {
  // A real capture of a 2-socket host with 8 Vector Engines: "dl-training" matched it and
  // bound a service near "gpu0" while it has no GPU at all.
  auto root = tuner::Root::open(tuner::testing::shared_fixture("32intel64-2p8co2t+8ve.tar.bz2"));
  REQUIRE(root.ok());
  auto topo = tuner::probe_topology(*root, std::nullopt);
  REQUIRE(topo.ok());
  int gpus = 0, coprocessors = 0;
  for (const tuner::PciDevice& d : topo->pci) {
    CAPTURE(d.address);
    gpus += d.kind == "gpu";
    if (d.kind == "coprocessor") {
      ++coprocessors;
      CHECK(d.class_id == 0x0b40);
    }
  }
  CHECK(gpus == 0);
  CHECK(coprocessors == 8);
}
