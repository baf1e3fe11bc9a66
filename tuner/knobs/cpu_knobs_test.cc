// cpu:policyN:governor, cpu:policyN:epp and cpu:N:resume_latency on fake machines laid
// out as a kernel lays out sysfs (tests/support/fake_sysfs.h), and reads of the live one.
#include <doctest/doctest.h>

#include "tests/support/fake_sysfs.h"
#include "tests/support/temp_dir.h"
#include "tuner/knobs/cpu_latency.h"
#include "tuner/knobs/knob.h"

using namespace tuner;
using testing::FakeSysfs;

namespace {

struct Machine {
  testing::TempDir dir{"tuner-cpu-knobs"};
  FakeSysfs sysfs{dir};
  KnobContext ctx{Root::open(dir.path).value()};

  Machine() {
    ctx.fake_machine = true;
    ctx.fake_kernel = sysfs.kernel();
  }

  std::unique_ptr<Knob> knob(const std::string& id) {
    auto k = make_knob(id, ctx);
    if (!k.ok()) FAIL(k.error().message());
    return std::move(k).value();
  }
};

}  // namespace

TEST_CASE("cpu knobs: governor reads, checks against the policy's list, writes, reads back") {
  Machine m;
  m.sysfs.policy({.id = 0, .cpus = "0 1 2 3"});
  auto gov = m.knob("cpu:policy0:governor");
  CHECK(gov->read().value() == "powersave");
  CHECK(gov->canonical(" performance\n").value() == "performance");
  auto bad = gov->canonical("ondemand");
  REQUIRE(!bad.ok());
  CHECK(bad.error().is(ErrorKind::invalid));
  CHECK(bad.error().where == "cpu:policy0:governor");
  CHECK(bad.error().what ==
        "governor 'ondemand' is not offered here (this machine offers: performance, powersave)");
  CHECK(!gov->canonical("perf ormance").ok());
  REQUIRE(gov->write("performance").ok());
  CHECK(gov->read().value() == "performance");
  CHECK(testing::sysfs_value(m.dir / "sys/devices/system/cpu/cpufreq/policy0/scaling_governor") ==
        "performance");
  // A word the list does not hold never reaches the kernel.
  CHECK(!gov->write("ondemand").ok());
  CHECK(m.sysfs.writes["sys/devices/system/cpu/cpufreq/policy0/scaling_governor"] == 1);
}

TEST_CASE("cpu knobs: epp; raw values read back; EBUSY under the performance governor") {
  Machine m;
  m.sysfs.policy({.id = 2, .cpus = "2"});
  auto epp = m.knob("cpu:policy2:epp");
  CHECK(epp->read().value() == "balance_performance");
  CHECK(epp->canonical("power").value() == "power");
  CHECK(!epp->canonical("turbo").ok());
  // intel_pstate shows a raw preference matching no name as its number; rollback puts
  // such a value back.
  CHECK(epp->canonical("128").value() == "128");
  CHECK(!epp->canonical("256").ok());
  CHECK(!epp->canonical("0128").ok());
  REQUIRE(epp->write("balance_power").ok());
  CHECK(epp->read().value() == "balance_power");
  REQUIRE(m.knob("cpu:policy2:governor")->write("performance").ok());
  Status busy = epp->write("power");
  REQUIRE(!busy.ok());
  CHECK(busy.error().is(ErrorKind::refused));
  CHECK(busy.error().what.find("while the governor is performance") != std::string::npos);
  CHECK(busy.error().where.find("cpu:policy2:epp") == 0);
  CHECK(epp->read().value() == "balance_power");
}

TEST_CASE("cpu knobs: what a machine lacks is missing, naming the knob and the driver") {
  Machine m;
  m.sysfs.policy({.id = 0,
                  .cpus = "0",
                  .governor = "ondemand",
                  .governors = "conservative ondemand userspace powersave performance schedutil",
                  .epp = std::nullopt,
                  .driver = "acpi-cpufreq"});
  CHECK(m.knob("cpu:policy0:governor")->read().value() == "ondemand");
  auto epp = make_knob("cpu:policy0:epp", m.ctx);
  REQUIRE(!epp.ok());
  CHECK(epp.error().is(ErrorKind::missing));
  CHECK(epp.error().where == "cpu:policy0:epp");
  CHECK(epp.error().what == "no energy_performance_preference (cpufreq driver acpi-cpufreq)");
  auto none = make_knob("cpu:policy1:governor", m.ctx);
  REQUIRE(!none.ok());
  CHECK(none.error().is(ErrorKind::missing));
  CHECK(none.error().what == "cpufreq policy1 does not exist on this machine");
  CHECK(!make_knob("cpu:policy../0:governor", m.ctx).ok());
}

TEST_CASE("cpu knobs: resume latency values as the kernel reads them back") {
  CHECK(parse_resume_latency("0\n").value() == "0");
  CHECK(parse_resume_latency("n/a\n").value() == "n/a");
  CHECK(parse_resume_latency("020").value() == "20");  // the kernel would read octal
  CHECK(parse_resume_latency("2147483646").value() == "2147483646");
  for (const char* bad : {"", "-1", "2147483647", "0x10", "none", "N/A", "1.5", "1 2"})
    CHECK_MESSAGE(!parse_resume_latency(bad).ok(), bad);
  CHECK(parse_resume_latency("none").error().what.find("0 = no constraint") != std::string::npos);
  CHECK(describe_resume_latency("0") == "no constraint");
  CHECK(describe_resume_latency("n/a").find("only poll") != std::string::npos);

  Machine m;
  m.sysfs.resume_latency(0, 1);
  auto k = m.knob("cpu:1:resume_latency");
  CHECK(k->read().value() == "0");
  REQUIRE(k->write("n/a").ok());
  CHECK(k->read().value() == "n/a");
  REQUIRE(k->write("020").ok());
  CHECK(testing::sysfs_value(m.dir /
                             "sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us") == "20");
  CHECK(!k->write("-5").ok());
  CHECK(k->read().value() == "20");

  auto gone = make_knob("cpu:7:resume_latency", m.ctx);
  REQUIRE(!gone.ok());
  CHECK(gone.error().is(ErrorKind::missing));
}

TEST_CASE("cpu knobs: a capture without cpuN/power is unknown, not missing; never written") {
  Machine m;
  m.dir.write("sys/devices/system/cpu/cpu0/online", "1\n");
  auto k = make_knob("cpu:0:resume_latency", m.ctx);
  REQUIRE(!k.ok());
  CHECK(k.error().is(ErrorKind::unsupported));
  m.dir.write("sys/devices/system/cpu/cpu0/power/control", "auto\n");
  CHECK(make_knob("cpu:0:resume_latency", m.ctx).error().is(ErrorKind::missing));

  m.sysfs.policy({.id = 0});
  m.sysfs.resume_latency(0, 0);
  m.ctx.fake_machine = false;  // a --root capture
  for (const char* id : {"cpu:policy0:governor", "cpu:policy0:epp", "cpu:0:resume_latency"}) {
    CAPTURE(id);
    auto knob = m.knob(id);
    auto before = knob->read().value();
    Status st = knob->write(before);
    REQUIRE(!st.ok());
    CHECK(st.error().is(ErrorKind::denied));
  }
  CHECK(m.sysfs.writes.empty());
}

TEST_CASE("cpu knobs: the live machine's files read as values the knobs accept (read only)") {
  KnobContext ctx{Root::live()};
  // Invariants only: a VM may have no cpufreq, a kernel no PM QoS file for CPU 0.
  if (auto k = make_knob("cpu:0:resume_latency", ctx); k.ok()) {
    auto v = (*k)->read();
    REQUIRE_MESSAGE(v.ok(), v.error().message());
    CHECK((*k)->canonical(*v).value() == *v);
  }
  if (auto k = make_knob("cpu:policy0:governor", ctx); k.ok()) {
    auto v = (*k)->read();
    REQUIRE_MESSAGE(v.ok(), v.error().message());
    CHECK((*k)->canonical(*v).value() == *v);
  }
}
