// STUB: to be replaced by the ethtool netlink client.
#include "probes/netlink.h"
namespace tuner {
Result<std::unique_ptr<Netlink>> open_ethtool_netlink() { return Error{"not implemented", "netlink", 0}; }
}  // namespace tuner
