// cpufreq policies: the CPU lists on literal text, the probe on a tree laid out as the
// kernel does and on a captured arm64 machine (nvidia-dgx-gb10: cppc_cpufreq, one
// policy per CPU).
#include "probes/cpufreq.h"

#include <doctest/doctest.h>

#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"

using namespace tuner;

TEST_CASE("cpufreq: related_cpus and affected_cpus are blank-separated numbers") {
  CHECK(parse_cpu_words("0 1 2 3 \n")->to_string() == "0-3");
  CHECK(parse_cpu_words("8\n")->to_string() == "8");
  CHECK(parse_cpu_words("\n")->empty());
  CHECK(!parse_cpu_words("0-3").ok());
  CHECK(!parse_cpu_words("x").ok());
}

TEST_CASE("cpufreq: every policy by number with its CPUs, online CPUs and driver") {
  testing::TempDir t;
  const std::string d = "sys/devices/system/cpu/cpufreq/";
  t.write(d + "boost", "1\n");  // not a policy
  for (unsigned p : {0u, 4u, 10u}) {
    std::string dir = d + "policy" + std::to_string(p) + "/";
    std::string cpus = p == 10 ? "10 11"
                               : std::to_string(p) + " " + std::to_string(p + 1) + " " +
                                     std::to_string(p + 2) + " " + std::to_string(p + 3);
    t.write(dir + "related_cpus", cpus + " \n");
    t.write(dir + "affected_cpus", (p == 10 ? "" : cpus) + " \n");  // policy10: all offline
    t.write(dir + "scaling_driver", "acpi-cpufreq\n");
  }
  t.write(d + "policy20/affected_cpus", "twenty\n");
  std::vector<ProbeError> errors;
  auto policies = probe_cpufreq(Root::open(t.path).value(), errors);
  REQUIRE(policies.size() == 3);
  CHECK(policies[0].id == 0);
  CHECK(policies[1].id == 4);
  CHECK(policies[1].cpus.to_string() == "4-7");
  CHECK(policies[1].online.to_string() == "4-7");
  CHECK(policies[1].driver == "acpi-cpufreq");
  CHECK(policies[2].id == 10);  // numeric order, not "policy10" < "policy4"
  CHECK(policies[2].cpus.to_string() == "10-11");
  CHECK(policies[2].online.empty());
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].probe == "cpufreq");
  CHECK(errors[0].message.find("policy20") != std::string::npos);
}

TEST_CASE("cpufreq: a machine without a cpufreq driver has no policies, and no error") {
  testing::TempDir t;
  t.write("sys/devices/system/cpu/online", "0-3\n");
  std::vector<ProbeError> errors;
  CHECK(probe_cpufreq(Root::open(t.path).value(), errors).empty());
  t.write("sys/devices/system/cpu/cpufreq/.keep", "");
  CHECK(probe_cpufreq(Root::open(t.path).value(), errors).empty());
  CHECK(errors.empty());
}

TEST_CASE("cpufreq: a captured arm64 machine, one cppc_cpufreq policy per CPU") {
  std::string root = testing::shared_fixture("nvidia-dgx-gb10.tar.bz2");
  std::vector<ProbeError> errors;
  auto policies = probe_cpufreq(Root::open(root).value(), errors);
  CHECK(errors.empty());
  REQUIRE(policies.size() == 20);
  for (unsigned i = 0; i < 20; ++i) {
    CHECK(policies[i].id == i);
    CHECK(policies[i].cpus.to_string() == std::to_string(i));
    CHECK(policies[i].online == policies[i].cpus);
    CHECK(policies[i].driver == "cppc_cpufreq");
  }
}
