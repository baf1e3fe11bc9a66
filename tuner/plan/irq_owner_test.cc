// IRQs named by what they serve: a fake machine laid out as Linux 6.1 shows it (PCI
// functions with msi_irqs, /sys/kernel/irq/N/hwirq with the requester id above the MSI
// index), probed by the real probes and planned; then its two virtio NICs are unbound
// and bound again in the other order, so their IRQ numbers swap, and the knobs of the
// plan must move the same queues' IRQs at their new numbers and leave the other NIC's
// alone. The VM scenario (tests/vm/guest/scenario-irq-owner.sh) does the same with a
// real driver.
#include <doctest/doctest.h>

#include <map>

#include "probes/irq.h"
#include "probes/irq_vector.h"
#include "probes/nic.h"
#include "tests/support/fake_nic_irqs.h"
#include "tests/support/fake_systemctl.h"
#include "tests/support/files.h"
#include "tuner/plan/plan_test_util.h"
#include "tuner/plan/planner.h"

using namespace tuner;
using testing::FakeFunction;

namespace {

/// Two nodes of 4 SMT cores. eth1: virtio-net with 2 queue pairs on node 1 (0000:81:00.0,
/// IRQs 40-44: config, input.0, output.0, input.1, output.1); eth2: the same on node 0
/// (0000:01:00.0, IRQs 50-54).
struct Machine {
  testing::TempDir dir{"tuner-plan-irq-owner"};
  testing::FakeNicIrqs irqs{dir, 16};
  FakeFunction a{"0000:81:00.0", {"eth1"}, {"virtio0-config"}, 0u};
  FakeFunction b{"0000:01:00.0", {"eth2"}, {"virtio1-config"}, 1u};
  std::vector<unsigned> a_irqs, b_irqs;

  Machine() {
    irqs.hwirq_files(true);
    for (int q = 0; q < 2; ++q)
      for (const char* kind : {"input.", "output."}) {
        a.vectors.push_back("virtio0-" + std::string(kind) + std::to_string(q));
        b.vectors.push_back("virtio1-" + std::string(kind) + std::to_string(q));
      }
    a.numa_node = 1;
    a_irqs = irqs.add(a, 40);
    b_irqs = irqs.add(b, 50);
    irqs.write_interrupts();
    dir.write("sys/devices/system/cpu/possible", "0-15\n");
    dir.write("sys/devices/system/cpu/online", "0-15\n");
  }

  Root root() const { return Root::open(dir.path).value(); }

  Inventory probe() const {
    Inventory inv = testing::smt_machine(2, 4);
    inv.host.irqbalance_running = true;
    std::vector<ProbeError> errors;
    inv.irqs = probe_irqs(root(), errors, nullptr);
    inv.nics = probe_nics(root(), nullptr, errors);
    for (const ProbeError& e : errors) FAIL_CHECK(e.message);
    return inv;
  }

  Result<Plan> plan() const {
    dir.write("owner.toml", "[profile]\nname = \"owner\"\ndescription = \"d\"\n"
                            "[irq.\"eth1\"]\npolicy = \"numa-local\"\nirqbalance = \"ban\"\n");
    auto p = load_profile(dir / "owner.toml", {});
    REQUIRE_MESSAGE(p.ok(), p.error().message());
    KnobCurrentValues current(KnobContext{root()}, true, false);
    return make_plan_with(*p, probe(), current);
  }

  /// Both drivers unbound, then eth2's function bound first: it takes eth1's old numbers
  /// and eth1's takes eth2's, as in the kernel, whose allocator hands out the lowest
  /// free numbers. Every vector starts with the default affinity again.
  void rebind_swapped() {
    irqs.unbind(a, a_irqs);
    irqs.unbind(b, b_irqs);
    b_irqs = irqs.bind(b, 40);
    a_irqs = irqs.bind(a, 50);
    irqs.write_interrupts();
  }

  std::string affinity(unsigned irq) const {
    return testing::sysfs_value(dir / ("proc/irq/" + std::to_string(irq) + "/smp_affinity_list"));
  }
};

std::map<std::string, std::string> desired(const Plan& p) {
  std::map<std::string, std::string> out;
  for (const Change& c : p.changes) out[c.knob] = c.desired;
  return out;
}

}  // namespace

TEST_CASE("irq owner: the probe reads each vector's MSI index from its hwirq") {
  Machine m;
  Inventory inv = m.probe();
  for (unsigned i = 0; i < 5; ++i) {
    const Irq* a = inv.find_irq(40 + i);
    const Irq* b = inv.find_irq(50 + i);
    REQUIRE(a);
    REQUIRE(b);
    CHECK(a->pci == "0000:81:00.0");
    CHECK(a->msi_index == i);
    CHECK(b->msi_index == i);
  }
  CHECK(msi_index_of_hwirq("1056769\n") == 1u);  // 0000:81:00.0 vector 1 under 6.1
  CHECK(msi_index_of_hwirq("5") == 5u);          // 6.2+: the index alone
  CHECK(!msi_index_of_hwirq("x").has_value());
  // Two vectors that read the same index make the function's indexes unusable: no
  // owner ids for it, rather than a guess.
  m.dir.write("sys/kernel/irq/41/hwirq", "1056770\n");
  Inventory odd = m.probe();
  CHECK(!odd.find_irq(41)->msi_index.has_value());
  CHECK(!odd.find_irq(40)->msi_index.has_value());
  CHECK(odd.find_irq(50)->msi_index == 0u);
  auto found = find_msi_irq(m.root(), "0000:81:00.0", 2);
  REQUIRE(!found.ok());
  CHECK(found.error().what.find("both claim MSI vector 2") != std::string::npos);
}

TEST_CASE("irq owner: plan names queue IRQs and the ban by PCI function and vector") {
  Machine m;
  auto plan = m.plan();
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  std::map<std::string, std::string> want = {
      {"irq:0000:81:00.0/msi1:affinity", "4"},
      {"irq:0000:81:00.0/msi3:affinity", "5"},
      {"irq:0000:81:00.0/msi2:affinity", "6"},
      {"irq:0000:81:00.0/msi4:affinity", "7"},
      {"irqbalance:banned",
       "0000:81:00.0/msi1,0000:81:00.0/msi2,0000:81:00.0/msi3,0000:81:00.0/msi4"},
  };
  CHECK(desired(*plan) == want);
}

TEST_CASE("irq owner: after the numbers swap, the kept NIC's queues are moved where they are") {
  Machine m;
  auto plan = m.plan();
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  KnobContext ctx{m.root()};
  ctx.fake_machine = true;
  for (const Change& c : plan->changes) {
    if (!c.knob.starts_with("irq:")) continue;
    auto k = make_knob(c.knob, ctx);
    REQUIRE(k.ok());
    REQUIRE((*k)->write(c.desired).ok());
  }
  CHECK(m.affinity(41) == "4");
  CHECK(m.affinity(42) == "6");

  m.rebind_swapped();
  // IRQ 41 now serves eth2's input.0: untouched by anything below.
  const std::string input0 = "irq:0000:81:00.0/msi1:affinity";
  auto k = make_knob(input0, ctx);
  REQUIRE(k.ok());
  CHECK((*k)->read().value() == "0-15");  // drifted: the rebind reset it
  REQUIRE((*k)->write("4").ok());
  CHECK(m.affinity(51) == "4");     // eth1's input.0 at its new number
  CHECK(m.affinity(41) == "0-15");  // eth2's input.0, at eth1's old number
  for (unsigned irq : m.b_irqs) CHECK(m.affinity(irq) == "0-15");

  // The function gone: read and write say so (status and restore report it gone).
  m.irqs.unbind(m.a, m.a_irqs);
  auto gone = (*k)->read();
  REQUIRE(!gone.ok());
  CHECK(gone.error().is(ErrorKind::missing));
  CHECK(gone.error().message().find("0000:81:00.0 has no MSI vectors now") != std::string::npos);
  Status w = (*k)->write("4");
  REQUIRE(!w.ok());
  CHECK(w.error().is(ErrorKind::missing));
  for (unsigned irq : m.b_irqs) CHECK(m.affinity(irq) == "0-15");
}

TEST_CASE("irq owner: the irqbalance ban follows the vectors, and reads as drift when not") {
  Machine m;
  std::filesystem::create_directories(m.dir / "etc/systemd/system");
  std::filesystem::copy_file(std::string(TUNER_TEST_DATA) + "/knobs/irqbalance.service",
                             m.dir / "etc/systemd/system/irqbalance.service");
  testing::FakeSystemctl sc;
  KnobContext ctx{m.root()};
  ctx.fake_machine = true;
  ctx.systemctl = &sc;
  auto k = make_knob("irqbalance:banned", ctx);
  REQUIRE(k.ok());
  // Numbers with an owner become the owner; one way of writing the list.
  CHECK((*k)->canonical("42,0000:81:00.0/msi1").value() == "0000:81:00.0/msi1,0000:81:00.0/msi2");
  const std::string ban = "0000:81:00.0/msi1,0000:81:00.0/msi2";
  REQUIRE((*k)->write(ban).ok());
  const std::string dropin = m.dir / "etc/systemd/system/irqbalance.service.d/tuner-ban.conf";
  CHECK(testing::slurp(dropin).find("=--banirq=41 --banirq=42\"") != std::string::npos);

  m.rebind_swapped();
  // The drop-in's numbers now ban eth2's vectors: the knob reads that, so it differs.
  CHECK((*k)->read().value() == "0000:01:00.0/msi1,0000:01:00.0/msi2");
  REQUIRE((*k)->write(ban).ok());
  CHECK(testing::slurp(dropin).find("=--banirq=51 --banirq=52\"") != std::string::npos);
  CHECK((*k)->read().value() == ban);

  // An owner that is gone cannot be banned: left out, the rest kept.
  m.irqs.unbind(m.a, m.a_irqs);
  CHECK((*k)->canonical(ban + ",0000:01:00.0/msi3").value() == "0000:01:00.0/msi3");
  CHECK(!(*k)->canonical("0000:81:00.0/msi1x").ok());
}
