// Host facts: kernel, CPU model, isolcpus/nohz_full, irqbalance, NVIDIA driver.
#pragma once

#include <string_view>
#include <vector>

#include "probes/inventory.h"
#include "probes/root.h"

namespace tuner {

/// Parses isolcpus= and nohz_full= from a kernel command line into host.
void parse_cmdline(std::string_view cmdline, Host& host);

Host probe_host(const Root& root, std::vector<ProbeError>& errors);

}  // namespace tuner
