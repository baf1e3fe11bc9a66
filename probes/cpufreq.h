// cpufreq policies: the CPUs each sys/devices/system/cpu/cpufreq/policyN scales as one.
// What a policy is set to (governor, energy preference) is the cpu knobs' business
// (tuner/knobs/cpu_policy.cc); this only says which policies there are.
#pragma once

#include <string_view>
#include <vector>

#include "base/cpuset.h"
#include "base/result.h"
#include "probes/inventory.h"
#include "probes/root.h"

namespace tuner {

/// related_cpus and affected_cpus list CPU numbers separated by blanks ("0 1 2 3 \n"),
/// not a cpulist. "" (an inactive policy's affected_cpus) is the empty set.
Result<CpuSet> parse_cpu_words(std::string_view text);

/// Every policyN under root, by N. No cpufreq directory, or one without policies (a
/// virtual machine, a kernel without a cpufreq driver), gives none. A policy whose CPUs
/// cannot be read is left out and reported in errors (probe "cpufreq").
std::vector<CpufreqPolicy> probe_cpufreq(const Root& root, std::vector<ProbeError>& errors);

}  // namespace tuner
