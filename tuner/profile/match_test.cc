// Matching profiles against machines, and automatic selection over the shipped set.
#include <algorithm>

#include <doctest/doctest.h>

#include "tuner/profile/match.h"
#include "tuner/profile/parse.h"
#include "tuner/profile/profile.h"

using namespace tuner;

namespace {

const std::vector<std::string> kShipped = {TUNER_SOURCE_PROFILES};

Inventory machine(unsigned numa_nodes, unsigned gpus) {
  Inventory inv;
  for (unsigned i = 0; i < numa_nodes; ++i)
    inv.topology.numa_nodes.push_back(NumaNode{i, {}, {}, {}});
  for (unsigned i = 0; i < gpus; ++i) {
    PciDevice d;
    d.address = "0000:1" + std::to_string(i) + ":00.0";
    d.kind = "gpu";
    d.vendor_id = 0x10de;
    d.class_id = 0x0302;
    inv.topology.pci.push_back(d);
  }
  inv.host.cpu_vendor = "GenuineIntel";
  inv.host.virtualized = false;
  Nic nic;
  nic.name = "enp59s0f0";
  nic.driver = "mlx5_core";
  inv.nics.push_back(nic);
  return inv;
}

Profile with_match(const std::string& match_toml) {
  auto f = parse_profile_file("[match]\n" + match_toml, "/t/m.toml");
  REQUIRE_MESSAGE(f.ok(), f.error().message());
  return f->profile;
}

}  // namespace

TEST_CASE("profile match: each condition, and why it does not hold") {
  Inventory two = machine(2, 4);
  std::string why;
  CHECK(profile_matches(with_match("numa_nodes = \">=2\""), two, &why));
  CHECK(why.empty());
  CHECK(profile_matches(with_match("numa_nodes = 2"), two, &why));
  CHECK_FALSE(profile_matches(with_match("numa_nodes = \"<=1\""), two, &why));
  CHECK(why == "numa_nodes <=1: this machine has 2 NUMA nodes");
  CHECK_FALSE(profile_matches(with_match("numa_nodes = 4"), machine(1, 0), &why));
  CHECK(why == "numa_nodes 4: this machine has 1 NUMA node");
  CHECK_FALSE(profile_matches(with_match("numa_nodes = 1"), machine(0, 0), &why));
  CHECK(why.find("unknown") != std::string::npos);

  CHECK(profile_matches(with_match("cpu_vendor = \"genuineintel\""), two, &why));
  CHECK_FALSE(profile_matches(with_match("cpu_vendor = \"AuthenticAMD\""), two, &why));
  CHECK(why == "cpu_vendor AuthenticAMD: the CPU is GenuineIntel");

  CHECK(profile_matches(with_match("nic_driver = \"mlx5*\""), two, &why));
  CHECK_FALSE(profile_matches(with_match("nic_driver = \"ice\""), two, &why));
  CHECK(why == "nic_driver ice: no NIC uses such a driver (drivers here: mlx5_core)");

  CHECK(profile_matches(with_match("gpu = true"), two, &why));
  CHECK_FALSE(profile_matches(with_match("gpu = false"), two, &why));
  CHECK(why == "gpu = false: 4 GPUs found");
  CHECK_FALSE(profile_matches(with_match("gpu = true"), machine(2, 0), &why));
  CHECK(why == "gpu = true: no GPU found");
  // A BMC's VGA controller (Matrox G200eR2, as in the SGI capture) is not a GPU node:
  // the topology probe calls it a "display" (see pci_kind).
  Inventory bmc = machine(2, 0);
  PciDevice vga;
  vga.address = "0000:0a:00.0";
  vga.kind = "display";
  vga.vendor_id = 0x102b;
  vga.device_id = 0x0534;
  vga.class_id = 0x0300;
  bmc.topology.pci.push_back(vga);
  CHECK_FALSE(profile_matches(with_match("gpu = true"), bmc, &why));
  CHECK(why == "gpu = true: no compute GPU found (only display controllers)");
  CHECK(profile_matches(with_match("gpu = false"), bmc, &why));
  vga.vendor_id = 0x1002;  // ATI ES1000 in the IBM x3950: still only a display
  vga.os_devices = {"card0"};
  bmc.topology.pci.back() = vga;
  CHECK_FALSE(profile_matches(with_match("gpu = true"), bmc, &why));
  vga.os_devices = {"opencl0d1"};  // but an AMD card with a compute device counts
  vga.kind = "gpu";
  bmc.topology.pci.back() = vga;
  CHECK(profile_matches(with_match("gpu = true"), bmc, &why));
  Inventory blind = machine(0, 0);
  blind.errors.push_back(ProbeError{"topology", "hwloc: cannot load"});
  CHECK_FALSE(profile_matches(with_match("gpu = false"), blind, &why));
  CHECK(why == "gpu = false: unknown, the topology probe failed");

  CHECK(profile_matches(with_match("virtualized = false"), two, &why));
  Inventory vm = machine(1, 0);
  vm.host.virtualized = true;
  vm.host.hypervisor = "KVM";
  CHECK_FALSE(profile_matches(with_match("virtualized = false"), vm, &why));
  CHECK(why == "virtualized = false: this is a virtual machine (KVM)");
  vm.host.virtualized.reset();
  CHECK_FALSE(profile_matches(with_match("virtualized = true"), vm, &why));
  CHECK(why.find("unknown") != std::string::npos);

  // All must hold; the first failing one is reported.
  CHECK_FALSE(profile_matches(with_match("gpu = true\nnuma_nodes = \">=2\""), machine(1, 1), &why));
  CHECK(why.starts_with("numa_nodes"));
  CHECK(match_specificity(with_match("gpu = true\nnuma_nodes = \">=2\"").match) == 2);
  CHECK(profile_matches(Profile{}, machine(1, 0), &why));  // no conditions: matches anything
}

TEST_CASE("profile match: automatic selection picks the most specific shipped profile") {
  auto pick = [](const Inventory& inv) {
    auto r = best_profile(kShipped, inv);
    REQUIRE_MESSAGE(r.ok(), r.error().message());
    return r.value();
  };
  // Workload profiles carry no [match]: a GPU node is not guessed to be training.
  CHECK(pick(machine(2, 8)) == "balanced");
  CHECK(pick(machine(1, 1)) == "balanced");
  CHECK(pick(machine(2, 0)) == "balanced");  // no GPU: the fallback
  CHECK(pick(machine(0, 0)) == "balanced");  // nothing known: still a safe answer
}

TEST_CASE("profile match: ties go to the first name, condition-free profiles never win") {
  Profile a = with_match("gpu = true"), b = with_match("nic_driver = \"mlx5*\""), none;
  Inventory inv = machine(1, 1);
  CHECK(select_profile({{"zeta", &a}, {"alpha", &b}}, inv) == "alpha");
  CHECK(select_profile({{"alpha", &none}, {"balanced", &none}}, inv) == "balanced");
  CHECK(select_profile({{"alpha", &none}}, inv).empty());
  CHECK(select_profile({{"broken", nullptr}, {"balanced", &none}}, inv) == "balanced");
  auto none_found = best_profile({}, inv);
  REQUIRE_FALSE(none_found.ok());
  CHECK(none_found.error().what.find("no 'balanced' profile") != std::string::npos);
}

TEST_CASE("profile match: find_profiles lists names once, earlier directories first") {
  std::vector<FoundProfile> both =
      find_profiles({TUNER_TEST_DATA "/profiles/good", TUNER_SOURCE_PROFILES});
  std::vector<std::string> names;
  names.reserve(both.size());
  for (const FoundProfile& f : both) names.push_back(f.name);
  CHECK(std::is_sorted(names.begin(), names.end()));
  CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());
  CHECK(std::count(names.begin(), names.end(), "full") == 1);
  CHECK(std::count(names.begin(), names.end(), "dl-training") == 1);
  CHECK(std::count(names.begin(), names.end(), "extra") == 0);  // sub/ is not searched
}
