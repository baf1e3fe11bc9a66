// Test support: a fake node for knobs and planner alike (rollback/fake_machine_test.h is
// the knob-level fake of the rollback tests). A temporary directory laid
// out like / (proc/sys, proc/irq, proc/interrupts, sys/class/net, sys/fs/cgroup,
// etc/systemd/system, a running irqbalance in proc, two intel_pstate cpufreq policies,
// CPU PM QoS files and THP), with the fake ethtool netlink behind eth0 (its MTU range
// too: writes of eth0's mtu outside it are EINVAL), a systemctl that
// starts and stops that irqbalance, a kernel that answers the cpu and mm files' and the
// RFS flow tables' writes as Linux does (fake_sysfs.h), and a fake clock. Knobs write it because their context
// says it is a fake machine; the planner reads it as it reads a --root capture.
#pragma once

#include <filesystem>
#include <string>

#include "base/clock.h"
#include "probes/cpufreq.h"
#include "probes/cpuidle.h"
#include "probes/host.h"
#include "probes/irq.h"
#include "probes/nic.h"
#include "tests/support/fake_netlink.h"
#include "tests/support/fake_sysfs.h"
#include "tests/support/fake_systemctl.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"
#include "tuner/knobs/knob.h"
#include "tuner/plan/plan_test_util.h"

namespace tuner::testing {

/// Two NUMA nodes of 2 cores x 2 threads (node 0: CPUs 0-1,4-5; node 1: 2-3,6-7) and
/// eth0, a PCI NIC on node 1 with queue IRQs 40-43 (RX and TX queues 0-3, unsteered, no
/// RFS flow tables, and no socket flow table) and
/// its link IRQ 44, MTU 1500 (it takes 68 to 9216). cpufreq
/// policies 0 (CPUs 0-3) and 4 (4-7) at intel_pstate's defaults (powersave,
/// balance_performance), no resume latency constraint, THP madvise.
struct FakeNode {
  TempDir dir{"tuner-fake-machine"};
  FakeSysfs sysfs{dir};
  FakeNetlink nl;
  FakeSystemctl sc;
  FakeClock clock;

  FakeNode() {
    dir.write("sys/devices/system/cpu/online", "0-7\n");
    dir.write("sys/devices/system/node/online", "0-1\n");
    dir.write("proc/sys/net/core/somaxconn", "4096\n");
    dir.write("proc/sys/net/core/rps_sock_flow_entries", "0\n");
    dir.write("proc/sys/vm/swappiness", "60\n");
    dir.write("sys/devices/pci0000:00/0000:00:03.0/numa_node", "1\n");
    dir.write("sys/class/net/eth0/operstate", "up\n");
    dir.write("sys/class/net/eth0/mtu", "1500\n");
    std::filesystem::create_directory_symlink("../../../devices/pci0000:00/0000:00:03.0",
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
    for (unsigned q = 0; q < 4; ++q) {  // no steering yet
      dir.write("sys/class/net/eth0/queues/rx-" + std::to_string(q) + "/rps_cpus", "00\n");
      dir.write("sys/class/net/eth0/queues/rx-" + std::to_string(q) + "/rps_flow_cnt", "0\n");
      dir.write("sys/class/net/eth0/queues/tx-" + std::to_string(q) + "/xps_cpus", "00\n");
    }
    std::filesystem::create_directories(dir / "etc/systemd/system");
    dir.write("lib/systemd/system/irqbalance.service", read_test_data("knobs/irqbalance.service"));
    dir.write("proc/1/comm", "init\n");  // a machine always has processes
    start_irqbalance();
    sc.on_start = [this] { start_irqbalance(); };
    sc.on_stop = [this] { std::filesystem::remove_all(dir / "proc/4242"); };
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
    ctx.ethtool = &nl;
    ctx.systemctl = &sc;
    ctx.clock = &clock;
    ctx.fake_machine = true;
    // eth0's MTU as the kernel checks it: inside the range netlink reports, or EINVAL.
    ctx.fake_kernel = [this, cpu_mm = sysfs.kernel()](const std::string& rel, std::string& text) {
      if (!rel.ends_with("/mtu")) return cpu_mm(rel, text);
      auto mtu = parse_u64(text);
      return mtu && *mtu <= UINT32_MAX && nl.mtu_range.takes(static_cast<uint32_t>(*mtu)) ? 0
                                                                                          : EINVAL;
    };
    return ctx;
  }

  /// What `tuner probe` sees: the hand-built topology (hwloc is not faked), the rest
  /// read from the tree and the fake netlink by the real probes.
  Inventory probe() {
    Inventory inv;
    inv.topology = smt_machine(2, 2).topology;
    Root r = root();
    inv.host = probe_host(r, inv.errors);
    inv.irqs = probe_irqs(r, inv.errors);
    inv.nics = probe_nics(r, &nl, inv.errors);
    inv.cpufreq = probe_cpufreq(r, inv.errors);
    inv.cpuidle = probe_cpuidle(r, inv.errors);
    for (Nic& n : inv.nics)
      for (const Irq& i : inv.irqs)
        if (i.device && *i.device == n.name) n.irqs.push_back(i.number);
    return inv;
  }
};

}  // namespace tuner::testing
