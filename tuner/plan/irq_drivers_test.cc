// Every common NIC driver's vectors, end to end: a fake machine shows them as the
// kernel does (tests/support/fake_nic_irqs.h), probe_irqs() must say exactly which
// queue each one serves, and a numa-local plan must place exactly the queue vectors,
// never a control vector, and name what it left alone.
#include <doctest/doctest.h>

#include <map>

#include "probes/irq.h"
#include "tests/support/fake_netlink.h"
#include "tests/support/fake_nic_irqs.h"
#include "tuner/plan/plan_test_util.h"
#include "tuner/plan/planner.h"

using namespace tuner;
using testing::FakeCurrent;
using testing::FakeFunction;

namespace {

/// A driver family: one function's vectors, what the probe must make of each ("q3"
/// combined queue 3, "rx1", "tx1", "shared", "control", "ambiguous"), and the CPU a
/// numa-local plan gives each on a 4-core SMT node (PUs 0-3, then siblings 4-7; "-"
/// for not moved).
struct Family {
  const char* name;
  FakeFunction fn;
  std::vector<std::string> roles;
  std::vector<std::string> cpus;
};

std::string role_of(const Irq& irq) {
  if (irq.ambiguous) return "ambiguous";
  switch (irq.kind) {
    case IrqKind::control: return "control";
    case IrqKind::other: return "other";
    case IrqKind::queue: break;
  }
  std::string index = irq.queue_index ? std::to_string(*irq.queue_index) : "";
  switch (irq.queue_type.value_or(QueueType::combined)) {
    case QueueType::combined: return "q" + index;
    case QueueType::rx: return "rx" + index;
    case QueueType::tx: return "tx" + index;
    case QueueType::shared: return "shared";
  }
  return "?";
}

std::vector<std::string> names(const std::string& pattern, unsigned from, unsigned to) {
  std::vector<std::string> out;
  for (unsigned i = from; i <= to; ++i) {
    std::string n = pattern;
    n.replace(n.find("%d"), 2, std::to_string(i));
    out.push_back(n);
  }
  return out;
}

std::vector<std::string> cat(std::vector<std::vector<std::string>> parts) {
  std::vector<std::string> out;
  for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

const std::string kMlx5 = "@pci:0000:3b:00.0";

std::vector<Family> families() {
  return {
      {"mlx5, async at index 0 (up to 5.15, and from 6.10)",
       {"0000:3b:00.0",
        {"ens1f0np0"},
        cat({{"mlx5_async0" + kMlx5}, names("mlx5_comp%d" + kMlx5, 0, 3)})},
       {"control", "q0", "q1", "q2", "q3"},
       {"-", "0", "1", "2", "3"}},
      {"mlx5, async at index 0 and comp from 1 (6.4-6.9)",
       {"0000:3b:00.0",
        {"ens1f0np0"},
        cat({{"mlx5_async0" + kMlx5}, names("mlx5_comp%d" + kMlx5, 1, 4)})},
       {"control", "q0", "q1", "q2", "q3"},
       {"-", "0", "1", "2", "3"}},
      {"mlx5, async at the last index (5.16-6.3)",
       {"0000:3b:00.0",
        {"ens1f0np0"},
        cat({names("mlx5_comp%d" + kMlx5, 0, 3), {"mlx5_async4" + kMlx5}})},
       {"q0", "q1", "q2", "q3", "control"},
       {"0", "1", "2", "3", "-"}},
      {"mlx4 (4.x names: EQ 0 is async)",
       {"0000:82:00.0",
        {"ib0"},
        cat({{"mlx4-async@pci:0000:82:00.0"}, names("mlx4-%d@0000:82:00.0", 1, 4)})},
       {"control", "q0", "q1", "q2", "q3"},
       {"-", "0", "1", "2", "3"}},
      {"mlx4 (old names)",
       {"0000:82:00.0",
        {"ib0"},
        cat({{"mlx4-async@pci:0000:82:00.0"}, names("mlx4-comp-%d@pci:0000:82:00.0", 0, 3)})},
       {"control", "q0", "q1", "q2", "q3"},
       {"-", "0", "1", "2", "3"}},
      {"mlx4, two ports share the completion vectors",
       {"0000:82:00.0",
        {"eth0", "eth1"},
        cat({{"mlx4-async@pci:0000:82:00.0"}, names("mlx4-%d@0000:82:00.0", 1, 2)})},
       {"control", "ambiguous", "ambiguous"},
       {"-", "-", "-"}},
      {"i40e with misc and flow director",
       {"0000:3b:00.0",
        {"ens2f0"},
        cat({{"i40e-0000:3b:00.0:misc"},
             names("i40e-ens2f0-TxRx-%d", 0, 3),
             {"i40e-0000:3b:00.0:fdir-TxRx-0"}})},
       {"control", "q0", "q1", "q2", "q3", "control"},
       {"-", "0", "1", "2", "3", "-"}},
      {"ice with misc, control VSI and ll_ts",
       {"0000:5e:00.0",
        {"ens1f0"},
        cat({{"ice-0000:5e:00.0:misc"},
             names("ice-ens1f0-TxRx-%d", 0, 3),
             {"ice-0000:5e:00.0:ctrl-TxRx-0", "ice-0000:5e:00.0:ll_ts"}})},
       {"control", "q0", "q1", "q2", "q3", "control", "control"},
       {"-", "0", "1", "2", "3", "-", "-"}},
      {"bnxt_en",
       {"0000:5e:00.0", {"ens5f0np0"}, names("ens5f0np0-TxRx-%d", 0, 3)},
       {"q0", "q1", "q2", "q3"},
       {"0", "1", "2", "3"}},
      {"ena",
       {"0000:00:05.0",
        {"eth0"},
        cat({{"ena-mgmnt@pci:0000:00:05.0"}, names("eth0-Tx-Rx-%d", 0, 3)})},
       {"control", "q0", "q1", "q2", "q3"},
       {"-", "0", "1", "2", "3"}},
      {"gve: first half of the blocks TX, second half RX",
       {"0000:00:04.0",
        {"ens4"},
        cat({names("gve-ntfy-blk%d@pci:0000:00:04.0", 0, 7), {"gve-mgmnt@pci:0000:00:04.0"}})},
       {"tx0", "tx1", "tx2", "tx3", "rx0", "rx1", "rx2", "rx3", "control"},
       {"4", "5", "6", "7", "0", "1", "2", "3", "-"}},
      {"virtio-net with a config vector",
       {"0000:01:00.0",
        {"eth0"},
        {"virtio1-config", "virtio1-input.0", "virtio1-output.0", "virtio1-input.1",
         "virtio1-output.1"},
        1u},
       {"control", "rx0", "tx0", "rx1", "tx1"},
       {"-", "0", "2", "1", "3"}},
      {"virtio-net in fallback mode: one vector for every virtqueue",
       {"0000:01:00.0", {"eth0"}, {"virtio1-config", "virtio1-virtqueues"}, 1u},
       {"control", "shared"},
       {"-", "0"}},
      {"ixgbe with its control vector named exactly the netdev",
       {"0000:04:00.0", {"eth2"}, cat({names("eth2-TxRx-%d", 0, 3), {"eth2"}})},
       {"q0", "q1", "q2", "q3", "control"},
       {"0", "1", "2", "3", "-"}},
      {"igb with separate RX and TX vectors",
       {"0000:04:00.0",
        {"eth2"},
        cat({names("eth2-rx-%d", 0, 1), names("eth2-tx-%d", 0, 1), {"eth2"}})},
       {"rx0", "rx1", "tx0", "tx1", "control"},
       {"0", "1", "2", "3", "-"}},
      {"hns3",
       {"0000:7d:00.0",
        {"enp125s0f0"},
        cat({{"hclge-misc-0000:7d:00.0"}, names("hns3-0000:7d:00.0-TxRx-%d", 0, 3)})},
       {"control", "q0", "q1", "q2", "q3"},
       {"-", "0", "1", "2", "3"}},
  };
}

Profile numa_local() {
  Profile p;
  p.name = "net";
  p.chain = {"net"};
  IrqRule r;
  r.glob = "*";
  r.policy = IrqPolicy::numa_local;
  r.loc = testing::loc(3);
  p.irqs = {r};
  return p;
}

/// The inventory a probe of this fake machine gives, on a 1-node 4-core SMT topology.
Inventory inventory_of(const testing::TempDir& dir, const FakeFunction& fn,
                       NetdevNetlink* nl = nullptr) {
  Inventory inv = testing::smt_machine(1, 4);
  std::vector<ProbeError> errors;
  inv.irqs = probe_irqs(Root::open(dir.path).value(), errors, nl);
  for (const ProbeError& e : errors) FAIL_CHECK(e.message);
  for (const std::string& name : fn.netdevs) {
    Nic nic;
    nic.name = name;
    nic.pci = fn.pci;
    nic.numa_node = 0;
    for (const Irq& irq : inv.irqs)
      if (irq.device == name) nic.irqs.push_back(irq.number);
    inv.nics.push_back(nic);
  }
  return inv;
}

}  // namespace

TEST_CASE("irq drivers: each family's queues are mapped and placed exactly") {
  for (const Family& f : families()) {
    CAPTURE(f.name);
    REQUIRE(f.roles.size() == f.fn.vectors.size());
    testing::TempDir dir;
    testing::FakeNicIrqs machine(dir, 8);
    std::vector<unsigned> irqs = machine.add(f.fn, 40);
    machine.write_interrupts();
    Inventory inv = inventory_of(dir, f.fn);
    REQUIRE(inv.irqs.size() == irqs.size() + 1);  // and the timer

    std::map<std::string, std::string> want;
    for (std::size_t i = 0; i < irqs.size(); ++i) {
      const Irq* irq = inv.find_irq(irqs[i]);
      REQUIRE(irq);
      CAPTURE(irq->name);
      CHECK(role_of(*irq) == f.roles[i]);
      CHECK(irq->pci == f.fn.pci);
      if (f.fn.netdevs.size() == 1) CHECK(irq->device == f.fn.netdevs.front());
      else CHECK_FALSE(irq->device.has_value());
      CHECK(irq->source == "name");
      if (f.cpus[i] != "-") want["irq:" + std::to_string(irqs[i]) + ":affinity"] = f.cpus[i];
    }
    CHECK(inv.find_irq(0)->kind == IrqKind::other);  // the timer is no NIC's

    FakeCurrent cur;
    auto plan = make_plan_with(numa_local(), inv, cur);
    REQUIRE(plan.ok());
    std::map<std::string, std::string> got;
    for (const Change& c : plan->changes) got[c.knob] = c.desired;
    CHECK(got == want);
    // Whatever was left alone is named, with the reason.
    std::size_t left = 0;
    for (const std::string& r : f.roles) left += r == "control" || r == "ambiguous";
    std::string notes;
    for (const std::string& n : plan->notes) notes += n + "\n";
    CAPTURE(notes);
    if (left) CHECK(notes.find("left alone") != std::string::npos);
  }
}

TEST_CASE("irq drivers: the two-port mlx4 note says why its vectors stay") {
  testing::TempDir dir;
  testing::FakeNicIrqs machine(dir, 8);
  FakeFunction fn{"0000:82:00.0",
                  {"eth0", "eth1"},
                  cat({{"mlx4-async@pci:0000:82:00.0"}, names("mlx4-%d@0000:82:00.0", 1, 2)})};
  machine.add(fn, 40);
  machine.write_interrupts();
  Inventory inv = inventory_of(dir, fn);
  FakeCurrent cur;
  auto plan = make_plan_with(numa_local(), inv, cur);
  REQUIRE(plan.ok());
  CHECK(plan->changes.empty());
  REQUIRE(plan->notes.size() == 2);
  CHECK(plan->notes[0] ==
        "eth0, eth1: left alone, IRQs 41 (mlx4-1@0000:82:00.0), 42 (mlx4-2@0000:82:00.0): named "
        "by PCI address, and the function has several netdevs (eth0, eth1)");
  CHECK(plan->notes[1] == "eth0, eth1: no queue IRQs to place (irq rule '*')");
}

TEST_CASE("irq drivers: napi-get's map wins over the names where the driver registers it") {
  testing::TempDir dir;
  testing::FakeNicIrqs machine(dir, 8);
  // ice numbers its TxRx vectors per VSI; here the kernel says vector 41 polls queue 3
  // and 44 polls queue 0, whatever the names say.
  FakeFunction fn{"0000:5e:00.0",
                  {"ens1f0"},
                  cat({{"ice-0000:5e:00.0:misc"}, names("ice-ens1f0-TxRx-%d", 0, 3)})};
  machine.add(fn, 40);
  machine.write_interrupts();
  testing::FakeNetdevNetlink nl;
  nl.combined(2, {44, 42, 43, 41});  // ens1f0 is ifindex 2
  Inventory inv = inventory_of(dir, fn, &nl);
  CHECK(nl.asked == std::vector<std::string>{"NAPI_GET:2", "QUEUE_GET:2"});
  for (unsigned irq = 41; irq <= 44; ++irq) {
    CAPTURE(irq);
    CHECK(inv.find_irq(irq)->source == "netlink");
    CHECK(inv.find_irq(irq)->device == "ens1f0");
  }
  CHECK(role_of(*inv.find_irq(41)) == "q3");
  CHECK(role_of(*inv.find_irq(44)) == "q0");
  CHECK(inv.find_irq(41)->queue == "TxRx-0");  // the name's label stays as it was
  CHECK(inv.find_irq(40)->source == "name");   // misc: no NAPI, the name decides
  CHECK(role_of(*inv.find_irq(40)) == "control");
  FakeCurrent cur;
  auto plan = make_plan_with(numa_local(), inv, cur);
  REQUIRE(plan.ok());
  std::map<std::string, std::string> reasons;
  for (const Change& c : plan->changes) reasons[c.knob] = c.reason;
  CHECK(reasons.at("irq:44:affinity") == "ens1f0 is on NUMA node 0; queue 0 -> CPU 0");
  CHECK(reasons.at("irq:41:affinity") == "ens1f0 is on NUMA node 0; queue 3 -> CPU 3");
}

TEST_CASE("irq drivers: without napi-get (or without NAPI IRQs) the names decide") {
  testing::TempDir dir;
  testing::FakeNicIrqs machine(dir, 8);
  FakeFunction fn{
      "0000:01:00.0", {"eth0"}, {"virtio1-config", "virtio1-input.0", "virtio1-output.0"}, 1u};
  machine.add(fn, 40);
  machine.write_interrupts();
  testing::FakeNetdevNetlink old_kernel;
  old_kernel.fail = EOPNOTSUPP;
  Inventory a = inventory_of(dir, fn, &old_kernel);
  CHECK(role_of(*a.find_irq(41)) == "rx0");
  CHECK(a.find_irq(41)->source == "name");
  // virtio_net on 6.18 lists its NAPIs without an IRQ: nothing to learn from them.
  testing::FakeNetdevNetlink no_irq;
  no_irq.napi[2] = {{8193, 2, std::nullopt}};
  no_irq.queue[2] = {{0, 2, false, 8193u}, {0, 2, true, std::nullopt}};
  Inventory b = inventory_of(dir, fn, &no_irq);
  CHECK(no_irq.asked == std::vector<std::string>{"NAPI_GET:2"});
  CHECK(role_of(*b.find_irq(42)) == "tx0");
}
