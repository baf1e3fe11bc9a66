#include <unistd.h>

#include <doctest/doctest.h>

#include <fstream>

#include "base/cpuset.h"
#include "base/strings.h"
#include "probes/irq_vector.h"
#include "tuner/knobs/knob.h"

using namespace tuner;

TEST_CASE("irq knob: ids and CPU lists are validated") {
  KnobContext ctx{Root::live()};
  for (const char* bad : {"irq:57", "irq:x:affinity", "irq:057:affinity", "irq:-1:affinity",
                          "irq: 5:affinity", "irq:5:mask", "irq:99999999:affinity"})
    CHECK_MESSAGE(!make_knob(bad, ctx).ok(), bad);
  auto k = make_knob("irq:24:affinity", ctx);
  REQUIRE(k.ok());
  CHECK_FALSE((*k)->canonical("").ok());
  CHECK_FALSE((*k)->canonical("a-b").ok());
  CHECK_FALSE((*k)->canonical("0-100000").ok());  // not online
  CHECK((*k)->canonical("0").value() == "0");
}

// Real IRQs of this machine. Every affinity changed is put back before the case ends.
TEST_CASE("irq knob: moves a real IRQ, reads back, restores (root)") {
  if (::geteuid() != 0) {
    MESSAGE("skipped: needs root to change IRQ affinity");
    return;
  }
  Root root = Root::live();
  KnobContext ctx{root};
  auto online = CpuSet::parse(root.read("sys/devices/system/cpu/online").value_or(""));
  auto irqs = root.list("proc/irq");
  REQUIRE(irqs.ok());
  REQUIRE(online.ok());
  if (online->size() < 2) {
    MESSAGE("skipped: one online CPU, nothing to move an IRQ to");
    return;
  }
  int moved = 0, refused = 0;
  for (const std::string& n : *irqs) {
    if (n.find_first_not_of("0123456789") != std::string::npos) continue;
    auto k = make_knob("irq:" + n + ":affinity", ctx);
    REQUIRE(k.ok());
    auto original = (*k)->read();
    if (!original.ok()) continue;
    // Move it to the one online CPU not first in its current list (or CPU 0).
    unsigned first = CpuSet::parse(*original)->cpus().front();
    unsigned target = online->cpus().front() == first ? online->cpus()[1] : online->cpus().front();
    // Put the original back whatever happens below.
    struct Restore {
      Knob& k;
      std::string v;
      ~Restore() { (void)k.write(v); }
    } restore{**k, *original};
    Status s = (*k)->write(std::to_string(target));
    if (!s.ok()) {
      INFO(s.error().message());
      CHECK(s.error().is(ErrorKind::refused));
      MESSAGE(s.error().message() << ": skipped");
      ++refused;
      CHECK((*k)->read().value_or("?") == *original);
      continue;
    }
    CHECK((*k)->read().value() == std::to_string(target));
    // The effective affinity follows when the IRQ next fires; it never leaves the set.
    auto eff = root.read("proc/irq/" + n + "/effective_affinity_list");
    if (eff.ok()) CHECK(CpuSet::parse(*eff).value().is_subset_of(*online));
    Status back = (*k)->write(*original);
    INFO((back.ok() ? std::string() : back.error().message()));
    CHECK(back.ok());
    CHECK((*k)->read().value() == *original);
    ++moved;
    break;
  }
  MESSAGE("moved " << moved << ", refused " << refused);
  CHECK(moved + refused > 0);
}

// This machine's own MSI vectors, read only: each IRQ's owner (PCI function and vector,
// from /sys/kernel/irq/N/hwirq) leads back to the same IRQ, and the knob by owner reads
// what the knob by number reads.
TEST_CASE("irq knob: by owner, every MSI vector of this machine resolves to its own IRQ") {
  Root root = Root::live();
  KnobContext ctx{root};
  auto devices = root.list("sys/bus/pci/devices");
  const auto owners = msi_owners(root);
  int checked = 0;
  if (devices.ok())
    for (const std::string& pci : *devices) {
      auto irqs = root.list("sys/bus/pci/devices/" + pci + "/msi_irqs");
      if (!irqs.ok()) continue;
      for (const std::string& n : *irqs) {
        auto irq = static_cast<unsigned>(std::stoul(n));
        auto it = owners.find(irq);
        if (it == owners.end()) continue;  // indexes that cannot be told apart: never guessed
        const MsiVector* owner = &it->second;
        CAPTURE(pci);
        CAPTURE(irq);
        CHECK(owner->pci == pci);
        CHECK(find_msi_irq(root, owner->pci, owner->index).value() == irq);
        auto by_owner = make_knob(KnobId::irq_vector(owner->pci, owner->index).value(), ctx);
        auto by_number = make_knob("irq:" + n + ":affinity", ctx);
        REQUIRE(by_owner.ok());
        REQUIRE(by_number.ok());
        auto a = (*by_owner)->read();
        auto b = (*by_number)->read();
        CHECK(a.ok() == b.ok());
        if (a.ok() && b.ok()) CHECK(*a == *b);
        ++checked;
      }
    }
  MESSAGE(checked << " MSI vectors checked");
  if (!root.exists("sys/kernel/irq")) MESSAGE("no /sys/kernel/irq here: nothing to resolve");
}
