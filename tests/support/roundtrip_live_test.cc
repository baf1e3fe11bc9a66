// The property of issue #8 on the real kernel, where it lets us without touching the
// host: apply a plan, plan again: nothing to do; roll back, plan again: the first plan.
//  - net.* sysctls and a veth's channels, in a private network namespace (root);
//  - a veth's RPS and XPS masks (rps/xps = "off" after setting them by hand), there too;
//  - a process's CPU binding (numa:pid), on a child of the test;
//  - a cpuset cgroup's binding, on the temporary cgroup that
//    tests/integration/numa_binding_test.sh creates (hence "numa live").
// Everything else (links, rings, IRQs, units, irqbalance) is on a fake machine in
// roundtrip_fake_test.cc: a veth has no link modes or rings, and the host's IRQs and
// services are not ours to move.
#include <doctest/doctest.h>

#include <cstdlib>

#include "base/cpuset.h"
#include "base/strings.h"
#include "probes/netlink.h"
#include "probes/probe.h"
#include "tests/support/child.h"
#include "tests/support/netns.h"
#include "tests/support/roundtrip.h"
#include "tests/support/temp_dir.h"
#include "tuner/knobs/knob.h"
#include "tuner/knobs/numa_knobs.h"
#include "tuner/plan/near.h"
#include "tuner/plan/planner.h"
#include "tuner/profile/parse.h"

namespace tuner {
namespace {

using testing::Report;

/// One line, for the "key=value" lines a namespace child reports in.
std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n') c = '|';
  return text;
}

Result<Profile> parse(const std::string& text) {
  auto parsed = parse_profile_file(text, "live.toml");
  if (!parsed.ok()) return parsed.error();
  Profile p = parsed->profile;
  p.chain = {p.name};
  return p;
}

/// The round trip's verdicts, as report lines.
Report verdicts(const testing::RoundTrip& rt) {
  Report r;
  if (!rt.error.empty()) return Report{{"error", rt.error}};
  r["first"] = one_line(testing::describe_plan(rt.first));
  r["first.changes"] = std::to_string(rt.first.changes.size());
  r["after_apply"] = one_line(testing::describe_plan(rt.after_apply));
  r["after_apply.changes"] = std::to_string(rt.after_apply.changes.size());
  r["after_apply.unchanged_all"] =
      rt.after_apply.unchanged == rt.first.changes.size() + rt.first.unchanged ? "1" : "0";
  r["after_rollback"] = one_line(testing::describe_plan(rt.after_rollback));
  return r;
}

void check_verdicts(Report r, std::size_t at_least) {
  if (auto it = r.find("skip"); it != r.end()) {
    MESSAGE("skipped: " << it->second);
    return;
  }
  INFO(r["error"]);
  REQUIRE(r.count("error") == 0);
  INFO("first plan: " << r["first"]);
  INFO("after apply: " << r["after_apply"]);
  CHECK(std::stoul(r["first.changes"]) >= at_least);
  CHECK(r["after_apply.changes"] == "0");
  CHECK(r["after_apply.unchanged_all"] == "1");
  CHECK(r["after_rollback"] == r["first"]);
}

}  // namespace

TEST_CASE("roundtrip live: net sysctls, veth channels and MTU in a private network namespace") {
  if (auto why = testing::netns_unavailable(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  Report r = testing::run_in_netns([] {
    if (!testing::run_commands(
             {{"ip", "link", "add", "rt0", "numrxqueues", "2", "numtxqueues", "2", "type", "veth",
               "peer", "name", "rt1", "numrxqueues", "2", "numtxqueues", "2"},
              {"ip", "link", "set", "rt0", "up"},
              {"ip", "link", "set", "rt1", "up"}})
             .empty())
      return Report{{"skip", "cannot create a veth pair (ip link add)"}};
    auto nl = open_ethtool_netlink();
    if (!nl.ok()) return Report{{"skip", nl.error().message()}};
    auto ch = (*nl)->get_channels("rt0");
    if (!ch.ok() || !ch->rx || !ch->rx_max || *ch->rx_max < 2)
      return Report{{"skip", "rt0 has fewer than two channels to choose from"}};
    // Whatever the kernel made, ask for the other count.
    std::string n = *ch->rx == 1 ? "2" : "1";
    auto profile = parse("[profile]\nname = \"live\"\n[sysctl]\n"
                         "\"net.core.somaxconn\" = 1234\n"
                         "\"net.ipv4.tcp_rmem\" = \"4096 87381 6291457\"\n"
                         "\"net.ipv4.conf.all.forwarding\" = 1\n"
                         "[nic.\"rt0\"]\nchannels = { rx = " +
                         n + ", tx = " + n + " }\nmtu = 9000\n");
    if (!profile.ok()) return Report{{"error", profile.error().message()}};
    KnobContext ctx{Root::live()};
    ctx.ethtool = nl->get();
    ctx.link_timeout_ms = 3000;
    auto plan = [&]() {
      Target live{Root::live(), std::nullopt};
      return make_plan(*profile, probe_target(live), live);
    };
    KnobFactory make = [&ctx](const std::string& id) { return make_knob(id, ctx); };
    testing::TempDir state("tuner-roundtrip-live");
    return verdicts(testing::round_trip(plan, make, state / "state"));
  });
  check_verdicts(r, 5);
  if (!r.contains("skip"))
    CHECK(r["first"].find("nic:rt0:mtu [nic] 1500 -> 9000") != std::string::npos);
}

TEST_CASE("roundtrip live: a veth's RPS and XPS masks in a private network namespace") {
  if (auto why = testing::netns_unavailable(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  Report r = testing::run_in_netns([] {
    if (!testing::run_commands(
             {{"ip", "link", "add", "rq0", "numrxqueues", "2", "numtxqueues", "2", "type", "veth",
               "peer", "name", "rq1", "numrxqueues", "2", "numtxqueues", "2"}})
             .empty())
      return Report{{"skip", "cannot create a veth pair (ip link add)"}};
    // Masks someone set by hand (CPU 0), for "off" to take away and rollback to restore.
    for (const char* f : {"rx-0/rps_cpus", "rx-1/rps_cpus", "tx-1/xps_cpus"})
      testing::write_file(std::string("/sys/class/net/rq0/queues/") + f, "1\n");
    auto profile = parse("[profile]\nname = \"live\"\n[nic.\"rq0\"]\nrps = \"off\"\n"
                         "xps = \"off\"\n");
    if (!profile.ok()) return Report{{"error", profile.error().message()}};
    KnobContext ctx{Root::live()};
    auto plan = [&]() {
      Target live{Root::live(), std::nullopt};
      return make_plan(*profile, probe_target(live), live);
    };
    KnobFactory make = [&ctx](const std::string& id) { return make_knob(id, ctx); };
    testing::TempDir state("tuner-roundtrip-rps");
    Report out = verdicts(testing::round_trip(plan, make, state / "state"));
    out["rx-1"] = testing::sysfs_value("/sys/class/net/rq0/queues/rx-1/rps_cpus");
    return out;
  });
  check_verdicts(r, 3);
  if (r.contains("skip") || r.contains("error")) return;
  CHECK(r["first"].find("nic:rq0:rps:rx-1 [nic] 0 -> none") != std::string::npos);
  CHECK(r["first"].find("nic:rq0:xps:tx-1 [nic] 0 -> none") != std::string::npos);
  CHECK(CpuSet::parse_mask(r["rx-1"]).value().to_string() == "0");  // rolled back
}

TEST_CASE("roundtrip live: a process's CPU binding, applied and rolled back") {
  CpuSet own = testing::own_cpus();
  if (own.size() < 2) {
    MESSAGE("skipped: needs two CPUs to move a process between");
    return;
  }
  unsigned first = own.cpus().front();
  testing::SleepingChild child;
  Root live = Root::live();
  std::string id = KnobId::numa_pid(static_cast<unsigned>(child.pid()), child.start_time())->str();
  std::string desired = "cpus=" + std::to_string(first);
  KnobContext ctx{live};
  KnobFactory make = [&ctx](const std::string& knob) { return make_knob(knob, ctx); };
  // No profile names a process: the plan is what a planner would make of one binding,
  // with the knob's read() and canonical() deciding whether it is in place.
  auto plan = [&]() -> Result<Plan> {
    auto k = make(id);
    if (!k.ok()) return k.error();
    auto now = (*k)->read();
    auto want = (*k)->canonical(desired);
    if (!now.ok()) return now.error();
    if (!want.ok()) return want.error();
    Plan p;
    p.profiles = {"pid"};
    if (*now == *want) ++p.unchanged;
    else p.changes.push_back(Change{id, "numa", *now, desired, "the test's child"});
    return p;
  };
  testing::TempDir state("tuner-roundtrip-pid");
  check_verdicts(verdicts(testing::round_trip(plan, make, state / "state")), 1);
}

// Run by tests/integration/numa_binding_test.sh, which makes the cgroup and names it.
TEST_CASE("numa live: roundtrip of a [[numa.bind]] on a temporary cpuset cgroup") {
  const char* rel = std::getenv("TUNER_LIVE_CGROUP");
  if (!rel || !*rel) {
    MESSAGE("not run: TUNER_LIVE_CGROUP is not set (run by tests/integration)");
    return;
  }
  Target live{Root::live(), std::nullopt};
  ProbeOptions options;
  options.netlink = false;
  Inventory inv = probe_inventory(live.root, options);
  fill_nodes_from_sysfs(live.root, inv);
  REQUIRE(!inv.topology.numa_nodes.empty());
  const NumaNode& node = inv.topology.numa_nodes.front();
  if (!node.cpus.is_subset_of(testing::own_cpus())) {
    MESSAGE("skipped: node " << node.os_index << "'s CPUs are not all ours to bind to");
    return;
  }
  auto profile = parse("[profile]\nname = \"live\"\n[[numa.bind]]\ncgroup = \"" + std::string(rel) +
                       "\"\nnode = " + std::to_string(node.os_index) + "\n");
  REQUIRE(profile.ok());
  KnobContext ctx{live.root};
  KnobFactory make = [&ctx](const std::string& id) { return make_knob(id, ctx); };
  auto plan = [&]() { return make_plan(*profile, inv, live); };
  testing::TempDir state("tuner-roundtrip-cgroup");
  check_verdicts(verdicts(testing::round_trip(plan, make, state / "state")), 1);
}

}  // namespace tuner
