// The hardware class: twins share a key, any fact that changes how settings behave
// splits it, and a real export's facts are its machine's.
#include "probes/hw_class.h"

#include <doctest/doctest.h>

#include <fmt/core.h>

#include "probes/probe.h"

using namespace tuner;

namespace {

/// A DGX-2 export (16 GPUs, 8 NICs): a real server's topology and PCI layout.
Inventory dgx2() {
  ProbeOptions options;
  options.topology_xml = std::string(TUNER_FIXTURES) + "/topologies/nvidiaDGX2.xml";
  return probe_inventory(Root::live(), options);
}

/// A two-socket server export with 3 NICs and 4 GPUs on PCI.
Inventory pci_server() {
  ProbeOptions options;
  options.topology_xml = std::string(TUNER_FIXTURES) +
                         "/topologies/32em64t-2n8c2t-pci-normalio.xml";
  return probe_inventory(Root::live(), options);
}

}  // namespace

TEST_CASE("hw_class: a real export's layout, GPUs and NICs are in the facts") {
  Inventory inv = dgx2();
  HwClass c = hw_class(inv);
  CHECK(c.key.size() == 19);
  CHECK(c.key.rfind("hw-", 0) == 0);
  CHECK(c.facts.at("numa_nodes") == std::to_string(inv.topology.numa_nodes.size()));
  CHECK(c.facts.at("pus") == std::to_string(inv.topology.pus));
  CHECK(c.facts.at("gpus") == std::to_string(inv.gpus().size()));
  REQUIRE(inv.gpus().size() == 16);
  CHECK(c.facts.at("gpu.0.model").rfind("10de:", 0) == 0);  // NVIDIA's vendor id
  CHECK(c.facts.count("gpu.15.numa_node") == 1);
  CHECK(c.facts.count("hostname") == 0);  // twins differ in name only
  CHECK(c.facts.count("label") == 0);
  // The key is the facts' and nothing else's: recomputed from them, it is the same.
  CHECK(hw_class_key(c.facts) == c.key);
  auto j = hw_class_json(c);
  CHECK(j["key"] == c.key);
  CHECK(j["facts"].size() == c.facts.size());
  // NICs by PCI slot: driver, firmware, model, port speed and locality.
  HwClass nics = hw_class(pci_server());
  CHECK(nics.facts.at("nics") == "3");
  CHECK(nics.facts.at("nic.0.model") != "?");
  CHECK(nics.facts.count("nic.2.numa_node") == 1);
  CHECK(nics.facts.count("nic.3.driver") == 0);
}

TEST_CASE("hw_class: twins share a key whatever their names, MACs and link state") {
  Inventory a = pci_server();
  REQUIRE(a.nics.size() == 3);
  Inventory b = a;
  b.host.hostname = "another-node";
  for (Nic& n : b.nics) {
    n.name = "ens" + n.name;
    n.mac = "02:00:00:00:00:01";
    n.link.up = false;
  }
  // Negotiated lower today: still the same port, whose modes say what it is.
  b.nics.front().link.speed_mbps = 1000;
  a.nics.front().link.supported_modes = {"10000baseT/Full", "100000baseCR4/Full"};
  b.nics.front().link.supported_modes = {"100000baseCR4/Full", "10000baseT/Full"};
  for (Nic* n : {&a.nics.front(), &b.nics.front()}) n->is_virtual = false;
  CHECK(hw_class(a).key == hw_class(b).key);
}

TEST_CASE("hw_class: what changes how a setting behaves splits the class") {
  Inventory base = pci_server();
  base.host.microcode = "0xde";
  base.host.kernel = "6.1.0-18-amd64";
  std::string key = hw_class(base).key;
  auto differs = [&](auto change) {
    Inventory other = base;
    change(other);
    return hw_class(other).key != key;
  };
  CHECK(differs([](Inventory& i) { i.host.microcode = "0xf0"; }));
  CHECK(differs([](Inventory& i) { i.host.kernel = "6.1.0-21-amd64"; }));
  CHECK(differs([](Inventory& i) { i.host.platform.bios_version = "2.19.1"; }));
  CHECK(differs([](Inventory& i) { i.topology.numa_nodes.pop_back(); }));
  CHECK(differs([](Inventory& i) { i.host.nvidia_driver = "550.54.15"; }));
  REQUIRE_FALSE(base.nics.empty());
  CHECK(differs([](Inventory& i) { i.nics.front().firmware_version = "16.35.2000"; }));
  CHECK(differs([](Inventory& i) { i.nics.front().driver = "ice"; }));
  CHECK(differs([](Inventory& i) { i.nics.front().link.supported_modes = {"25000baseSR/Full"}; }));
  CHECK(differs([](Inventory& i) { i.topology.pci.front().numa_node = 7; }));
  // Memory per NUMA node (issue 41): 256 GiB against 512 GiB is another class; a few
  // megabytes of firmware reservation are not.
  REQUIRE_FALSE(base.topology.numa_nodes.empty());
  CHECK(differs([](Inventory& i) {
    for (NumaNode& n : i.topology.numa_nodes) n.memory_bytes = 510ULL << 30;
  }));
  {
    Inventory a = base, b = base;
    for (NumaNode& n : a.topology.numa_nodes) n.memory_bytes = (256ULL << 30) - (700ULL << 20);
    for (NumaNode& n : b.topology.numa_nodes) n.memory_bytes = (256ULL << 30) - (900ULL << 20);
    CHECK(hw_class(a).key == hw_class(b).key);
    CHECK(hw_class(a).facts.at(
              fmt::format("numa.{}.mem_gib", a.topology.numa_nodes.front().os_index)) == "256");
  }
  // The operator's own split.
  CHECK(hw_class(base, "rack-a").key != key);
  CHECK(hw_class(base, "rack-a").key == hw_class(base, "rack-a").key);
  CHECK(hw_class(base, "rack-a").facts.at("label") == "rack-a");
  // Not facts of the class: free memory, the hostname, the command line.
  CHECK_FALSE(differs([](Inventory& i) { i.host.hostname = "x"; }));
  CHECK_FALSE(differs([](Inventory& i) { i.host.cmdline = "quiet"; }));
  CHECK_FALSE(differs([](Inventory& i) {
    for (NumaNode& n : i.topology.numa_nodes) n.free_bytes = 1;
  }));
}

TEST_CASE("hw_class: memory per NUMA node is the usual installed size that holds it") {
  CHECK(numa_memory_gib(std::nullopt) == "?");
  CHECK(numa_memory_gib(0) == "?");
  CHECK(numa_memory_gib(1ULL << 29) == "1");
  CHECK(numa_memory_gib((64ULL << 30) - 1) == "64");
  CHECK(numa_memory_gib((64ULL << 30) + 1) == "96");
  CHECK(numa_memory_gib(95ULL << 30) == "96");
  CHECK(numa_memory_gib(100ULL << 30) == "128");
  CHECK(numa_memory_gib(3ULL << 30) == "3");
  CHECK(numa_memory_gib(767ULL << 30) == "768");
}

TEST_CASE("hw_class: --class-label takes a short plain word and refuses the rest") {
  CHECK(check_class_label("rack-a").ok());
  CHECK(check_class_label("pod3/row.1:b_2").ok());
  CHECK_FALSE(check_class_label("").ok());
  CHECK_FALSE(check_class_label(std::string(65, 'a')).ok());
  CHECK_FALSE(check_class_label("two words").ok());
  CHECK_FALSE(check_class_label("a\nb").ok());
  CHECK(check_class_label("a\x1b[31m").error().message().find("only letters") != std::string::npos);
}
