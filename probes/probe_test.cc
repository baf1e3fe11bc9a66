// probe_inventory: what an XML export may and may not tell.
#include "probes/probe.h"

#include <doctest/doctest.h>

using namespace tuner;

TEST_CASE("probe: an XML export describes another machine, not this host") {
  ProbeOptions options;
  options.topology_xml = std::string(TUNER_FIXTURES) + "/topologies/24em64t-2n6c2t-pci.xml";
  Inventory inv = probe_inventory(Root::live(), options);
  CHECK(inv.topology.numa_nodes.size() == 2);
  // This machine's irqbalance, IRQs and sysctls are not the XML machine's; the XML's
  // own facts (mirage004, an HP with BIOS P69 running 2.6.27) are.
  CHECK(inv.host.kernel == "2.6.27.39-0.3-perfctr");
  CHECK(inv.host.hostname == "mirage004");
  CHECK(inv.host.platform.bios_vendor == "HP");
  CHECK(inv.host.platform.bios_version == "P69");
  CHECK(inv.host.platform.bios_date == "10/21/2010");
  CHECK_FALSE(inv.host.platform.board_name.has_value());  // blank in the XML: unknown
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

TEST_CASE("probe: an XML export's host name, OS release and CPU are its machine's") {
  ProbeOptions options;
  const std::string dir = std::string(TUNER_FIXTURES) + "/topologies/";
  options.topology_xml = dir + "64intel64-fakeKNL-SNC4-hybrid.xml";
  Inventory knl = probe_inventory(Root::live(), options);
  CHECK(knl.host.hostname == "localhost.localdomain");
  CHECK(knl.host.kernel == "3.10.0-327.el7.x86_64");
  CHECK(knl.host.cpu_vendor == "GenuineIntel");
  CHECK(knl.host.cpu_model == "06/57");
  options.topology_xml = dir + "192em64t-24n8c2t.xml";
  Inventory sgi = probe_inventory(Root::live(), options);
  CHECK(sgi.host.cpu_model == "Intel(R) Xeon(R) CPU E5-4640 0 @ 2.40GHz");
  CHECK(sgi.host.platform.bios_version == "SGI UV 2000 series BIOS");
  CHECK(sgi.host.platform.system_product == "Romley Platform");
  CHECK(sgi.host.hostname == "uv2000");
  CHECK(sgi.host.kernel == "3.0.58-0.6.6-default");
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
