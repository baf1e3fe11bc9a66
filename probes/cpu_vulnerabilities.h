// CPU vulnerabilities as the running kernel judges them: one file per issue under
// sys/devices/system/cpu/vulnerabilities (Linux 4.15+), each "Not affected",
// "Mitigation: ...", "Vulnerable", "Vulnerable: ..." or "Unknown: ..." (the words of
// arch/x86/kernel/cpu/bugs.c). The verdict depends on the CPU, its microcode and the
// kernel together, which is why `tuner check` names the microcode revision beside it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/inventory.h"
#include "probes/root.h"

namespace tuner {

/// True for a verdict the kernel starts with "Vulnerable"; "Not affected",
/// "Mitigation: ..." and "Unknown: ..." are not.
bool is_vulnerable(std::string_view verdict);

/// Every file of sys/devices/system/cpu/vulnerabilities, by name, its text trimmed.
/// nullopt when the kernel has none (before 4.15: sys/devices/system/cpu is there, its
/// vulnerabilities directory is not). An entry in `errors` (probe "vulnerabilities")
/// when the directory or a file in it cannot be read, or when the root has no
/// sys/devices/system/cpu at all (then nothing says which kernel it ran); a file that
/// cannot be read is left out.
std::optional<std::map<std::string, std::string>> probe_cpu_vulnerabilities(
    const Root& root, std::vector<ProbeError>& errors);

/// The vulnerable files' names, comma-separated and sorted ("retbleed,spec_store_bypass"),
/// or "none": the node fact `microcode.vulnerable` that fleets compare.
std::string vulnerable_names(const std::map<std::string, std::string>& verdicts);

}  // namespace tuner
