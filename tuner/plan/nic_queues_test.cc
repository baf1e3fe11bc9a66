// [nic] rps and xps: planned from a fake machine laid out as the kernel shows it (IRQs,
// PCI functions, netdevs and their queues/rx-N, tx-N), probed by the real probes, with
// current masks read by the real knobs; then applied through the knobs and planned
// again, which must find nothing left to do.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include "probes/irq.h"
#include "probes/nic.h"
#include "tests/support/fake_nic_irqs.h"
#include "tuner/plan/plan_test_util.h"
#include "tuner/plan/planner.h"

using namespace tuner;
using testing::FakeFunction;

namespace {

const std::string kFixture = TUNER_TEST_DATA "/plan/rps-xps.toml";
const char* const kPci = "sys/devices/pci0000:00/0000:00:02.0/";

/// Two nodes of 4 SMT cores (node 0: CPUs 0-3,8-11; node 1: 4-7,12-15). eth0: virtio-net
/// with 4 queue pairs on node 1 (IRQ 40 config, 41.. input.0, output.0, ...), XPS as
/// virtio sets it (tx-N on CPU N). ens1: ixgbe with 2 queues on node 0 (IRQs 60, 61,
/// control 62), its queue IRQs on CPUs 2 and 3.
struct Machine {
  testing::TempDir dir{"tuner-plan-rps"};
  testing::FakeNicIrqs irqs{dir, 16};

  Machine() {
    FakeFunction virtio{"0000:01:00.0", {"eth0"}, {"virtio1-config"}, 1u};
    for (int q = 0; q < 4; ++q)
      for (const char* kind : {"input.", "output."})
        virtio.vectors.push_back("virtio1-" + std::string(kind) + std::to_string(q));
    virtio.numa_node = 1;
    irqs.add(virtio, 40);
    irqs.add({"0000:3b:00.0", {"ens1"}, {"ens1-TxRx-0", "ens1-TxRx-1", "ens1"}}, 60);
    irqs.write_interrupts();
    dir.write("proc/irq/60/smp_affinity_list", "2\n");
    dir.write("proc/irq/61/smp_affinity_list", "3\n");
    for (int q = 0; q < 4; ++q) {
      queue("eth0", "rx-" + std::to_string(q), "rps_cpus", "0000");
      queue("eth0", "tx-" + std::to_string(q), "xps_cpus",
            CpuSet(std::vector<unsigned>{static_cast<unsigned>(q)}).to_mask());
    }
    for (int q = 0; q < 2; ++q) {
      queue("ens1", "rx-" + std::to_string(q), "rps_cpus", "0000");
      queue("ens1", "tx-" + std::to_string(q), "xps_cpus", "0000");
    }
    dir.write("sys/devices/system/cpu/possible", "0-15\n");
    dir.write("sys/devices/system/cpu/online", "0-15\n");
  }
  void queue(const std::string& nic, const std::string& q, const char* file,
             const std::string& mask) const {
    std::string dev = nic == "eth0" ? "0000:01:00.0/virtio1" : "0000:3b:00.0";
    dir.write(kPci + dev + "/net/" + nic + "/queues/" + q + "/" + file, mask + "\n");
  }
  std::string mask(const std::string& nic, const std::string& q, const char* file) const {
    std::string dev = nic == "eth0" ? "0000:01:00.0/virtio1" : "0000:3b:00.0";
    return testing::sysfs_value(dir / (kPci + dev + "/net/" + nic + "/queues/" + q + "/" + file));
  }

  Inventory probe() const {
    Root root = Root::open(dir.path).value();
    Inventory inv = testing::smt_machine(2, 4);
    std::vector<ProbeError> errors;
    inv.irqs = probe_irqs(root, errors, nullptr);
    inv.nics = probe_nics(root, nullptr, errors);
    for (const ProbeError& e : errors) FAIL_CHECK(e.message);
    return inv;
  }
  Result<Plan> plan(const Profile& p) const {
    KnobCurrentValues current(KnobContext{Root::open(dir.path).value()}, true, false);
    return make_plan_with(p, probe(), current);
  }
};

Profile fixture() {
  auto p = load_profile(kFixture, {});
  REQUIRE_MESSAGE(p.ok(), p.error().message());
  return std::move(p).value();
}

std::map<std::string, std::string> desired(const Plan& p) {
  std::map<std::string, std::string> out;
  for (const Change& c : p.changes) out[c.knob] = c.desired;
  return out;
}

}  // namespace

TEST_CASE("plan rps/xps: exact knob ids and masks on the fixture machine") {
  Machine m;
  auto plan = m.plan(fixture());
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  // RX vectors first, a core each, then TX vectors on the siblings. XPS follows them:
  // each TX queue its IRQ's CPU and that CPU's sibling, and a core of the other socket.
  std::map<std::string, std::string> want = {
      {"irq:41:affinity", "4"},
      {"irq:43:affinity", "5"},
      {"irq:45:affinity", "6"},
      {"irq:47:affinity", "7"},
      {"irq:42:affinity", "12"},
      {"irq:44:affinity", "13"},
      {"irq:46:affinity", "14"},
      {"irq:48:affinity", "15"},
      {"nic:eth0:xps:tx-0", "0,4,8,12"},
      {"nic:eth0:xps:tx-1", "1,5,9,13"},
      {"nic:eth0:xps:tx-2", "2,6,10,14"},
      {"nic:eth0:xps:tx-3", "3,7,11,15"},
      {"nic:ens1:rps:rx-0", "0-3,8-11"},
      {"nic:ens1:rps:rx-1", "0-3,8-11"},
      // ens1's IRQs stay on CPUs 2 and 3; its socket's other cores first, one each.
      {"nic:ens1:xps:tx-0", "0,2,4,6,8,10,12,14"},
      {"nic:ens1:xps:tx-1", "1,3,5,7,9,11,13,15"},
  };
  CHECK(desired(*plan) == want);
  std::map<std::string, const Change*> by_id;
  for (const Change& c : plan->changes) by_id[c.knob] = &c;
  const Change& tx3 = *by_id.at("nic:eth0:xps:tx-3");
  CHECK(tx3.current == "3");
  CHECK(tx3.group == "nic");
  CHECK(tx3.reason == "eth0 tx queue 3 follows IRQ 48 (virtio1-output.3) as this plan places "
                      "it: CPUs 15; with their SMT siblings and the nearest CPUs no queue's IRQ "
                      "is on: 3,7,11,15 (rps-xps.toml:13)");
  CHECK(tx3.written_after.empty());
  CHECK(by_id.at("nic:ens1:xps:tx-1")->reason ==
        "ens1 tx queue 1 follows IRQ 61 (ens1-TxRx-1) as it is now: CPUs 3; with their SMT "
        "siblings and the nearest CPUs no queue's IRQ is on: 1,3,5,7,9,11,13,15 "
        "(rps-xps.toml:17)");
  const Change& rx0 = *by_id.at("nic:ens1:rps:rx-0");
  CHECK(rx0.current == "none");
  CHECK(rx0.reason == "ens1 has 2 RX queues for the 4 cores of its NUMA node 0: steered to the "
                      "node's CPUs 0-3,8-11 (rx queue 0) (rps-xps.toml:16)");
  // eth0 has a queue per core of its node: RPS is left off, and the plan says why.
  CHECK(std::find(plan->notes.begin(), plan->notes.end(),
                  "eth0: 4 RX queues for the 4 cores of its NUMA node 1: a queue per core "
                  "already, rps = \"numa-local\" plans nothing") != plan->notes.end());
  // XPS is written after the IRQs it follows (irq group first, then nic).
  CHECK(plan->changes.front().knob.starts_with("irq:"));
  CHECK(plan->changes.back().knob == "nic:eth0:xps:tx-3");
}

TEST_CASE("plan rps/xps: what the plan accepts, the knobs write; planning again finds nothing") {
  Machine m;
  auto plan = m.plan(fixture());
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  KnobContext ctx{Root::open(m.dir.path).value()};
  ctx.fake_machine = true;
  for (const Change& c : plan->changes) {
    CAPTURE(c.knob);
    auto k = make_knob(c.knob, ctx);
    REQUIRE_MESSAGE(k.ok(), k.error().message());
    Status s = (*k)->write(c.desired);
    CHECK_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message()));
  }
  CHECK(m.mask("ens1", "rx-1", "rps_cpus") == "f0f");
  CHECK(m.mask("eth0", "tx-2", "xps_cpus") == "4444");
  auto again = m.plan(fixture());
  REQUIRE_MESSAGE(again.ok(), again.error().message());
  CHECK(again->changes.empty());
  CHECK(again->unchanged == 16);  // 8 IRQs, 4 + 2 XPS masks, 2 RPS masks
}

TEST_CASE("plan rps/xps: \"off\" empties every mask; a mask the machine cannot take is exit 2") {
  Machine m;
  m.queue("eth0", "rx-2", "rps_cpus", "00ff");
  auto p = load_profile(kFixture, {}).value();
  for (NicRule& r : p.nics) {
    r.rps = RpsPolicy::off;
    r.xps = XpsPolicy::off;
  }
  p.irqs.clear();
  auto plan = m.plan(p);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  CHECK(desired(*plan) == std::map<std::string, std::string>{{"nic:eth0:rps:rx-2", "none"},
                                                             {"nic:eth0:xps:tx-1", "none"},
                                                             {"nic:eth0:xps:tx-2", "none"},
                                                             {"nic:eth0:xps:tx-3", "none"},
                                                             {"nic:eth0:xps:tx-0", "none"}});
  // Only CPUs 0-11 online, where the topology has 16: XPS maps that cover its CPUs (ens1's
  // first, in NIC order) cannot be written.
  m.dir.write("sys/devices/system/cpu/online", "0-11\n");
  auto bad = m.plan(fixture());
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().where == kFixture + ":17:7");
  CHECK(bad.error().what == "nic:ens1:xps:tx-0: CPUs 12,14 are not online (online: 0-11)");
}

TEST_CASE("plan rps/xps: notes for what cannot be steered") {
  Inventory inv = testing::smt_machine(2, 2);
  testing::add_nic(inv, "eth0", std::nullopt, 1, 40);  // no locality, one queue
  testing::FakeCurrent cur;
  Profile p;
  NicRule r;
  r.glob = "eth*";
  r.rps = RpsPolicy::numa_local;
  r.xps = XpsPolicy::follow_irq;
  r.loc = r.rps_loc = r.xps_loc = testing::loc(2);
  p.nics = {r};
  auto plan = make_plan_with(p, inv, cur);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  CHECK(desired(*plan).empty());
  CHECK(plan->notes ==
        std::vector<std::string>{"eth0: no NUMA locality on a machine of several nodes: rps = "
                                 "\"numa-local\" skipped",
                                 "eth0: has one TX queue: nothing to steer, xps of nic rule 'eth*' "
                                 "skipped"});
  // On a machine of one node, that node is local; its 2 cores outnumber the one queue.
  Inventory single = testing::smt_machine(1, 2);
  testing::add_nic(single, "eth0", std::nullopt, 1, 40);
  cur.values_["nic:eth0:rps:rx-0"] = "none";
  auto plan1 = make_plan_with(p, single, cur);
  REQUIRE(plan1.ok());
  CHECK(desired(*plan1).at("nic:eth0:rps:rx-0") == "0-3");
}

TEST_CASE("plan rps/xps: a channel change of the same plan: XPS for the queues after it") {
  // Two sockets of 4 SMT cores; eth0 on node 0 with a queue per CPU of the machine (16),
  // lowered to its socket's 4 cores. XPS is planned for those 4, written after the
  // channel change, and covers every CPU: one apply, and the next plan is empty.
  Inventory inv = testing::smt_machine(2, 4);
  Nic& nic = testing::add_nic(inv, "eth0", 0, 16, 100);
  nic.channels = Channels{};
  nic.channels->combined = 16;
  nic.channels->combined_max = 16;
  testing::FakeCurrent cur;
  for (unsigned q = 0; q < 16; ++q)
    cur.values_["nic:eth0:xps:tx-" + std::to_string(q)] = std::to_string(q);
  Profile p;
  IrqRule irq;
  irq.glob = "eth*";
  irq.policy = IrqPolicy::numa_local;
  irq.loc = testing::loc(2);
  p.irqs = {irq};
  NicRule r;
  r.glob = "eth*";
  r.combined_local_cores = true;
  r.xps = XpsPolicy::follow_irq;
  r.loc = r.xps_loc = testing::loc(5);
  p.nics = {r};
  auto plan = make_plan_with(p, inv, cur);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  std::map<std::string, std::string> xps;
  for (const Change& c : plan->changes)
    if (c.knob.starts_with("nic:eth0:xps:")) {
      xps[c.knob] = c.desired;
      CHECK(c.written_after == "nic:eth0:channels");
    }
  CHECK(desired(*plan).at("nic:eth0:channels") == "combined=4");
  CHECK(xps == std::map<std::string, std::string>{{"nic:eth0:xps:tx-0", "0,4,8,12"},
                                                  {"nic:eth0:xps:tx-1", "1,5,9,13"},
                                                  {"nic:eth0:xps:tx-2", "2,6,10,14"},
                                                  {"nic:eth0:xps:tx-3", "3,7,11,15"}});
  // Apply writes them after the channel change: the plan's order.
  auto at = [&](const std::string& knob) {
    return std::ranges::find(plan->changes, knob, &Change::knob) - plan->changes.begin();
  };
  CHECK(at("nic:eth0:channels") < at("nic:eth0:xps:tx-0"));
  Inventory applied = inv;
  testing::FakeCurrent applied_cur = cur;
  testing::apply_plan(*plan, applied, applied_cur);
  CHECK(applied.nics[0].tx_queues == 4);
  auto again = make_plan_with(p, applied, applied_cur);
  REQUIRE_MESSAGE(again.ok(), again.error().message());
  CHECK(again->changes.empty());
}

TEST_CASE("plan rps/xps: queues a channel change makes are planned, to be written after it") {
  Inventory inv = testing::smt_machine(1, 2);
  Nic& nic = testing::add_nic(inv, "eth0", std::nullopt, 2, 40);
  nic.channels = Channels{};
  nic.channels->combined = 2;
  nic.channels->combined_max = 8;
  testing::FakeCurrent cur;
  cur.values_["nic:eth0:rps:rx-0"] = "none";
  cur.values_["nic:eth0:xps:tx-0"] = "1";
  cur.values_["nic:eth0:xps:tx-1"] = "none";
  Profile p;
  NicRule r;
  r.glob = "eth*";
  r.rps = RpsPolicy::numa_local;
  r.xps = XpsPolicy::off;
  r.combined = 4;
  r.loc = r.rps_loc = r.xps_loc = testing::loc(2);
  p.nics = {r};
  auto plan = make_plan_with(p, inv, cur);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  // Two cores for 4 RX queues: no RPS. XPS off for all 4 TX queues: tx-2 and tx-3 do
  // not exist yet; tx-1, already empty, may be reset by the driver: planned too.
  CHECK(desired(*plan) == std::map<std::string, std::string>{{"nic:eth0:channels", "combined=4"},
                                                             {"nic:eth0:xps:tx-0", "none"},
                                                             {"nic:eth0:xps:tx-1", "none"},
                                                             {"nic:eth0:xps:tx-2", "none"},
                                                             {"nic:eth0:xps:tx-3", "none"}});
  const Change& tx2 = *std::ranges::find(plan->changes, "nic:eth0:xps:tx-2", &Change::knob);
  CHECK(tx2.current == std::nullopt);
  CHECK(tx2.written_after == "nic:eth0:channels");
  CHECK(tx2.reason == "eth0: profile turns XPS off (tx queue 2); written after the channel "
                      "change, which makes this queue (test.toml:2)");
  CHECK(std::ranges::find(plan->changes, "nic:eth0:xps:tx-0", &Change::knob)->current == "1");
  CHECK(std::find(plan->notes.begin(), plan->notes.end(),
                  "eth0: 4 RX queues for the 2 cores of its NUMA node 0: a queue per core "
                  "already, rps = \"numa-local\" plans nothing") != plan->notes.end());
  // follow-irq: the new queues have no IRQ yet; the plan says so, and maps the others.
  p.nics[0].xps = XpsPolicy::follow_irq;
  auto follow = make_plan_with(p, inv, cur);
  REQUIRE(follow.ok());
  CHECK(desired(*follow).count("nic:eth0:xps:tx-2") == 0);
  CHECK(desired(*follow).at("nic:eth0:xps:tx-1") == "0-3");
  CHECK(std::find(follow->notes.begin(), follow->notes.end(),
                  "eth0: tx queues 2-3: made by the channel change, their IRQs are not known "
                  "yet; xps = \"follow-irq\" maps them when planned again afterwards") !=
        follow->notes.end());
  // Where sysfs's queue count disagrees with ethtool's channels, the count after the
  // change cannot be told: the masks wait for the next plan, as the note says.
  inv.nics[0].tx_queues = 6;
  auto odd = make_plan_with(p, inv, cur);
  REQUIRE(odd.ok());
  CHECK(desired(*odd).count("nic:eth0:xps:tx-0") == 0);
  CHECK(std::find(odd->notes.begin(), odd->notes.end(),
                  "eth0: rps/xps/rfs wait for the channel change of this plan (the queue "
                  "count after it cannot be told from ethtool's and sysfs's counts now): plan "
                  "and apply again afterwards") != odd->notes.end());
}
