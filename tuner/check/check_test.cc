// tuner check's rules on the R910 capture with an overlay per finding
// (tests/fixtures/check/README.md): each overlay makes exactly its finding, at its
// severity; the capture alone makes none above info.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>

#include "base/strings.h"
#include "probes/nic.h"
#include "tests/support/check_node.h"
#include "tests/support/fake_netlink.h"
#include "tests/support/files.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"

namespace tuner {

using testing::check_one;
using testing::findings;
using testing::skipped;
using testing::unreadable;
using Node = testing::CheckNode;

TEST_CASE("check: the healthy R910 capture has no finding above info") {
  Node node;
  CheckReport r = node.check();
  for (const Finding& f : r.findings) {
    CAPTURE(rule_name(f.rule));
    CAPTURE(f.summary);
    CHECK(f.severity == Severity::info);
  }
  CHECK(r.worst() <= std::optional<Severity>(Severity::info));
  // What a capture cannot say is said, not guessed.
  CHECK(skipped(r, Rule::nic_autoneg_off));
  CHECK(skipped(r, Rule::nic_counters_rising));
  CHECK(skipped(r, Rule::irqbalance_moves_pinned));     // no processes in the capture
  CHECK(skipped(r, Rule::cpu_governor_powersave));      // no profile given
  CHECK(skipped(r, Rule::gpu_cuda_newer_than_driver));  // no NVIDIA driver
  CHECK(skipped(r, Rule::cpu_vulnerable));              // a kernel before 4.15
  CHECK(skipped(r, Rule::clock_unsynchronised));        // a capture has no adjtimex
  // ...and none of it for want of reading: the capture holds all it can.
  CHECK(r.unreadable() == 0);
}

TEST_CASE("check: a PCIe link at x4 of x8 is an error") {
  Node node{"pcie-narrow"};
  CheckReport r = node.check();
  check_one(r, Rule::pcie_link_degraded, "0000:43:00.0", Severity::error);
  CHECK(r.findings.size() == 1);
}

TEST_CASE("check: a NIC's queue IRQs all on one CPU") {
  Node node{"irq-one-cpu"};
  CheckReport r = node.check();
  check_one(r, Rule::irq_queues_one_cpu, "eth0", Severity::warning);
  CHECK(findings(r, Rule::irq_queues_one_cpu)[0]->evidence.size() == 8);
  CHECK(r.findings.size() == 1);
}

TEST_CASE("check: queue IRQs on another NUMA node than the NIC") {
  Node node{"irq-remote"};
  CheckReport r = node.check();
  check_one(r, Rule::irq_queues_remote_node, "eth0", Severity::warning);
  CHECK(findings(r, Rule::irq_queues_remote_node)[0]->summary.starts_with("8 of 8 queue IRQs"));
  CHECK(r.findings.size() == 1);
}

TEST_CASE("check: irqbalance running while a kept run pinned IRQs it may move") {
  SUBCASE("not banned: it moves them") {
    Node node{"irqbalance"};
    CheckReport r = node.check();
    check_one(r, Rule::irqbalance_moves_pinned, "irqbalance", Severity::warning);
    const Finding& f = *findings(r, Rule::irqbalance_moves_pinned)[0];
    CHECK(f.evidence[0].what == "state.json irq:64:affinity");
    CHECK(f.evidence[1].what == "state.json irq:65:affinity");
    CHECK(f.summary.find("20240501T120000Z-1a2b") != std::string::npos);
  }
  SUBCASE("banned by the drop-in: nothing to say") {
    Node node({"irqbalance", "irqbalance-banned"});
    CHECK(findings(node.check(), Rule::irqbalance_moves_pinned).empty());
  }
  SUBCASE("nothing kept: nothing to say") {
    Node node{"irqbalance"};
    std::filesystem::remove(node.state_dir() + "/state.json");
    CheckReport r = node.check();
    CHECK(findings(r, Rule::irqbalance_moves_pinned).empty());
    CHECK_FALSE(skipped(r, Rule::irqbalance_moves_pinned));
  }
}

TEST_CASE("check: the powersave governor under a profile that asks for performance") {
  GatherOptions opt;
  opt.profile = "throughput";
  opt.profile_governor = "performance";
  SUBCASE("acpi-cpufreq holds the lowest frequency: error") {
    Node node{"governor-powersave"};
    check_one(node.check(opt), Rule::cpu_governor_powersave, "policy0", Severity::error);
  }
  SUBCASE("intel_pstate's powersave still scales: warning") {
    Node node{"governor-pstate"};
    check_one(node.check(opt), Rule::cpu_governor_powersave, "policy0", Severity::warning);
  }
  SUBCASE("performance already: nothing") {
    Node node{"healthy-cpufreq"};
    CHECK(node.check(opt).findings.empty());
  }
  SUBCASE("a profile without a governor: skipped, with why") {
    Node node{"governor-powersave"};
    opt.profile_governor.reset();
    CheckReport r = node.check(opt);
    CHECK(findings(r, Rule::cpu_governor_powersave).empty());
    CHECK(skipped(r, Rule::cpu_governor_powersave));
  }
}

namespace {

/// A clock whose sleep is the window passing: the counters move meanwhile.
class CountersMove final : public Clock {
 public:
  explicit CountersMove(std::string root) : root_(std::move(root)) {}
  time_point now() override { return {}; }
  void sleep_for(duration d) override {
    slept += d;
    std::filesystem::copy_file(testing::test_data_path("check/counters-after/proc/net/dev"),
                               root_ + "/proc/net/dev",
                               std::filesystem::copy_options::overwrite_existing);
  }
  duration slept{};

 private:
  std::string root_;
};

}  // namespace

TEST_CASE("check: drops and errors rising over the window") {
  Node node{"counters"};
  CountersMove clock(node.fx.root());
  GatherOptions opt;
  opt.window = std::chrono::seconds(5);
  opt.clock = &clock;
  CheckReport r = node.check(opt);
  CHECK(clock.slept == std::chrono::seconds(5));
  auto got = findings(r, Rule::nic_counters_rising);
  REQUIRE(got.size() == 2);
  // Most severe first: eth2's receive errors, then eth0's drops.
  CHECK(got[0]->subject == "eth2");
  CHECK(got[0]->severity == Severity::error);
  CHECK(got[0]->evidence[0].value == "+3");
  CHECK(got[1]->subject == "eth0");
  CHECK(got[1]->severity == Severity::warning);
  CHECK(got[1]->evidence[0].value == "+120");

  SUBCASE("--window 0 reads nothing and says so") {
    opt.window = std::chrono::milliseconds(0);
    CheckReport none = node.check(opt);
    CHECK(findings(none, Rule::nic_counters_rising).empty());
    CHECK(skipped(none, Rule::nic_counters_rising));
  }
}

namespace {

/// A window during which eth1 is unregistered, as the kernel does it: its line leaves
/// proc/net/dev and its sysfs directory goes, while the others' counters move.
class Eth1Goes final : public Clock {
 public:
  explicit Eth1Goes(std::string root) : root_(std::move(root)) {}
  time_point now() override { return {}; }
  void sleep_for(duration /*window*/) override {
    std::string dev;
    // The text outlives the views split() returns into it.
    const std::string text = testing::read_test_data("check/counters-after/proc/net/dev");
    for (std::string_view line : split(text, '\n'))
      if (trim(line).find("eth1:") != 0 && !line.empty()) dev += std::string(line) + "\n";
    testing::write_file(root_ + "/proc/net/dev", dev);
    std::filesystem::remove(root_ + "/sys/class/net/eth1");
    std::filesystem::remove_all(root_ + "/sys/devices/pci0000:00/0000:00:05.0/0000:02:00.1/net");
  }

 private:
  std::string root_;
};

}  // namespace

TEST_CASE("check: a NIC that disappears during the window hides nobody's counters") {
  Node node{"counters"};
  Eth1Goes clock(node.fx.root());
  GatherOptions opt;
  opt.window = std::chrono::seconds(5);
  opt.clock = &clock;
  CheckReport r = node.check(opt);
  check_one(r, Rule::nic_disappeared, "eth1", Severity::warning);
  const Finding& gone = *findings(r, Rule::nic_disappeared)[0];
  CHECK(gone.summary.starts_with("NIC eth1 disappeared during the 5s window"));
  CHECK(gone.evidence[1].value == "there");  // at the start
  CHECK(gone.evidence[2].value == "gone");   // at the end
  // The others' counters are still compared: eth2's errors, eth0's drops.
  auto rising = findings(r, Rule::nic_counters_rising);
  REQUIRE(rising.size() == 2);
  CHECK(rising[0]->subject == "eth2");
  CHECK(rising[1]->subject == "eth0");
  CHECK_FALSE(skipped(r, Rule::nic_counters_rising));
}

TEST_CASE("check: an empty tree checks nothing and says so for every rule") {
  testing::TempDir empty;
  Target target{Root::open(empty.path).value(), {}};
  GatherOptions opt;
  opt.window = std::chrono::seconds(1);  // asked for, and still nothing to sample
  opt.state_dir = empty.path + "/var/lib/tuner";
  CheckReport r = run_checks(gather_check_input(target, probe_target(target), opt));
  CHECK(r.findings.empty());
  for (Rule rule : all_rules()) {
    CAPTURE(rule_name(rule));
    CHECK(skipped(r, rule));
  }
  // What the probes failed to read, rather than what a capture cannot hold.
  for (Rule rule : {Rule::nic_counters_rising, Rule::nic_disappeared, Rule::pcie_link_degraded,
                    Rule::irq_queues_one_cpu, Rule::irq_queues_remote_node,
                    Rule::gpu_without_local_nic, Rule::gpu_driver_mixed, Rule::cpu_vulnerable}) {
    CAPTURE(rule_name(rule));
    CHECK(unreadable(r, rule));
  }
  CHECK_FALSE(unreadable(r, Rule::nic_autoneg_off));  // a capture never has link modes
  CHECK(r.unreadable() == 8);
}

TEST_CASE("check: link modes (ethtool netlink, faked) on the capture's NICs") {
  Node node;
  testing::FakeNetlink nl;  // 1000baseT copper, autoneg, every mode advertised
  auto with_links = [&](CheckInput& in) {
    std::vector<ProbeError> errors;
    in.inventory.nics = probe_nics(node.root, &nl, errors);
    in.netlink = true;
  };
  SUBCASE("autonegotiated 1000 full: nothing") {
    CHECK(node.check({}, with_links).findings.empty());
  }
  SUBCASE("autoneg off: a warning per physical NIC") {
    nl.link.autoneg = false;
    CheckReport r = node.check({}, with_links);
    auto got = findings(r, Rule::nic_autoneg_off);
    CHECK(got.size() == 5);  // eth0-3 and ib0; lo is virtual
    for (const Finding* f : got) CHECK(f->severity == Severity::warning);
  }
  SUBCASE("half duplex: error") {
    nl.link.duplex = Duplex::half;
    CheckReport r = node.check({}, with_links);
    CHECK(findings(r, Rule::nic_half_duplex).size() == 5);
    CHECK(r.worst() == Severity::error);
  }
  SUBCASE("100 Mb/s where both ends do 1000: warning, with the partner's modes") {
    nl.link.speed_mbps = 100;
    nl.link.partner_modes = {"100baseT/Full", "1000baseT/Full"};
    CheckReport r = node.check({}, with_links);
    auto got = findings(r, Rule::nic_speed_below_capability);
    REQUIRE(got.size() == 5);
    CHECK(got[0]->severity == Severity::warning);
    CHECK(got[0]->summary.find("both support 1 Gb/s") != std::string::npos);
  }
  SUBCASE("100 Mb/s and a partner that does only 100: nothing") {
    nl.link.speed_mbps = 100;
    nl.link.partner_modes = {"100baseT/Full"};
    CheckReport r = node.check({}, with_links);
    CHECK(findings(r, Rule::nic_speed_below_capability).empty());
  }
  SUBCASE("100 Mb/s, the partner unknown: info only") {
    nl.link.speed_mbps = 100;
    CheckReport r = node.check({}, with_links);
    auto got = findings(r, Rule::nic_speed_below_capability);
    REQUIRE(got.size() == 5);
    CHECK(got[0]->severity == Severity::info);
  }
}

TEST_CASE("check: GPUs without a NIC on their node, and GPUs on different drivers") {
  // None of the sysfs captures has GPUs (the real exports that do are run through the
  // binary in check_command_test.cc): they are added to the R910's inventory, and ib0
  // gets the node its function's numa_node file says (hwloc gives this capture's PCI
  // devices no locality).
  Node node;
  auto gpu = [](std::string addr, int numa, std::optional<std::string> driver) {
    PciDevice d;
    d.address = std::move(addr);
    d.kind = "gpu";
    d.vendor_id = 0x10de;
    d.class_id = 0x0302;
    d.numa_node = numa;
    d.driver = std::move(driver);
    return d;
  };
  auto ib0_on_node2 = [](CheckInput& in) {
    for (PciDevice& d : in.inventory.topology.pci)
      if (d.address == "0000:43:00.0") d.numa_node = 2;
  };
  SUBCASE("one GPU beside ib0, one on node 0 alone") {
    CheckReport r = node.check({}, [&](CheckInput& in) {
      ib0_on_node2(in);
      in.inventory.topology.pci.push_back(gpu("0000:44:00.0", 2, "nvidia"));
      in.inventory.topology.pci.push_back(gpu("0000:05:00.0", 0, "nvidia"));
    });
    check_one(r, Rule::gpu_without_local_nic, "0000:05:00.0", Severity::warning);
    CHECK(findings(r, Rule::gpu_driver_mixed).empty());
  }
  SUBCASE("nvidia beside vfio-pci") {
    CheckReport r = node.check({}, [&](CheckInput& in) {
      ib0_on_node2(in);
      in.inventory.topology.pci.push_back(gpu("0000:44:00.0", 2, "nvidia"));
      in.inventory.topology.pci.push_back(gpu("0000:45:00.0", 2, "vfio-pci"));
    });
    check_one(r, Rule::gpu_driver_mixed, "10de", Severity::warning);
    CHECK(findings(r, Rule::gpu_without_local_nic).empty());
  }
}

TEST_CASE("check: severities and rules have one spelling each way") {
  for (Severity s : {Severity::info, Severity::warning, Severity::error})
    CHECK(parse_severity(severity_name(s)) == s);
  CHECK_FALSE(parse_severity("warn").has_value());
  std::set<std::string> names;
  for (Rule r : all_rules()) names.insert(rule_name(r));
  CHECK(names.size() == all_rules().size());
  CHECK_FALSE(names.contains("?"));
}

}  // namespace tuner
