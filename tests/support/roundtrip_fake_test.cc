// The property of issue #8 on a fake machine, for every knob kind the planner plans:
// apply a plan, plan again: nothing to do; roll back, plan again: the first plan.
// The machine is a temporary directory laid out like / (proc/sys, proc/irq,
// proc/interrupts, sys/class/net, sys/fs/cgroup, etc/systemd/system, a running
// irqbalance in proc, two intel_pstate cpufreq policies, CPU PM QoS files and THP),
// with tests/support's fake ethtool netlink behind eth0, a systemctl that starts and
// stops that irqbalance, a kernel that answers the cpu and mm files' writes as Linux
// does (tests/support/fake_sysfs.h), and a fake clock. Knobs write it
// because their context says it is a fake machine; the planner reads it as it reads a
// --root capture. Process bindings (numa:pid) need a real process:
// roundtrip_live_test.cc.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include "base/clock.h"
#include "probes/cpufreq.h"
#include "probes/host.h"
#include "probes/irq.h"
#include "probes/nic.h"
#include "tests/support/fake_netlink.h"
#include "tests/support/fake_sysfs.h"
#include "tests/support/fake_systemctl.h"
#include "tests/support/files.h"
#include "tests/support/roundtrip.h"
#include "tests/support/temp_dir.h"
#include "tuner/knobs/knob.h"
#include "tuner/plan/plan_test_util.h"
#include "tuner/plan/planner.h"
#include "tuner/profile/parse.h"

namespace tuner {
namespace {

namespace fs = std::filesystem;

/// Two NUMA nodes of 2 cores x 2 threads (node 0: CPUs 0-1,4-5; node 1: 2-3,6-7) and
/// eth0, a PCI NIC on node 1 with queue IRQs 40-43 and its link IRQ 44. cpufreq
/// policies 0 (CPUs 0-3) and 4 (4-7) at intel_pstate's defaults (powersave,
/// balance_performance), no resume latency constraint, THP madvise.
struct FakeMachine {
  testing::TempDir dir{"tuner-fake-machine"};
  testing::FakeSysfs sysfs{dir};
  testing::FakeNetlink nl;
  testing::FakeSystemctl sc;
  FakeClock clock;

  FakeMachine() {
    dir.write("sys/devices/system/cpu/online", "0-7\n");
    dir.write("sys/devices/system/node/online", "0-1\n");
    dir.write("proc/sys/net/core/somaxconn", "4096\n");
    dir.write("proc/sys/vm/swappiness", "60\n");
    dir.write("sys/devices/pci0000:00/0000:00:03.0/numa_node", "1\n");
    dir.write("sys/class/net/eth0/operstate", "up\n");
    fs::create_directory_symlink("../../../devices/pci0000:00/0000:00:03.0",
                                 dir / "sys/class/net/eth0/device");
    std::string interrupts =
        "           CPU0       CPU1       CPU2       CPU3       CPU4       CPU5"
        "       CPU6       CPU7\n";
    for (unsigned irq = 40; irq <= 44; ++irq) {
      std::string name = irq < 44 ? "eth0-TxRx-" + std::to_string(irq - 40) : "eth0";
      interrupts += "  " + std::to_string(irq) +
                    ":          0          0          0          0          0          0          0"
                    "          0  IR-PCI-MSI 1572864-edge      " +
                    name + "\n";
      dir.write("proc/irq/" + std::to_string(irq) + "/smp_affinity_list", "0-7\n");
    }
    dir.write("proc/interrupts", interrupts);
    fs::create_directories(dir / "etc/systemd/system");
    dir.write("lib/systemd/system/irqbalance.service",
              testing::read_test_data("knobs/irqbalance.service"));
    dir.write("proc/1/comm", "init\n");  // a machine always has processes
    start_irqbalance();
    sc.on_start = [this] { start_irqbalance(); };
    sc.on_stop = [this] { fs::remove_all(dir / "proc/4242"); };
    dir.write("sys/fs/cgroup/jobs/cpuset.cpus", "0-7\n");
    dir.write("sys/fs/cgroup/jobs/cpuset.mems", "0-1\n");
    sysfs.policy({.id = 0, .cpus = "0 1 2 3"});
    sysfs.policy({.id = 4, .cpus = "4 5 6 7"});
    sysfs.resume_latency(0, 7);
    sysfs.thp();
  }

  void start_irqbalance() const { dir.write("proc/4242/comm", "irqbalance\n"); }

  Root root() const { return Root::open(dir.path).value(); }

  /// What knobs of this machine see; the context says the root may be written.
  KnobContext context() {
    KnobContext ctx{root()};
    ctx.netlink = &nl;
    ctx.systemctl = &sc;
    ctx.clock = &clock;
    ctx.fake_machine = true;
    ctx.fake_kernel = sysfs.kernel();
    return ctx;
  }

  /// What `tuner probe` sees: the hand-built topology (hwloc is not faked), the rest
  /// read from the tree and the fake netlink by the real probes.
  Inventory probe() {
    Inventory inv;
    inv.topology = testing::smt_machine(2, 2).topology;
    Root r = root();
    inv.host = probe_host(r, inv.errors);
    inv.irqs = probe_irqs(r, inv.errors);
    inv.nics = probe_nics(r, &nl, inv.errors);
    inv.cpufreq = probe_cpufreq(r, inv.errors);
    for (Nic& n : inv.nics)
      for (const Irq& i : inv.irqs)
        if (i.device && *i.device == n.name) n.irqs.push_back(i.number);
    return inv;
  }
};

const char* const kProfile = R"(
[profile]
name = "roundtrip"

[sysctl]
"net.core.somaxconn" = 8192
"vm.swappiness" = 10

[irq."eth*"]
policy = "numa-local"
irqbalance = "IRQBALANCE"

[nic."eth*"]
speed = 100
duplex = "full"
channels = { combined = 8 }
rings = { rx = 4096 }

[[numa.bind]]
unit = "trainer.service"
near = "eth0"

[[numa.bind]]
unit = "batch.slice"
near = "node:0"

[[numa.bind]]
cgroup = "jobs"
node = 1

[cpu]
governor = "performance"
epp = "performance"
resume_latency_us = "n/a"
cpus = "4-7"

[mm]
thp = "never"
thp_defrag = "defer+madvise"
)";

Profile profile(const std::string& irqbalance) {
  std::string text = kProfile;
  text.replace(text.find("IRQBALANCE"), 10, irqbalance);
  auto parsed = parse_profile_file(text, "roundtrip.toml");
  REQUIRE_MESSAGE(parsed.ok(), (parsed.ok() ? "" : parsed.error().message()));
  Profile p = parsed->profile;
  p.chain = {p.name};
  return p;
}

bool plans(const Plan& p, const std::string& knob) {
  return std::ranges::any_of(p.changes, [&](const Change& c) { return c.knob == knob; });
}

/// The round trip on a fresh fake machine; returns the first plan.
Plan check_round_trip(const Profile& p) {
  FakeMachine m;
  KnobContext ctx = m.context();
  auto plan = [&]() { return make_plan(p, m.probe(), Target{m.root(), std::nullopt}); };
  KnobFactory make = [&ctx](const std::string& id) { return make_knob(id, ctx); };
  testing::TempDir state("tuner-roundtrip-state");
  testing::RoundTrip rt = testing::round_trip(plan, make, state / "state");
  INFO(rt.error);
  REQUIRE(rt.error.empty());
  INFO("first plan:\n" << testing::describe_plan(rt.first));
  INFO("after apply:\n" << testing::describe_plan(rt.after_apply));
  CHECK(rt.after_apply.changes.empty());
  CHECK(rt.after_apply.unchanged == rt.first.changes.size() + rt.first.unchanged);
  CHECK(testing::describe_plan(rt.after_rollback) == testing::describe_plan(rt.first));
  return rt.first;
}

}  // namespace

TEST_CASE("roundtrip fake: every kind, apply then plan is empty, rollback then plan is the first") {
  Plan first = check_round_trip(profile("ban"));
  // Every kind was in the plan, so the round trip covered it.
  for (const char* knob :
       {"sysctl:net.core.somaxconn", "sysctl:vm.swappiness", "irq:40:affinity", "irq:43:affinity",
        "nic:eth0:link", "nic:eth0:channels", "nic:eth0:rings", "numa:unit:trainer.service",
        "numa:unit:batch.slice", "numa:cgroup:/sys/fs/cgroup/jobs", "irqbalance:banned",
        "cpu:policy4:governor", "cpu:policy4:epp", "cpu:4:resume_latency", "cpu:7:resume_latency",
        "mm:thp", "mm:thp_defrag"}) {
    CAPTURE(knob);
    CHECK(plans(first, knob));
  }
  CHECK(!plans(first, "irq:44:affinity"));       // the link IRQ stays where it is
  CHECK(!plans(first, "cpu:policy0:governor"));  // outside cpus = "4-7"
  CHECK(!plans(first, "cpu:3:resume_latency"));
}

TEST_CASE("roundtrip fake: cpu and mm alone, each kind in its own group") {
  // Governors and preferences in one group: rollback puts the preference back after
  // the governor (intel_pstate refuses it under performance), and the plan comes back.
  Profile p = profile("leave");
  p.irqs.clear();
  p.nics.clear();
  p.binds.clear();
  p.sysctls.clear();
  p.cpu.cpus.reset();
  p.cpu.resume_latency->value = "20";
  p.cpu.epp->group = p.cpu.governor->group = "power";
  Plan first = check_round_trip(p);
  CHECK(first.changes.size() == 2 + 2 + 8 + 2);
  CHECK(first.changes[0].knob == "cpu:0:resume_latency");  // group "cpu" sorts first
  CHECK(plans(first, "cpu:policy0:epp"));
}

TEST_CASE("roundtrip fake: irqbalance stopped and started again") {
  Plan first = check_round_trip(profile("stop"));
  CHECK(plans(first, "irqbalance:service"));
  CHECK(!plans(first, "irqbalance:banned"));
}

TEST_CASE("roundtrip fake: a knob on a captured tree reads but never writes") {
  FakeMachine m;
  KnobContext ctx = m.context();
  ctx.fake_machine = false;  // now it is just a tree, as under --root
  for (const char* id : {"sysctl:vm.swappiness", "irq:40:affinity", "numa:unit:batch.slice",
                         "numa:cgroup:/sys/fs/cgroup/jobs", "irqbalance:banned", "nic:eth0:rings",
                         "cpu:policy0:governor", "cpu:policy4:epp", "cpu:3:resume_latency",
                         "mm:thp", "mm:thp_defrag"}) {
    CAPTURE(id);
    auto k = make_knob(id, ctx);
    REQUIRE_MESSAGE(k.ok(), (k.ok() ? "" : k.error().message()));
    auto before = (*k)->read();
    REQUIRE(before.ok());
    Status st = (*k)->write(*before);
    REQUIRE(!st.ok());
    CHECK(st.error().is(ErrorKind::denied));
    CHECK(st.error().what.find("live machine") != std::string::npos);
    CHECK((*k)->read().value() == *before);
  }
  CHECK(m.nl.ring_sets.empty());
  CHECK(m.sc.calls.empty());
  CHECK(m.sysfs.writes.empty());
}

}  // namespace tuner
