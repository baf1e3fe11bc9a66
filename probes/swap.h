// Active swap devices, from proc/swaps: what the node swaps to. A node whose only swap
// is zram (compressed RAM: Fedora's default, Kubernetes NodeSwap on zram) wants a high
// vm.swappiness (vm.rst: above 100 for in-memory swap; 180 is common), which the
// shipped profiles' "<=10" would undo.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "probes/inventory.h"
#include "probes/root.h"

namespace tuner {

/// Parses proc/swaps (mm/swapfile.c swap_show): a header line "Filename Type Size Used
/// Priority", then one line per active device, "/dev/zram0 partition 8388604 0 100"
/// (sizes in KiB; blanks in a file name escaped as \040). No lines after the header: no
/// swap. An Error (invalid) naming the line for anything else: a device that cannot be
/// read cannot be told apart from a disk, so the caller knows nothing rather than less.
Result<std::vector<SwapDevice>> parse_swaps(std::string_view text);

/// A zram device ("/dev/zram0"; Android's "/dev/block/zram0"): a block device whose
/// pages stay in RAM, compressed.
bool is_zram(const SwapDevice& device);

/// Every active swap device is zram, and there is at least one. False when swaps is
/// empty (no swap) or unknown.
bool zram_only(const std::optional<std::vector<SwapDevice>>& swaps);

/// proc/swaps through the root: nullopt when the root has none (a capture without it, a
/// kernel without CONFIG_SWAP), with an entry in `errors` (probe "swap") when it cannot
/// be read or parsed.
std::optional<std::vector<SwapDevice>> probe_swaps(const Root& root,
                                                   std::vector<ProbeError>& errors);

}  // namespace tuner
