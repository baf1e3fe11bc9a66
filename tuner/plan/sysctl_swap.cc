// vm.swappiness on a node whose only swap is zram. The shipped profiles lower
// swappiness ("<=10") so that reclaim drops page cache before it swaps a job's memory
// out to disk. Zram is not a disk: it is compressed RAM, and a node that swaps only to
// it (Fedora's default; Kubernetes NodeSwap on zram) wants reclaim to use it, often with
// a swappiness above 100 (admin-guide/sysctl/vm.rst, swappiness), so a lower-only bound
// leaves it alone there. An exact value (Op::set) is the profile
// author's own choice for the node, and stands (profiles/REVIEW.md, cross-cutting).
#include <fmt/core.h>

#include "probes/swap.h"
#include "tuner/plan/builder.h"

namespace tuner::planner_detail {

bool swappiness_allowed(PlanBuilder& b, const SysctlSetting& s, const Change& change) {
  if (s.key != "vm.swappiness" || s.op != SysctlSetting::Op::at_most) return true;
  const auto& swaps = b.inventory.host.swaps;
  if (!zram_only(swaps)) return true;
  std::string devices;
  for (const SwapDevice& d : *swaps) devices += (devices.empty() ? "" : ", ") + d.name;
  b.note(change.knob,
         fmt::format("swap is zram only ({}): left at {}, not lowered to {} (zram is compressed "
                     "memory, and a low swappiness has reclaim drop page cache instead of using "
                     "it; a profile that means it sets \"vm.swappiness\" = {} exactly)",
                     devices, change.current.value_or("?"), change.desired, change.desired));
  return false;
}

}  // namespace tuner::planner_detail
