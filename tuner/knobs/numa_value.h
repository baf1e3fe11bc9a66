// The value of the numa knobs: "cpus=0-15,mems=0" (either part may be left out of a
// desired value) or, for a systemd unit, "none".
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "base/cpuset.h"
#include "base/result.h"
#include "probes/root.h"

namespace tuner {

struct NumaBinding {
  std::optional<CpuSet> cpus;  // CPUs the work may run on
  std::optional<CpuSet> mems;  // NUMA nodes its memory comes from
};

/// Parses "cpus=LIST,mems=LIST" (either may be missing, not both; lists in cpulist
/// syntax). allow_empty lets a list be empty ("cpus=" = inherit, in cgroup v2).
Result<NumaBinding> parse_numa_binding(std::string_view text, const std::string& id,
                                       bool allow_empty = false);
/// "cpus=0-15,mems=0" with the parts that are set, cpulists canonical.
std::string format_numa_binding(const NumaBinding& b);

/// Checks the lists against the machine under root (sys/devices/system/cpu/online and
/// node/online); skipped where those files cannot be read.
Status check_numa_binding(const NumaBinding& b, const Root& root, const std::string& id);

/// The canonical form of a desired binding: parsed, checked against the machine, and
/// completed with the current value's cpus or mems where it names only one of them.
Result<std::string> canonical_numa_binding(const std::string& desired, bool allow_empty,
                                           const Root& root, const std::string& id,
                                           const std::function<Result<std::string>()>& current);

}  // namespace tuner
