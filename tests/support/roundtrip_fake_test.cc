// The property of issue #8 on a fake machine (tests/support/fake_node.h), for every
// knob kind the planner plans: apply a plan, plan again: nothing to do; roll back, plan
// again: the first plan. Process bindings (numa:pid) need a real process:
// roundtrip_live_test.cc.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "tests/support/fake_node.h"
#include "tests/support/knob_kinds.h"
#include "tests/support/roundtrip.h"
#include "tests/support/temp_dir.h"
#include "tuner/knobs/knob.h"
#include "tuner/plan/plan_test_util.h"
#include "tuner/plan/planner.h"
#include "tuner/profile/parse.h"

namespace tuner {
namespace {

using testing::FakeNode;

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
mtu = 9000
channels = { combined = 8 }
rings = { rx = 4096 }
coalesce = { rx_usecs = 8, adaptive_rx = false }

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

Profile parsed_profile(const std::string& text) {
  auto parsed = parse_profile_file(text, "roundtrip.toml");
  REQUIRE_MESSAGE(parsed.ok(), (parsed.ok() ? "" : parsed.error().message()));
  Profile p = parsed->profile;
  p.chain = {p.name};
  return p;
}

Profile profile(const std::string& irqbalance) {
  std::string text = kProfile;
  text.replace(text.find("IRQBALANCE"), 10, irqbalance);
  return parsed_profile(text);
}

bool plans(const Plan& p, const std::string& knob) {
  return std::ranges::any_of(p.changes, [&](const Change& c) { return c.knob == knob; });
}

// RPS, XPS and RFS alone: in kProfile they wait for its channel change (a second plan).
const char* const kQueues = R"(
[profile]
name = "roundtrip"

[nic."eth*"]
rps = "off"
xps = "follow-irq"
rfs = 4096
)";

Profile queues_profile() { return parsed_profile(kQueues); }

/// RPS on every RX queue of eth0 (the fake starts with none), for rps = "off" to undo.
void steer_rx(FakeNode& m) {
  for (unsigned q = 0; q < 4; ++q)
    m.dir.write("sys/class/net/eth0/queues/rx-" + std::to_string(q) + "/rps_cpus", "ff\n");
}

/// The round trip on a fresh fake machine (`setup` changes it first); returns the first
/// plan.
Plan check_round_trip(const Profile& p, const std::function<void(FakeNode&)>& setup = {}) {
  FakeNode m;
  if (setup) setup(m);
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
  for (const char* knob :
       {"sysctl:net.core.somaxconn", "sysctl:vm.swappiness", "irq:40:affinity", "irq:43:affinity",
        "nic:eth0:link", "nic:eth0:mtu", "nic:eth0:channels", "nic:eth0:rings", "nic:eth0:coalesce",
        "numa:unit:trainer.service", "numa:unit:batch.slice", "numa:cgroup:/sys/fs/cgroup/jobs",
        "irqbalance:banned", "cpu:policy4:governor", "cpu:policy4:epp", "cpu:4:resume_latency",
        "cpu:7:resume_latency", "mm:thp", "mm:thp_defrag"}) {
    CAPTURE(knob);
    CHECK(plans(first, knob));
  }
  CHECK(!plans(first, "irq:44:affinity"));       // the link IRQ stays where it is
  CHECK(!plans(first, "cpu:policy0:governor"));  // outside cpus = "4-7"
  CHECK(!plans(first, "cpu:3:resume_latency"));
}

TEST_CASE("roundtrip fake: RPS, XPS and RFS on eth0's queues") {
  Plan first = check_round_trip(queues_profile(), steer_rx);
  for (const char* knob :
       {"nic:eth0:rps:rx-0", "nic:eth0:rps:rx-3", "nic:eth0:xps:tx-0", "nic:eth0:xps:tx-3",
        "nic:eth0:rfs:rx-0", "nic:eth0:rfs:rx-3", "sysctl:net.core.rps_sock_flow_entries"}) {
    CAPTURE(knob);
    CHECK(plans(first, knob));
  }
  for (const Change& c : first.changes)
    if (c.knob.starts_with("nic:eth0:rfs:")) CHECK(c.desired == "1024");  // 4096 / 4 queues
}

TEST_CASE("roundtrip fake: the round trips cover every kind a profile asks for") {
  std::vector<std::string> knobs;
  for (const Change& c : check_round_trip(profile("ban")).changes) knobs.push_back(c.knob);
  for (const Change& c : check_round_trip(queues_profile(), steer_rx).changes)
    knobs.push_back(c.knob);
  CHECK(testing::uncovered_kinds(kAllKnobKinds, testing::kinds_of(knobs),
                                 testing::Kinds::from_profile) == "");
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
  FakeNode m;
  KnobContext ctx = m.context();
  ctx.fake_machine = false;  // now it is just a tree, as under --root
  for (const char* id :
       {"sysctl:vm.swappiness", "irq:40:affinity", "numa:unit:batch.slice",
        "numa:cgroup:/sys/fs/cgroup/jobs", "irqbalance:banned", "nic:eth0:rings", "nic:eth0:mtu",
        "nic:eth0:coalesce", "nic:eth0:rfs:rx-0", "cpu:policy0:governor", "cpu:policy4:epp",
        "cpu:3:resume_latency", "mm:thp", "mm:thp_defrag"}) {
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
  CHECK(m.nl.coalesce_sets.empty());
  CHECK(m.sc.calls.empty());
  CHECK(m.sysfs.writes.empty());
}

}  // namespace tuner
