// The ethtool seam's ioctl backend (probes/ethtool.h): SIOCETHTOOL on an AF_INET socket
// of the caller's network namespace, for kernels without the ethtool netlink family
// (before 5.6, or built without CONFIG_ETHTOOL_NETLINK). Link settings need
// ETHTOOL_GLINKSETTINGS (4.6 and later); the MTU range comes from rtnetlink as for the
// netlink backend.
#pragma once

#include <memory>

#include "base/result.h"
#include "probes/ethtool.h"

namespace tuner {

/// Opens the socket. Errors of the returned client carry the ioctl's errno
/// (EOPNOTSUPP when a driver lacks the operation) and name the ETHTOOL_* command.
Result<std::unique_ptr<Ethtool>> open_ethtool_ioctl();

}  // namespace tuner
