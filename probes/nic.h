// NIC probe: sysfs facts plus ethtool netlink link data.
#pragma once

#include <vector>

#include "probes/inventory.h"
#include "probes/netlink.h"
#include "probes/root.h"

namespace tuner {

/// Lists /sys/class/net and fills each Nic from sysfs. When nl is non-null (live
/// machine), adds link info, link modes, link state, channels and rings through it.
std::vector<Nic> probe_nics(const Root& root, Netlink* nl, std::vector<ProbeError>& errors);

}  // namespace tuner
