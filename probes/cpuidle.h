// The cpuidle table: the idle states the idle driver (intel_idle, acpi_idle, psci_idle)
// offers a CPU, under sys/devices/system/cpu/cpuN/cpuidle/stateK (name, desc, latency
// in microseconds, disable). A PM QoS resume latency limit admits the states whose
// exit latency is within it, so this is what says which states a limit leaves a CPU
// (admin-guide/pm/cpuidle.rst, "Idle States Representation in sysfs").
#pragma once

#include <optional>
#include <vector>

#include "probes/inventory.h"
#include "probes/root.h"

namespace tuner {

/// The first online CPU's table (sys/devices/system/cpu/online; cpu0 when it cannot be
/// read). nullopt when that CPU has no cpuidle directory or no states in it: no idle
/// driver, or a capture that left the per-CPU tables out. A state whose latency or
/// disable file does not hold a number keeps that field unknown and adds an entry to
/// `errors` (probe "cpuidle"); a state without a name is left out.
std::optional<Cpuidle> probe_cpuidle(const Root& root, std::vector<ProbeError>& errors);

}  // namespace tuner
