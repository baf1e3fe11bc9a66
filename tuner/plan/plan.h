// Plan: the ordered list of changes a profile asks of this machine.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tuner {

struct Change {
  std::string knob;                    // "sysctl:net.core.rmem_max", "irq:57:affinity", ...
  std::string group;                   // verify-loop group
  std::optional<std::string> current;  // nullopt when it could not be read (shown as null)
  std::string desired;
  std::string reason;  // for a person: "eth2 is on NUMA node 1; queue 3 -> CPU 11"
};

struct Plan {
  std::vector<std::string> profiles;  // the profile chain used, parents first
  std::vector<Change> changes;        // deterministic order: by group, then knob kind, then id
  unsigned unchanged = 0;             // settings already as desired
  std::vector<std::string> notes;     // things a reviewer should know (fallbacks, skips)
};

}  // namespace tuner
