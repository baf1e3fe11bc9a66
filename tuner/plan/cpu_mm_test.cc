// [cpu] and [mm] planning on fake machines laid out as a kernel lays out sysfs
// (tests/support/fake_sysfs.h): current values and what the machine offers are read by
// the real knobs, as `tuner plan --root` reads them.
#include <doctest/doctest.h>

#include "probes/cpufreq.h"
#include "tests/support/fake_sysfs.h"
#include "tests/support/temp_dir.h"
#include "tuner/plan/plan_test_util.h"
#include "tuner/plan/planner.h"

using namespace tuner;
using testing::FakeSysfs;
using testing::loc;

namespace {

/// One NUMA node of 4 cores x 2 threads: CPUs 0-7.
struct Machine {
  testing::TempDir dir{"tuner-plan-cpu"};
  FakeSysfs sysfs{dir};
  Inventory inv = testing::smt_machine(1, 4);

  Result<Plan> plan(const Profile& p) {
    Root root = Root::open(dir.path).value();
    std::vector<ProbeError> errors;
    inv.cpufreq = probe_cpufreq(root, errors);
    KnobCurrentValues current(KnobContext{root}, true, false);
    return make_plan_with(p, inv, current);
  }
};

TableSetting setting(std::string value, int line, std::string group = "cpu") {
  return TableSetting{std::move(value), std::move(group), loc(line), {}};
}

std::vector<std::string> knobs(const Plan& p) {
  std::vector<std::string> out;
  for (const Change& c : p.changes) out.push_back(c.knob);
  return out;
}

}  // namespace

TEST_CASE("planner cpu: one change per policy whose governor or epp differs") {
  Machine m;
  m.sysfs.policy({.id = 0, .cpus = "0 1 2 3"});
  m.sysfs.policy({.id = 4, .cpus = "4 5 6 7", .governor = "performance", .epp = "performance"});
  Profile p;
  p.cpu.governor = setting("performance", 3);
  p.cpu.epp = setting("performance", 4);
  auto plan = m.plan(p);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  // Governors first: a preference other than performance is refused under it.
  CHECK(knobs(*plan) == std::vector<std::string>{"cpu:policy0:governor", "cpu:policy0:epp"});
  CHECK(plan->unchanged == 2);
  const Change& gov = plan->changes[0];
  CHECK(gov.current == "powersave");
  CHECK(gov.desired == "performance");
  CHECK(gov.group == "cpu");
  CHECK(gov.reason == "policy0 (CPUs 0-3): profile sets governor performance (test.toml:3)");
  CHECK(plan->changes[1].current == "balance_performance");
  CHECK(plan->changes[1].reason ==
        "policy0 (CPUs 0-3): profile sets energy preference performance (test.toml:4)");
  CHECK(plan->notes.empty());
}

TEST_CASE("planner cpu: a preference other than performance under performance is noted") {
  Machine m;
  m.sysfs.policy({.id = 0, .cpus = "0 1 2 3 4 5 6 7"});
  Profile p;
  p.cpu.governor = setting("performance", 3);
  p.cpu.epp = setting("balance_power", 4);
  auto plan = m.plan(p);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  CHECK(plan->changes.size() == 2);
  CHECK(plan->notes == std::vector<std::string>{
                           "epp = \"balance_power\" with governor = \"performance\": intel_pstate "
                           "and amd-pstate refuse any preference but performance under that "
                           "governor, so apply will skip it"});
}

TEST_CASE("planner cpu: a value the machine does not offer is an error at its file:line:col") {
  Machine m;
  m.sysfs.policy({.id = 0, .cpus = "0 1 2 3 4 5 6 7"});
  Profile p;
  p.cpu.governor = setting("schedutil", 7);
  auto plan = m.plan(p);
  REQUIRE(!plan.ok());
  CHECK(plan.error().where == "/etc/tuner/profiles/test.toml:7:1");
  CHECK(plan.error().what ==
        "cpu:policy0:governor: governor 'schedutil' is not offered here (this machine offers: "
        "performance, powersave)");
  p.cpu.governor.reset();
  p.cpu.epp = setting("max", 8);
  plan = m.plan(p);
  REQUIRE(!plan.ok());
  CHECK(plan.error().where == "/etc/tuner/profiles/test.toml:8:1");
}

TEST_CASE("planner cpu: no EPP, or no cpufreq at all, is a note, not an error") {
  Machine m;
  for (unsigned i = 0; i < 8; ++i)
    m.sysfs.policy({.id = i,
                    .cpus = std::to_string(i),
                    .governor = "ondemand",
                    .governors = "conservative ondemand userspace powersave performance schedutil",
                    .epp = std::nullopt,
                    .driver = "acpi-cpufreq"});
  Profile p;
  p.cpu.governor = setting("performance", 3);
  p.cpu.epp = setting("performance", 4);
  auto plan = m.plan(p);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  CHECK(plan->changes.size() == 8);  // the governors
  REQUIRE(plan->notes.size() == 1);
  CHECK(plan->notes[0] == "policies 0-7: epp = \"performance\" not available on this machine: no "
                          "energy_performance_preference (cpufreq driver acpi-cpufreq)");

  Machine vm;  // no cpufreq directory
  plan = vm.plan(p);
  REQUIRE(plan.ok());
  CHECK(plan->changes.empty());
  REQUIRE(plan->notes.size() == 1);
  CHECK(plan->notes[0].find("not available on this machine: it has no cpufreq policies") !=
        std::string::npos);
}

TEST_CASE("planner cpu: cpus picks policies and CPUs; wider or offline policies are noted") {
  Machine m;
  m.sysfs.policy({.id = 0, .cpus = "0 1"});
  m.sysfs.policy({.id = 2, .cpus = "2 3 4 5"});
  m.sysfs.policy({.id = 6, .cpus = "6 7", .online = false});
  m.sysfs.resume_latency(0, 7);
  Profile p;
  p.cpu.governor = setting("performance", 3);
  p.cpu.resume_latency = setting("n/a", 5);
  p.cpu.cpus = CpuSet::parse("1-3,6").value();
  p.cpu.cpus_loc = loc(6);
  auto plan = m.plan(p);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  CHECK(knobs(*plan) == std::vector<std::string>{"cpu:policy0:governor", "cpu:policy2:governor",
                                                 "cpu:1:resume_latency", "cpu:2:resume_latency",
                                                 "cpu:3:resume_latency", "cpu:6:resume_latency"});
  CHECK(plan->changes[2].current == "0");
  CHECK(plan->changes[2].desired == "n/a");
  CHECK(plan->changes[2].reason ==
        "profile sets resume latency n/a (no wake-up latency at all: idle CPUs only poll) "
        "(test.toml:5)");
  CHECK(plan->notes == std::vector<std::string>{
                           "policy0: covers CPUs 0-1, more than cpus = \"1-3,6\": its governor "
                           "and epp apply to all of them",
                           "policy2: covers CPUs 2-5, more than cpus = \"1-3,6\": its governor "
                           "and epp apply to all of them",
                           "policy6: all its CPUs (6-7) are offline: skipped"});

  p.cpu.cpus = CpuSet::parse("0-15").value();
  auto bad = m.plan(p);
  REQUIRE(!bad.ok());
  CHECK(bad.error().where == "/etc/tuner/profiles/test.toml:6:1");
  CHECK(bad.error().what == "cpus '0-15' names CPUs this machine does not have (it has 0-7)");
}

TEST_CASE("planner cpu: resume latency per CPU; equal values unchanged; absent files noted") {
  Machine m;
  m.sysfs.resume_latency(0, 3, "0");
  m.sysfs.resume_latency(4, 5, "20");
  // CPUs 6-7 have no pm_qos_resume_latency_us (their power/ directory has other files).
  m.dir.write("sys/devices/system/cpu/cpu6/power/control", "auto\n");
  m.dir.write("sys/devices/system/cpu/cpu7/power/control", "auto\n");
  Profile p;
  p.cpu.resume_latency = setting("20", 5, "latency");
  auto plan = m.plan(p);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  CHECK(plan->changes.size() == 4);
  CHECK(plan->unchanged == 2);
  CHECK(plan->changes[0].knob == "cpu:0:resume_latency");
  CHECK(plan->changes[0].group == "latency");
  CHECK(plan->changes[0].reason ==
        "profile sets resume latency 20 (idle states that wake within 20 us) (test.toml:5)");
  CHECK(plan->notes == std::vector<std::string>{"CPUs 6-7: resume_latency_us not available on "
                                                "this machine: no pm_qos_resume_latency_us for "
                                                "this CPU"});
}

TEST_CASE("planner cpu: a topology file: CPUs known, values unknown, policies unknown") {
  Inventory inv = testing::smt_machine(1, 2);  // inv.cpufreq stays unknown
  testing::FakeCurrent current;
  current.readable_ = false;
  Profile p;
  p.cpu.governor = setting("performance", 3);
  p.cpu.resume_latency = setting("0", 4);
  auto plan = make_plan_with(p, inv, current);
  REQUIRE(plan.ok());
  CHECK(plan->changes.size() == 4);
  for (const Change& c : plan->changes) {
    CHECK(c.knob.ends_with(":resume_latency"));
    CHECK_FALSE(c.current);
  }
  CHECK(plan->notes == std::vector<std::string>{"cpufreq policies are unknown for this target: "
                                                "[cpu] governor and epp not planned"});
}

TEST_CASE("planner mm: the bracketed word is current; words not offered are errors") {
  Machine m;
  m.sysfs.thp("[always] madvise never", "always defer defer+madvise [madvise] never");
  Profile p;
  p.mm.thp = setting("madvise", 9, "mm");
  p.mm.thp_defrag = setting("madvise", 10, "mm");
  auto plan = m.plan(p);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  REQUIRE(plan->changes.size() == 1);
  CHECK(plan->unchanged == 1);
  CHECK(plan->changes[0].knob == "mm:thp");
  CHECK(plan->changes[0].current == "always");
  CHECK(plan->changes[0].desired == "madvise");
  CHECK(plan->changes[0].reason == "profile sets transparent hugepages madvise (test.toml:9)");

  p.mm.thp_defrag = setting("sometimes", 10, "mm");
  auto bad = m.plan(p);
  REQUIRE(!bad.ok());
  CHECK(bad.error().where == "/etc/tuner/profiles/test.toml:10:1");
  CHECK(bad.error().what.find("THP defrag mode 'sometimes' is not offered here") !=
        std::string::npos);

  Machine without;  // a kernel without THP: sys/kernel/mm but no transparent_hugepage
  without.dir.write("sys/kernel/mm/ksm/run", "0\n");
  plan = without.plan(p);
  REQUIRE(plan.ok());
  CHECK(plan->changes.empty());
  CHECK(plan->notes.size() == 2);
  CHECK(plan->notes[0].starts_with("thp = \"madvise\" not available on this machine: "));
}

TEST_CASE("planner cpu+mm: one group orders governors, then preferences, then latency, THP") {
  Machine m;
  m.sysfs.policy({.id = 0, .cpus = "0 1 2 3"});
  m.sysfs.policy({.id = 4, .cpus = "4 5 6 7"});
  m.sysfs.resume_latency(0, 7);
  m.sysfs.thp();
  Profile p;
  p.cpu.governor = setting("performance", 3, "power");
  p.cpu.epp = setting("performance", 4, "power");
  p.cpu.resume_latency = setting("10", 5, "power");
  p.cpu.cpus = CpuSet::parse("4-5").value();
  p.mm.thp = setting("never", 6, "power");
  auto plan = m.plan(p);
  REQUIRE_MESSAGE(plan.ok(), plan.error().message());
  CHECK(knobs(*plan) == std::vector<std::string>{"cpu:policy4:governor", "cpu:policy4:epp",
                                                 "cpu:4:resume_latency", "cpu:5:resume_latency",
                                                 "mm:thp"});
}
