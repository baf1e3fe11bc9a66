// Plan and apply agree, for every knob kind the planner plans (issue #10): a value apply
// would refuse is refused by `tuner plan` (exit 2: the profile loader or the planner
// says why) or, where the machine does not offer it, left out of the plan with a note;
// never planned, so that it fails only after changes began. Each case gives the
// profile's words and, where the value has one, the same value as apply sees it (knob
// id and value), which the knob's own canonical() must refuse on the same machine:
// the case is proven to be one apply rejects. The fake machine is
// tests/support/fake_node.h; every change any case's plan holds must pass
// canonical() too.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "tests/support/fake_node.h"
#include "tests/support/knob_kinds.h"
#include "tests/support/roundtrip.h"
#include "tuner/knobs/knob.h"
#include "tuner/plan/planner.h"
#include "tuner/profile/parse.h"

namespace tuner {
namespace {

using testing::FakeNode;

enum class Expect {
  refused,          // plan exits 2, whatever the machine
  refused_or_left,  // refused, or left out of the plan for this machine with a note
};

struct Case {
  const char* kind;  // the knob kind, as kAllKnobKinds names it
  const char* body;  // the profile after [profile]
  Expect expect;
  const char* knob = nullptr;   // the value as apply sees it (none: the profile's word
  const char* value = nullptr;  // has no knob form; a closed set of words)
};

const Case kCases[] = {
    // sysctl
    {"sysctl", "[sysctl]\n\"net.core.somaxconn\" = \"\"\n", Expect::refused,
     "sysctl:net.core.somaxconn", ""},
    {"sysctl", "[sysctl]\n\"net.core.somaxconn\" = \"   \"\n", Expect::refused,
     "sysctl:net.core.somaxconn", "   "},
    {"sysctl", "[sysctl]\n\"net.core.somaxconn\" = \">5000\"\n", Expect::refused},
    {"sysctl", "[sysctl]\n\"net.core.somaxconn\" = \"nan\"\n", Expect::refused},
    {"sysctl", "[sysctl]\n\"net.core.nonexistent_key\" = 1\n", Expect::refused_or_left,
     "sysctl:net.core.nonexistent_key", "1"},
    // irq_affinity
    {"irq_affinity", "[irq.\"eth*\"]\npolicy = \"pin\"\ncpus = \"8-9\"\n", Expect::refused_or_left,
     "irq:40:affinity", "8-9"},
    {"irq_affinity", "[irq.\"eth*\"]\npolicy = \"numa-local\"\ncpus = \"1\"\n", Expect::refused},
    {"irq_affinity", "[irq.\"eth*\"]\npolicy = \"numa-local\"\ncpus = \"1-\"\n", Expect::refused,
     "irq:40:affinity", "1-"},
    {"irq_affinity", "[irq.\"eth*\"]\npolicy = \"numa-local\"\ncpus = \"\"\n", Expect::refused,
     "irq:40:affinity", ""},
    {"irq_affinity", "[irq.\"eth*\"]\npolicy = \"everywhere\"\n", Expect::refused},
    {"irq_affinity", "[irq.\"eth[\"]\npolicy = \"numa-local\"\n", Expect::refused},
    {"irqbalance_banned", "[irq.\"eth*\"]\npolicy = \"numa-local\"\nirqbalance = \"maybe\"\n",
     Expect::refused},
    // nic_link
    {"nic_link", "[nic.\"eth*\"]\nspeed = 40000\nduplex = \"full\"\n", Expect::refused_or_left,
     "nic:eth0:link", "autoneg=off,speed=40000,duplex=full"},
    {"nic_link", "[nic.\"eth*\"]\nspeed = 0\n", Expect::refused, "nic:eth0:link",
     "autoneg=off,speed=0,duplex=full"},
    {"nic_link", "[nic.\"eth*\"]\nspeed = -1000\n", Expect::refused},
    {"nic_link", "[nic.\"eth*\"]\nspeed = 1000\nduplex = \"quarter\"\n", Expect::refused,
     "nic:eth0:link", "autoneg=off,speed=1000,duplex=quarter"},
    {"nic_link", "[nic.\"eth*\"]\nautoneg = \"sometimes\"\n", Expect::refused},
    // nic_mtu: the fake NIC takes 68 to 9216 bytes (fake_netlink.h)
    {"nic_mtu", "[nic.\"eth*\"]\nmtu = 16000\n", Expect::refused, "nic:eth0:mtu", "16000"},
    {"nic_mtu", "[nic.\"eth*\"]\nmtu = 576\n", Expect::refused},  // below IPv6's 1280
    {"nic_mtu", "[nic.\"eth*\"]\nmtu = \"jumbo\"\n", Expect::refused, "nic:eth0:mtu", "jumbo"},
    {"nic_mtu", "[nic.\"eth*\"]\nmtu = 70000\n", Expect::refused, "nic:eth0:mtu", "70000"},
    // nic_channels
    {"nic_channels", "[nic.\"eth*\"]\nchannels = { combined = 64 }\n", Expect::refused_or_left,
     "nic:eth0:channels", "combined=64"},
    {"nic_channels", "[nic.\"eth*\"]\nchannels = { rx = 2 }\n", Expect::refused_or_left,
     "nic:eth0:channels", "rx=2"},
    {"nic_channels", "[nic.\"eth*\"]\nchannels = { combined = 0 }\n", Expect::refused},
    {"nic_channels", "[nic.\"eth*\"]\nchannels = { combined = -2 }\n", Expect::refused,
     "nic:eth0:channels", "combined=-2"},
    {"nic_channels", "[nic.\"eth*\"]\ncombined = \"all-cores\"\n", Expect::refused},
    // nic_rings
    {"nic_rings", "[nic.\"eth*\"]\nrings = { rx = 8192 }\n", Expect::refused_or_left,
     "nic:eth0:rings", "rx=8192"},
    {"nic_rings", "[nic.\"eth*\"]\nrings = { rx = 0 }\n", Expect::refused, "nic:eth0:rings",
     "rx=0"},
    {"nic_rings", "[nic.\"eth*\"]\nrings = { rx = 5000000000 }\n", Expect::refused,
     "nic:eth0:rings", "rx=5000000000"},
    // nic_coalesce: the fake NIC has usecs and adaptive-rx, no frame counts (fake_netlink.h)
    {"nic_coalesce", "[nic.\"eth*\"]\ncoalesce = { rx_frames = 32 }\n", Expect::refused_or_left,
     "nic:eth0:coalesce", "rx-frames=32"},
    {"nic_coalesce", "[nic.\"eth*\"]\ncoalesce = { adaptive_tx = true }\n", Expect::refused_or_left,
     "nic:eth0:coalesce", "adaptive-tx=on"},
    {"nic_coalesce", "[nic.\"eth*\"]\ncoalesce = { rx_usecs = -1 }\n", Expect::refused,
     "nic:eth0:coalesce", "rx-usecs=-1"},
    {"nic_coalesce", "[nic.\"eth*\"]\ncoalesce = { rx_usecs = 5000000000 }\n", Expect::refused,
     "nic:eth0:coalesce", "rx-usecs=5000000000"},
    {"nic_coalesce", "[nic.\"eth*\"]\ncoalesce = { adaptive_rx = \"off\" }\n", Expect::refused,
     "nic:eth0:coalesce", "adaptive-rx=\"off\""},
    // nic_rps, nic_xps
    {"nic_rps", "[nic.\"eth*\"]\nrps = \"everywhere\"\n", Expect::refused},
    {"nic_xps", "[nic.\"eth*\"]\nxps = \"numa-local\"\n", Expect::refused},
    // nic_rfs: the socket table's entries (1 to 2^29, the kernel's limit) or "off"
    {"nic_rfs", "[nic.\"eth*\"]\nrfs = -4096\n", Expect::refused, "nic:eth0:rfs:rx-0", "-1024"},
    {"nic_rfs", "[nic.\"eth*\"]\nrfs = \"on\"\n", Expect::refused, "nic:eth0:rfs:rx-0", "on"},
    {"nic_rfs", "[nic.\"eth*\"]\nrfs = 0\n", Expect::refused},
    {"nic_rfs", "[nic.\"eth*\"]\nrfs = 1073741824\n", Expect::refused},
    // numa_unit, numa_cgroup
    {"numa_unit", "[[numa.bind]]\nunit = \"trainer.service\"\nnode = 5\n", Expect::refused_or_left,
     "numa:unit:trainer.service", "mems=5"},
    {"numa_unit", "[[numa.bind]]\nunit = \"trainer.service\"\nnear = \"eth9\"\n",
     Expect::refused_or_left},
    {"numa_unit", "[[numa.bind]]\nunit = \"../trainer.service\"\nnode = 0\n", Expect::refused},
    {"numa_unit", "[[numa.bind]]\nunit = \"trainer.service\"\nnode = -1\n", Expect::refused},
    {"numa_cgroup", "[[numa.bind]]\ncgroup = \"jobs\"\nnode = 3\n", Expect::refused_or_left,
     "numa:cgroup:/sys/fs/cgroup/jobs", "mems=3"},
    {"numa_cgroup", "[[numa.bind]]\ncgroup = \"../../etc\"\nnode = 0\n", Expect::refused},
    // cpu_governor, cpu_epp, cpu_resume_latency
    {"cpu_governor", "[cpu]\ngovernor = \"turbo\"\n", Expect::refused_or_left,
     "cpu:policy0:governor", "turbo"},
    {"cpu_governor", "[cpu]\ngovernor = \"per formance\"\n", Expect::refused,
     "cpu:policy0:governor", "per formance"},
    {"cpu_epp", "[cpu]\nepp = \"fastest\"\n", Expect::refused_or_left, "cpu:policy0:epp",
     "fastest"},
    {"cpu_resume_latency", "[cpu]\nresume_latency_us = -1\n", Expect::refused,
     "cpu:0:resume_latency", "-1"},
    {"cpu_resume_latency", "[cpu]\nresume_latency_us = \"soon\"\n", Expect::refused,
     "cpu:0:resume_latency", "soon"},
    {"cpu_resume_latency", "[cpu]\nresume_latency_us = 1.5\n", Expect::refused,
     "cpu:0:resume_latency", "1.5"},
    {"cpu_governor", "[cpu]\ngovernor = \"performance\"\ncpus = \"3-1\"\n", Expect::refused},
    // mm_thp, mm_thp_defrag
    {"mm_thp", "[mm]\nthp = \"sometimes\"\n", Expect::refused, "mm:thp", "sometimes"},
    {"mm_thp_defrag", "[mm]\nthp_defrag = \"eager\"\n", Expect::refused, "mm:thp_defrag", "eager"},
};

/// Every change of a plan passes its knob's canonical() on the machine it was made for.
void check_plan_passes_apply(const Plan& plan, KnobContext& ctx) {
  for (const Change& c : plan.changes) {
    CAPTURE(c.knob);
    CAPTURE(c.desired);
    auto knob = make_knob(c.knob, ctx);
    REQUIRE_MESSAGE(knob.ok(), (knob.ok() ? "" : knob.error().message()));
    auto canon = (*knob)->canonical(c.desired);
    CHECK_MESSAGE(canon.ok(), (canon.ok() ? "" : canon.error().message()));
  }
}

}  // namespace

TEST_CASE("plan/apply parity: what apply refuses, plan refuses or leaves out, every kind") {
  std::set<std::string> kinds;
  for (const Case& c : kCases) {
    kinds.insert(c.kind);
    std::string body = c.body;
    CAPTURE(body);
    FakeNode m;
    KnobContext ctx = m.context();
    // The value is one apply rejects on this machine.
    if (c.knob) {
      auto knob = make_knob(c.knob, ctx);
      bool refused = !knob.ok() || !(*knob)->canonical(c.value).ok();
      CHECK_MESSAGE(refused, "apply's knob accepts it: not a case of parity");
    }
    std::string text = std::string("[profile]\nname = \"parity\"\n\n") + c.body;
    auto parsed = parse_profile_file(text, "parity.toml");
    if (!parsed.ok()) {
      // Refused where the file says it: file:line:col.
      CHECK(parsed.error().message().find("parity.toml:") != std::string::npos);
      continue;
    }
    Profile p = parsed->profile;
    p.chain = {p.name};
    auto plan = make_plan(p, m.probe(), Target{m.root(), std::nullopt});
    if (!plan.ok()) {
      CHECK(plan.error().message().find("parity.toml:") != std::string::npos);
      continue;
    }
    INFO("planned:\n" << testing::describe_plan(*plan));
    CHECK_MESSAGE(c.expect == Expect::refused_or_left, "plan accepted what apply refuses");
    if (c.knob) {
      bool planned = false;
      for (const Change& ch : plan->changes) planned |= ch.knob == c.knob;
      CHECK_MESSAGE(!planned, "planned a value apply refuses");
      CHECK_FALSE(plan->notes.empty());  // left out, and the plan says why
    }
    check_plan_passes_apply(*plan, ctx);
  }
  // Every kind a profile asks for has a case, and every case names a kind.
  CHECK(testing::uncovered_kinds(kAllKnobKinds, kinds, testing::Kinds::from_profile) == "");
  for (const std::string& kind : kinds) {
    CAPTURE(kind);
    CHECK(std::any_of(kAllKnobKinds.begin(), kAllKnobKinds.end(),
                      [&](const KnobKindInfo& k) { return k.name == kind; }));
  }
}

TEST_CASE("plan/apply parity: a kind added to the table without its cases fails the test") {
  std::set<std::string> kinds;
  for (const Case& c : kCases) kinds.insert(c.kind);
  std::vector<KnobKindInfo> table(kAllKnobKinds.begin(), kAllKnobKinds.end());
  KnobKindInfo fake = table.front();
  fake.name = "fake_kind";
  table.push_back(fake);
  CHECK(testing::uncovered_kinds(table, kinds, testing::Kinds::from_profile) == "fake_kind");
  // Kinds no profile names need no parity case, but the id tests still cover them.
  table.back().from_profile = false;
  CHECK(testing::uncovered_kinds(table, kinds, testing::Kinds::from_profile) == "");
  CHECK(testing::uncovered_kinds(table, kinds, testing::Kinds::all) ==
        "numa_pid, irqbalance_service, fake_kind");
}

TEST_CASE("plan/apply parity: values at the edges plan accepts, apply accepts") {
  const char* const bodies[] = {
      "[sysctl]\n\"net.core.somaxconn\" = \">=4096\"\n\"vm.swappiness\" = 0\n",
      "[irq.\"eth*\"]\npolicy = \"pin\"\ncpus = \"7\"\n",
      "[irq.\"eth*\"]\npolicy = \"spread\"\n",
      "[irq.\"eth*\"]\npolicy = \"numa-local\"\nirqbalance = \"ban\"\n",
      "[nic.\"eth*\"]\nspeed = \"max\"\nduplex = \"full\"\nautoneg = true\n",
      "[nic.\"eth*\"]\nspeed = 10\nduplex = \"half\"\nautoneg = false\n",
      "[nic.\"eth*\"]\nchannels = { combined = 1 }\nrings = { rx = 4096, tx = 1 }\n",
      "[nic.\"eth*\"]\ncoalesce = { rx_usecs = 0, tx_usecs = 4294967295, adaptive_rx = false }\n",
      "[nic.\"eth*\"]\ncombined = \"local-cores\"\nrps = \"numa-local\"\nxps = \"follow-irq\"\n",
      "[nic.\"eth*\"]\nrps = \"off\"\nxps = \"off\"\n",
      "[nic.\"eth*\"]\nmtu = 9216\n",
      "[nic.\"eth*\"]\nmtu = 1280\n",
      "[nic.\"eth*\"]\nrfs = 536870912\n",
      "[nic.\"eth*\"]\nrfs = 1\n",
      "[nic.\"eth*\"]\nrfs = \"off\"\n",
      R"([[numa.bind]]
unit = "a.service"
near = "eth0"

[[numa.bind]]
cgroup = "jobs"
node = 0
)",
      "[cpu]\ngovernor = \"powersave\"\nepp = \"power\"\nresume_latency_us = 0\n",
      "[cpu]\nresume_latency_us = \"n/a\"\ncpus = \"0,7\"\n",
      "[mm]\nthp = \"always\"\nthp_defrag = \"never\"\n",
  };
  std::vector<std::string> planned;  // every knob some body's plan covers
  for (const std::string body : bodies) {
    CAPTURE(body);
    FakeNode m;
    KnobContext ctx = m.context();
    std::string text = std::string("[profile]\nname = \"parity\"\n\n") + body;
    auto parsed = parse_profile_file(text, "parity.toml");
    REQUIRE_MESSAGE(parsed.ok(), (parsed.ok() ? "" : parsed.error().message()));
    Profile p = parsed->profile;
    p.chain = {p.name};
    auto plan = make_plan(p, m.probe(), Target{m.root(), std::nullopt});
    REQUIRE_MESSAGE(plan.ok(), (plan.ok() ? "" : plan.error().message()));
    INFO("planned:\n" << testing::describe_plan(*plan));
    check_plan_passes_apply(*plan, ctx);
    for (const Change& c : plan->changes) planned.push_back(c.knob);
    planned.insert(planned.end(), plan->unchanged_knobs.begin(), plan->unchanged_knobs.end());
  }
  // Every kind a profile asks for is asked by some body here and planned: a kind whose
  // profile key or planner step is missing fails here (a refusal case alone would pass,
  // since the loader refuses a key it does not know).
  CHECK(testing::uncovered_kinds(kAllKnobKinds, testing::kinds_of(planned),
                                 testing::Kinds::from_profile) == "");
}

}  // namespace tuner
