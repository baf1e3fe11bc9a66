// Test support for the resume-latency planner tests (cpu_latency_test.cc,
// idle_search_test.cc): CPUs 0-3 of one of the cpuidle roots under
// tests/fixtures/host/cpuidle (spr, skx, gnr), copied so a test may change it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "probes/cpuidle.h"
#include "tests/support/temp_dir.h"
#include "tuner/knobs/knob.h"
#include "tuner/plan/plan_test_util.h"
#include "tuner/plan/planner.h"

namespace tuner::testing {

struct CpuidleNode {
  TempDir dir{"tuner-plan-cpuidle"};
  Inventory inv = smt_machine(1, 2);

  explicit CpuidleNode(const std::string& platform) {
    std::filesystem::copy(TUNER_TEST_DATA "/host/cpuidle/" + platform, dir.path,
                          std::filesystem::copy_options::recursive);
    probe();
  }
  /// Reads the (possibly changed) table again.
  void probe() {
    std::vector<ProbeError> errors;
    inv.cpuidle = probe_cpuidle(Root::open(dir.path).value(), errors);
    inv.errors = errors;
  }
  /// Writes CPU `cpu`'s limit as a site would have.
  void site(unsigned cpu, const std::string& value) const {
    dir.write(
        "sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/power/pm_qos_resume_latency_us",
        value + "\n");
  }
  /// The plan of `p`, with current values read from the copy.
  Result<Plan> plan(const Profile& p) const {
    KnobCurrentValues current(KnobContext{Root::open(dir.path).value()}, true, false);
    return make_plan_with(p, inv, current);
  }
};

}  // namespace tuner::testing
