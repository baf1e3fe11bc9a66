#include "probes/numa.h"

#include <algorithm>

#include <doctest/doctest.h>

#include "probes/topology.h"
#include "tests/support/fixtures.h"
#include "tests/support/hwloc_reference.h"
#include "tests/support/temp_dir.h"

namespace tuner {
namespace {

std::string read_test_file(const std::string& name) {
  return testing::read_test_data("topo/" + name);
}

bool has_error_with(const std::vector<ProbeError>& errors, const std::string& part) {
  return std::ranges::any_of(errors, [&](const ProbeError& e) {
    return e.probe == "numa" && e.message.find(part) != std::string::npos;
  });
}

}  // namespace

TEST_CASE("numa: parse_node_meminfo on real files") {
  // "Node 0 MemTotal:        7431964 kB" / "Node 0 MemFree:         3395108 kB"
  auto vm = parse_node_meminfo(read_test_file("vm-linux6.18-node0-meminfo"));
  REQUIRE_MESSAGE(vm.ok(), vm.error().message());
  CHECK(vm->total_bytes == 7431964ull * 1024);
  CHECK(vm->free_bytes == 3395108ull * 1024);

  // "Node 1 MemTotal:       16777216 kB" / "Node 1 MemFree:        16190248 kB"
  auto amd = parse_node_meminfo(read_test_file("64amd64-node1-meminfo"));
  REQUIRE_MESSAGE(amd.ok(), amd.error().message());
  CHECK(amd->total_bytes == 16777216ull * 1024);
  CHECK(amd->free_bytes == 16190248ull * 1024);
}

TEST_CASE("numa: parse_node_meminfo rejects what is not a node meminfo") {
  auto no_total = parse_node_meminfo("Node 0 MemFree:         3395108 kB\n");
  REQUIRE(!no_total.ok());
  CHECK(no_total.error().message().find("MemTotal") != std::string::npos);

  auto bad_number = parse_node_meminfo("Node 0 MemTotal:  67x6604 kB\nNode 0 MemFree: 1 kB\n");
  REQUIRE(!bad_number.ok());
  CHECK(bad_number.error().where == "line 1");

  auto not_node = parse_node_meminfo("Node 0 MemTotal: 1 kB\nMemTotal:  7431964 kB\n");
  REQUIRE(!not_node.ok());
  CHECK(not_node.error().where == "line 2");

  CHECK(!parse_node_meminfo("").ok());
}

TEST_CASE("numa: parse_node_distance") {
  auto row = parse_node_distance(read_test_file("64amd64-node1-distance"));
  REQUIRE_MESSAGE(row.ok(), row.error().message());
  CHECK(*row == std::vector<unsigned>{16, 10, 22, 16, 16, 22, 22, 16});
  CHECK(*parse_node_distance("10\n") == std::vector<unsigned>{10});
  CHECK(!parse_node_distance("").ok());
  CHECK(!parse_node_distance("10 2x\n").ok());
  CHECK(!parse_node_distance("10 256\n").ok());
}

TEST_CASE("numa: every captured root agrees with hwloc") {
  for (const std::string& tarball : testing::fixture_files("sysfs", ".tar.bz2")) {
    CAPTURE(tarball);
    std::string dir = testing::shared_fixture(tarball);
    auto root = Root::open(dir);
    REQUIRE(root.ok());
    auto topo = probe_topology(*root, std::nullopt);
    REQUIRE_MESSAGE(topo.ok(), topo.error().message());
    topo->distances.clear();  // what hwloc found: must come back from sysfs
    std::vector<ProbeError> errors;
    probe_numa(*root, *topo, errors);
    CHECK(errors.empty());
    for (const ProbeError& e : errors) MESSAGE(e.message);

    testing::HwlocReference ref = testing::hwloc_reference(std::nullopt, dir);
    REQUIRE(ref.loaded);
    for (const NumaNode& n : topo->numa_nodes) {
      CAPTURE(n.os_index);
      REQUIRE(n.memory_bytes.has_value());
      REQUIRE(n.free_bytes.has_value());
      CHECK(*n.free_bytes <= *n.memory_bytes);
      // hwloc takes MemTotal too, less any huge pages it reports apart.
      CHECK(*n.memory_bytes >= ref.local_memory[n.os_index]);
      CHECK(ref.local_memory[n.os_index] > 0);
    }
    const size_t count = topo->numa_nodes.size();
    REQUIRE(topo->distances.size() == count);
    if (ref.distances.empty()) continue;  // hwloc ignores a single node's matrix
    for (size_t i = 0; i < count; ++i)
      for (size_t j = 0; j < count; ++j) {
        unsigned from = topo->numa_nodes[i].os_index, to = topo->numa_nodes[j].os_index;
        CAPTURE(from);
        CAPTURE(to);
        CHECK(topo->distances[i][j] == ref.distances.at({from, to}));
      }
  }
}

TEST_CASE("numa: unreadable node files become errors, not numbers") {
  testing::TempDir tmp;
  const std::string node = tmp / "sys/devices/system/node";
  testing::write_file(node + "/online", "0-1\n");
  testing::write_file(node + "/node0/meminfo", read_test_file("vm-linux6.18-node0-meminfo"));
  testing::write_file(node + "/node0/distance", "10 21\n");
  testing::write_file(node + "/node1/meminfo", "Node 1 MemTotal:  garbage kB\n");
  auto root = Root::open(tmp.path);
  REQUIRE(root.ok());
  REQUIRE(!root->is_live());

  Topology topo;
  topo.numa_nodes.resize(2);
  topo.numa_nodes[0].os_index = 0;
  topo.numa_nodes[1].os_index = 1;
  std::vector<ProbeError> errors;
  probe_numa(*root, topo, errors);

  CHECK(topo.numa_nodes[0].memory_bytes == 7431964ull * 1024);
  CHECK(!topo.numa_nodes[1].memory_bytes.has_value());
  CHECK(!topo.numa_nodes[1].free_bytes.has_value());
  CHECK(topo.distances.empty());
  CHECK(errors.size() == 2);
  CHECK(has_error_with(errors, "sys/devices/system/node/node1/meminfo:line 1"));
  CHECK(has_error_with(errors, "node1/distance"));
}

TEST_CASE("numa: distance rows are mapped through the online node list") {
  // Nodes 0 and 2 online, 1 absent: row columns are nodes 0 and 2.
  testing::TempDir tmp;
  const std::string node = tmp / "sys/devices/system/node";
  testing::write_file(node + "/online", "0,2\n");
  testing::write_file(node + "/node0/meminfo", "Node 0 MemTotal: 4 kB\nNode 0 MemFree: 1 kB\n");
  testing::write_file(node + "/node2/meminfo", "Node 2 MemTotal: 8 kB\nNode 2 MemFree: 2 kB\n");
  testing::write_file(node + "/node0/distance", "10 32\n");
  testing::write_file(node + "/node2/distance", "31 10\n");
  auto root = Root::open(tmp.path);
  REQUIRE(root.ok());
  Topology topo;
  topo.numa_nodes.resize(2);
  topo.numa_nodes[0].os_index = 0;
  topo.numa_nodes[1].os_index = 2;
  std::vector<ProbeError> errors;
  probe_numa(*root, topo, errors);
  CHECK(errors.empty());
  CHECK(topo.numa_nodes[1].memory_bytes == 8192u);
  CHECK(topo.numa_nodes[1].free_bytes == 2048u);
  CHECK(topo.distances == std::vector<std::vector<unsigned>>{{10, 32}, {31, 10}});
}

TEST_CASE("numa: live machine through libnuma") {
  auto topo = probe_topology(Root::live(), std::nullopt);
  REQUIRE(topo.ok());
  std::vector<ProbeError> errors;
  probe_numa(Root::live(), *topo, errors);
  CHECK(errors.empty());
  for (const ProbeError& e : errors) MESSAGE(e.message);
  REQUIRE(topo->numa_nodes.size() >= 1);
  for (const NumaNode& n : topo->numa_nodes) {
    CHECK(n.memory_bytes.value_or(0) > 0);
    REQUIRE(n.free_bytes.has_value());
    CHECK(*n.free_bytes <= *n.memory_bytes);
  }
  REQUIRE(topo->distances.size() == topo->numa_nodes.size());
  for (size_t i = 0; i < topo->distances.size(); ++i) CHECK(topo->distances[i][i] == 10);
}

}  // namespace tuner
