// The qemu guest of tests/vm on Debian 11's 5.10 and Debian 13's 6.12, whose
// /proc/interrupts differ in the chip and hwirq columns: 5.10 (as 6.1) prints the
// shared "PCI-MSI" domain and pci_msi_domain_calc_hwirq()'s requester id << 11 | index;
// 6.12 prints a per-device "PCI-MSIX-<address>" domain and the MSI index alone. The
// probe reads the same queue roles and MSI indexes from both.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "probes/irq.h"
#include "probes/irq_names.h"
#include "probes/irq_vector.h"
#include "tests/support/fixtures.h"

using namespace tuner;

namespace {

struct Capture {
  const char* file;
  const char* chip;  // of the virtio NIC at 0000:81:00.0 (virtio1)
  unsigned hwirq0;   // its config vector's hwirq (5.10: requester id 81:00.0 << 11)
};

// virtio1's vectors in the order virtio_pci requests them: config, then input.N and
// output.N per queue pair, as MSI-X entries 0..8 (IRQs 34-42 in both captures).
std::string virtio1_role(unsigned index) {
  if (index == 0) return "control";
  return std::string(index % 2 ? "rx" : "tx") + std::to_string((index - 1) / 2);
}

std::string role_of(const VectorRole& r) {
  if (r.kind == IrqKind::control) return "control";
  if (r.kind != IrqKind::queue || !r.queue_type || !r.queue_index) return "other";
  return std::string(queue_type_name(*r.queue_type)) + std::to_string(*r.queue_index);
}

}  // namespace

TEST_CASE("irq: the tests/vm guest's /proc/interrupts on 5.10 and 6.12 (captured)") {
  for (const Capture& c : {Capture{"qemu-q35-4cpu-5.10.interrupts", "PCI-MSI", 0x8100u << 11},
                           Capture{"qemu-q35-4cpu-6.12.interrupts", "PCI-MSIX-0000:81:00.0", 0}}) {
    CAPTURE(c.file);
    auto irqs = parse_interrupts(testing::read_test_data(std::string("irq/captured/") + c.file));
    REQUIRE(irqs.ok());
    CHECK(irqs->size() == 26);  // 0, 1, 4, 8, 9, 12, 23, 24-42; NMI, LOC, ... skipped
    std::vector<std::string> names;
    for (const Irq& i : *irqs)
      if (i.number >= 34 && i.number <= 42) names.push_back(i.name);
    REQUIRE(names.size() == 9);
    const FunctionVectors fn = summarize_vectors(names);
    for (const Irq& i : *irqs) {
      if (i.number < 34 || i.number > 42) continue;
      CAPTURE(i.number);
      const unsigned index = i.number - 34;
      CHECK(i.chip == c.chip);
      CHECK(i.hwirq == std::to_string(c.hwirq0 + index) + "-edge");
      // /sys/kernel/irq/N/hwirq holds the number alone (tests/vm keeps it as <work>/hwirq).
      CHECK(msi_index_of_hwirq(std::to_string(c.hwirq0 + index)) == index);
      const VectorRole r = classify_vector(i.name, {"eth1"}, fn);
      CHECK(role_of(r) == virtio1_role(index));
      CHECK(r.netdev == "eth1");
    }
    // The e1000's legacy line is an IO-APIC INTx on both.
    bool e1000 = false;
    for (const Irq& i : *irqs)
      if (i.number == 23)
        e1000 = i.chip == "IO-APIC" && i.hwirq == "23-fasteoi" && i.name == "eth2";
    CHECK(e1000);
  }
}
