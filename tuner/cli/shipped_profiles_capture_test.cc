// The shipped profiles' NIC rules on real machines' captures (issue 42, item 7): a
// capture's sysfs says each link's speed, so min_speed decides there as on the machine,
// and `tuner plan --root` shows the NIC half of a plan.
//
// The VE host (tests/fixtures/machines/sysfs/32intel64-2p8co2t+8ve) has an X722 port,
// enp96s0f0 (i40e, node 0), captured up at 1000 Mb/s, and enp96s0f1 down. The overlay
// tests/fixtures/irq/x722 adds its queue IRQs, queues and `ethtool -l`/`-g` output as a
// Debian 12 kernel shows them (reconstructed, tests/fixtures/irq/README.md).
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "base/cpuset.h"
#include "base/strings.h"
#include "tests/support/cli.h"
#include "tests/support/files.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"

using namespace tuner;
using testing::run_tuner;
using testing::shell_quote;

namespace {

const std::string kShipped = TUNER_SOURCE_PROFILES;
const std::string kX722Net =
    "/sys/devices/pci0000:5d/0000:5d:02.0/0000:5e:00.0/0000:5f:03.0/0000:60:00.0/net/enp96s0f0";

struct PlanOut {
  std::map<std::string, std::string> desired;  // knob -> desired
  std::vector<std::string> notes;
  std::vector<std::pair<std::string, std::string>> order;  // (group, knob), as written
  /// A note about port (notes with the same text name all their ports: "a, b: ...")
  /// that holds text.
  bool noted(const std::string& port, const std::string& text) const {
    for (const std::string& n : notes) {
      std::size_t colon = n.find(": ");
      if (colon == std::string::npos || n.find(text, colon) == std::string::npos) continue;
      for (std::string_view s : split(std::string_view(n).substr(0, colon), ','))
        if (trim(s) == port) return true;
    }
    return false;
  }
};

PlanOut plan(const std::string& root, const std::string& profile,
             const std::string& profile_path = kShipped) {
  auto r = run_tuner("plan --json --profile-path " + shell_quote(profile_path) + " --profile " +
                     profile + " --root " + shell_quote(root));
  REQUIRE_MESSAGE(r.code == 0, r.err);
  auto j = nlohmann::json::parse(r.out);
  PlanOut out;
  for (const auto& c : j["changes"]) {
    out.desired[c["knob"]] = c["desired"];
    out.order.emplace_back(c["group"], c["knob"]);
  }
  for (const auto& n : j["notes"]) out.notes.push_back(n);
  return out;
}

testing::ScopedFixture x722() {
  return testing::ScopedFixture("32intel64-2p8co2t+8ve.tar.bz2",
                                std::string(TUNER_TEST_DATA) + "/irq/x722");
}

/// The IRQ knobs the plan places: "irq:53:affinity" -> 53.
std::set<unsigned> placed_irqs(const PlanOut& p) {
  std::set<unsigned> out;
  for (const auto& [knob, want] : p.desired)
    if (knob.rfind("irq:", 0) == 0 && knob.ends_with(":affinity"))
      out.insert(static_cast<unsigned>(std::stoul(knob.substr(4))));
  return out;
}

}  // namespace

TEST_CASE("shipped profiles on a capture: a 10G data port gets the NIC rules") {
  testing::ScopedFixture fx = x722();
  // As if the port were cabled to a 10 Gb/s switch port, the X722's own speed.
  testing::write_file(fx.root() + kX722Net + "/speed", "10000\n");
  const CpuSet node0 = CpuSet::parse("0-7,16-23").value();
  for (const char* name : {"network-throughput", "latency", "inference", "dl-training"}) {
    CAPTURE(name);
    PlanOut p = plan(fx.root(), name);
    // Its 32 queue IRQs (53-84) on its own node, each of the first 8 on a core of its own;
    // the misc vector (52) and the down port's (159) left alone.
    std::set<unsigned> irqs = placed_irqs(p);
    REQUIRE(irqs.size() == 32);
    CHECK(*irqs.begin() == 53);
    CHECK(*irqs.rbegin() == 84);
    std::set<std::string> first8;
    for (unsigned irq = 53; irq < 85; ++irq) {
      std::string cpus = p.desired["irq:" + std::to_string(irq) + ":affinity"];
      CHECK(CpuSet::parse(cpus)->is_subset_of(node0));
      if (irq < 61) first8.insert(cpus);
    }
    CHECK(first8.size() == 8);
    // One combined queue per physical core of its socket: 8 of the 32 it has now
    // (from the capture's `ethtool -l`).
    CHECK(p.desired["nic:enp96s0f0:channels"] == "combined=8");
    CHECK(p.noted("enp96s0f0", "channels combined = \"local-cores\": 8 physical cores"));
    // XPS for the 8 queues there will be after the channel change, every CPU mapped.
    CpuSet mapped;
    for (unsigned q = 0; q < 8; ++q) {
      std::string knob = "nic:enp96s0f0:xps:tx-" + std::to_string(q);
      REQUIRE(p.desired.contains(knob));
      mapped = mapped.unite(CpuSet::parse(p.desired[knob]).value());
    }
    CHECK_FALSE(p.desired.contains("nic:enp96s0f0:xps:tx-8"));
    CHECK(mapped == CpuSet::parse("0-31").value());  // both sockets, SMT siblings too
    // latency's RFS: scaling.rst's 32768-entry socket table, 4096 for each of the 8 RX
    // queues there will be; the others steer no flows.
    bool rfs = std::string(name) == "latency";
    auto wants = [&](const std::string& knob) {
      auto it = p.desired.find(knob);
      return it == p.desired.end() ? std::string("(none)") : it->second;
    };
    CHECK(wants("sysctl:net.core.rps_sock_flow_entries") == (rfs ? "32768" : "(none)"));
    for (unsigned q = 0; q < 8; ++q)
      CHECK(wants("nic:enp96s0f0:rfs:rx-" + std::to_string(q)) == (rfs ? "4096" : "(none)"));
    CHECK_FALSE(p.desired.contains("nic:enp96s0f0:rfs:rx-8"));
    // One group places the IRQs and sizes the queues XPS follows (review X5), written
    // in that order: the channel change first (i40e rebuilds its vectors), then the
    // IRQs, then XPS and RFS, which follow them.
    std::vector<std::string> kinds;
    for (const auto& [group, knob] : p.order) {
      if (knob.rfind("irq:", 0) != 0 && knob.rfind("nic:enp96s0f0:", 0) != 0) continue;
      CHECK(group == "placement");
      std::string kind = knob.rfind("irq:", 0) == 0 ? "irq" : knob.substr(14, 3);
      if (kinds.empty() || kinds.back() != kind) kinds.push_back(kind);
    }
    CHECK(kinds == (rfs ? std::vector<std::string>{"cha", "irq", "rfs", "xps"}
                        : std::vector<std::string>{"cha", "irq", "xps"}));
    // The port that is down: left alone, saying why.
    for (const auto& [knob, want] : p.desired) CHECK(knob.find("enp96s0f1") == std::string::npos);
    CHECK(p.noted("enp96s0f1", "link speed unknown (down, or not probed)"));
    // i40e resets the link when its channels change; the capture has no routes.
    CHECK(p.noted("enp96s0f0", "changing channels resets the link on i40e"));
    CHECK(p.noted("enp96s0f0", "the routes are not known here (no proc/net/route)"));
  }
}

TEST_CASE("shipped profiles on a capture: the port with the default route is left alone") {
  testing::ScopedFixture fx = x722();
  testing::write_file(fx.root() + kX722Net + "/speed", "10000\n");
  // The 10G port is the one the operator reaches the node by: the management LOM.
  auto route_via = [&](const std::string& port) {
    testing::write_file(fx.root() + "/proc/net/route",
                        "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU"
                        "\tWindow\tIRTT\n" +
                            port + "\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n");
  };
  route_via("enp96s0f0");
  for (const char* name : {"network-throughput", "latency", "inference", "dl-training"}) {
    CAPTURE(name);
    PlanOut p = plan(fx.root(), name);
    CHECK(placed_irqs(p).empty());
    for (const auto& [knob, want] : p.desired) CHECK(knob.find("enp96s0f0") == std::string::npos);
    CHECK(p.noted("enp96s0f0", "holds the default route (the management or front-end port): "
                               "rule '*' says default_route = false, skipped"));
  }
  // The management address on a bond the port is enslaved to: the port carries it.
  route_via("bond0");
  std::filesystem::create_directory_symlink("../../../../../../virtual/net/bond0",
                                            fx.root() + kX722Net + "/master");
  PlanOut bonded = plan(fx.root(), "network-throughput");
  CHECK(placed_irqs(bonded).empty());
  CHECK_FALSE(bonded.desired.contains("nic:enp96s0f0:channels"));
  CHECK(bonded.noted("enp96s0f0", "holds the default route"));
  std::filesystem::remove(fx.root() + kX722Net + "/master");
  // An OVN-Kubernetes node: the port is in an OVS bridge, so the kernel made it a slave
  // of ovs-system, and the route is on the bridge's internal port br-ex, which links to
  // no port: every port under ovs-system carries it.
  for (const char* dev : {"ovs-system", "br-ex"}) {
    testing::write_file(fx.root() + "/sys/devices/virtual/net/" + dev + "/type", "1\n");
    std::filesystem::create_directory_symlink(std::string("../../devices/virtual/net/") + dev,
                                              fx.root() + "/sys/class/net/" + dev);
  }
  std::filesystem::create_directory_symlink("../../../../../../virtual/net/ovs-system",
                                            fx.root() + kX722Net + "/master");
  route_via("br-ex");
  PlanOut ovs = plan(fx.root(), "network-throughput");
  CHECK(placed_irqs(ovs).empty());
  for (const auto& [knob, want] : ovs.desired) CHECK(knob.find("enp96s0f0") == std::string::npos);
  CHECK(ovs.noted("enp96s0f0", "holds the default route through Open vSwitch (br-ex; ports "
                               "under ovs-system cannot be told apart): rule '*' says "
                               "default_route = false, skipped"));
  std::filesystem::remove(fx.root() + kX722Net + "/master");
  for (const char* dev : {"ovs-system", "br-ex"}) {
    std::filesystem::remove(fx.root() + "/sys/class/net/" + dev);
    std::filesystem::remove_all(fx.root() + "/sys/devices/virtual/net/" + dev);
  }
  route_via("enp96s0f0");
  // A local profile that names it takes it back.
  testing::TempDir dir("tuner-shipped-mgmt");
  dir.write("site.toml", "[profile]\nname = \"site\"\ninclude = [\"network-throughput\"]\n"
                         "[irq.\"*\"]\npolicy = \"numa-local\"\nmin_speed = 10000\n"
                         "ports = [\"enp96s0f0\"]\n");
  PlanOut named = plan(fx.root(), "site", dir.path + ":" + kShipped);
  CHECK(placed_irqs(named).size() == 32);
  // The default route through another port (IPv6 only here): a data port again.
  std::filesystem::remove(fx.root() + "/proc/net/route");
  std::string zero(32, '0');
  testing::write_file(
      fx.root() + "/proc/net/ipv6_route",
      zero + " 00 " + zero + " 00 " + zero + " 00000400 00000003 00000000 00000003     eno1\n");
  PlanOut data = plan(fx.root(), "network-throughput");
  CHECK(placed_irqs(data).size() == 32);
  CHECK(data.desired["nic:enp96s0f0:channels"] == "combined=8");
  CHECK_FALSE(data.noted("enp96s0f0", "the routes are not known here"));
}

TEST_CASE("shipped profiles on a capture: the plan names the sysctls pods will not get") {
  // A pod's network namespace starts these at the kernel's default (profiles/README.md,
  // "Review"); tcp_rmem and tcp_wmem it copies, rmem_max it shares: not named.
  testing::ScopedFixture fx = x722();
  auto netns_note = [](const PlanOut& p) {
    for (const std::string& n : p.notes)
      if (n.starts_with("net.* sysctls are per network namespace")) return n;
    return std::string();
  };
  PlanOut inference = plan(fx.root(), "inference");
  CHECK(netns_note(inference).find("start net.core.somaxconn and net.ipv4.tcp_notsent_lowat at "
                                   "the kernel's default") != std::string::npos);
  PlanOut throughput = plan(fx.root(), "throughput");
  REQUIRE(throughput.desired.contains("sysctl:net.ipv4.tcp_slow_start_after_idle"));
  std::string note = netns_note(throughput);
  CHECK(note.find("net.ipv4.tcp_mtu_probing and net.ipv4.tcp_slow_start_after_idle at the "
                  "kernel's default") != std::string::npos);
  for (const char* not_named : {"tcp_rmem", "tcp_wmem", "rmem_max"})
    CHECK_MESSAGE(note.find(not_named) == std::string::npos, not_named);
}

TEST_CASE("shipped profiles on a capture: the captured 1 GbE link and a link that is down") {
  testing::ScopedFixture fx = x722();
  // As captured: up at 1000 Mb/s, below every shipped min_speed.
  PlanOut p = plan(fx.root(), "network-throughput");
  CHECK(placed_irqs(p).empty());
  CHECK_FALSE(p.desired.contains("nic:enp96s0f0:channels"));
  CHECK(p.noted("enp96s0f0", "1000 Mb/s, below the min_speed 10000 Mb/s of rule '*': skipped"));
  // speed -1 (SPEED_UNKNOWN), operstate down: the note of a link that is down.
  testing::write_file(fx.root() + kX722Net + "/speed", "-1\n");
  testing::write_file(fx.root() + kX722Net + "/operstate", "down\n");
  PlanOut down = plan(fx.root(), "network-throughput");
  CHECK(placed_irqs(down).empty());
  CHECK(down.noted("enp96s0f0", "link speed unknown (down, or not probed): rule '*' asks "
                                "min_speed 10000 Mb/s, skipped"));
  // Garbage or an overflow where the speed should be: unknown, a plan all the same.
  testing::write_file(fx.root() + kX722Net + "/operstate", "up\n");
  for (const char* text : {"\x1b[31m10000\n", "99999999999999999999\n", "10000.0\n"}) {
    CAPTURE(text);
    testing::write_file(fx.root() + kX722Net + "/speed", text);
    PlanOut odd = plan(fx.root(), "network-throughput");
    CHECK(placed_irqs(odd).empty());
    CHECK(odd.noted("enp96s0f0", "link up, but its driver reports no speed"));
  }
}

TEST_CASE("shipped profiles on a capture: an IPoIB port is for a rule written for it") {
  // The R910's ib0 (QLogic QDR HCA, node 2), with the speed a 6.1 kernel's IPoIB reports
  // for a QDR 4x link; its qib vectors are not queue vectors, so a rule that takes it
  // finds nothing to place, and says so.
  testing::ScopedFixture fx("40intel64-2g2n4c+pci.tar.bz2",
                            std::string(TUNER_TEST_DATA) + "/irq/r910");
  testing::write_file(fx.root() + "/sys/devices/pci0000:40/0000:40:03.0/0000:43:00.0/net/ib0/speed",
                      "40000\n");
  PlanOut shipped = plan(fx.root(), "network-throughput");
  CHECK(shipped.noted("ib0", "an IPoIB port (InfiniBand): rule '*' is for Ethernet ports"));
  CHECK(shipped.noted("eth0", "1000 Mb/s, below the min_speed 10000 Mb/s of rule '*'"));
  testing::TempDir site;
  testing::write_file(site.path + "/site.toml", "[profile]\nname = \"site\"\n"
                                                "include = [\"network-throughput\"]\n"
                                                "[irq.\"ib*\"]\npolicy = \"numa-local\"\n"
                                                "min_speed = 10000\n");
  PlanOut ib = plan(fx.root(), "site", site.path + ":" + kShipped);
  CHECK(ib.noted("ib0", "no queue IRQs to place (irq rule 'ib*')"));
  CHECK(ib.noted("ib0", "matches irq rules '*', 'ib*'; the last one ('ib*') is used"));
  CHECK_FALSE(ib.noted("ib0", "rule 'ib*' is for Ethernet ports"));
  // network-throughput's [nic."*"] still leaves it out.
  CHECK(ib.noted("ib0", "an IPoIB port (InfiniBand): rule '*' is for Ethernet ports"));
}
