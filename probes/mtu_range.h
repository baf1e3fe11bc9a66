// A device's MTU range through rtnetlink (RTM_GETLINK's IFLA_MIN_MTU..IFLA_MAX_MTU,
// kernel 4.19 and later), on a NETLINK_ROUTE socket of the caller's network namespace:
// what the ioctl backend and the MTU knob ask without the ethtool family.
#pragma once

#include <string>

#include "base/result.h"
#include "probes/inventory.h"

namespace tuner {

/// EOPNOTSUPP from a kernel whose reply has no range; the kernel's errno (ENODEV) for
/// an interface it does not have.
Result<MtuRange> read_mtu_range(const std::string& ifname);

}  // namespace tuner
