// probe_inventory: what an XML export may and may not tell.
#include "probes/probe.h"

#include <doctest/doctest.h>

using namespace tuner;

TEST_CASE("probe: an XML export describes another machine, not this host") {
  ProbeOptions options;
  options.topology_xml = std::string(TUNER_FIXTURES) + "/topologies/24em64t-2n6c2t-pci.xml";
  Inventory inv = probe_inventory(Root::live(), options);
  CHECK(inv.topology.numa_nodes.size() == 2);
  // This machine's kernel, irqbalance, IRQs and sysctls are not the XML machine's.
  CHECK_FALSE(inv.host.kernel.has_value());
  CHECK_FALSE(inv.host.irqbalance_running.has_value());
  CHECK(inv.irqs.empty());
  CHECK(inv.sysctls.empty());
  // Its NICs come from the XML's network OS devices, with the XML's locality.
  REQUIRE_FALSE(inv.nics.empty());
  for (const Nic& n : inv.nics) {
    CHECK(n.pci.has_value());
    CHECK_FALSE(n.link.speed_mbps.has_value());
  }
}

TEST_CASE("probe: live inventory ties IRQs to NICs and knows this host") {
  Inventory inv = probe_inventory(Root::live(), ProbeOptions{});
  CHECK(inv.host.kernel.has_value());
  for (const Nic& n : inv.nics)
    for (unsigned irq : n.irqs) {
      const Irq* i = inv.find_irq(irq);
      REQUIRE(i != nullptr);
      CHECK(i->device == n.name);
    }
}
