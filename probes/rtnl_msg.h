// rtnetlink's RTM_GETLINK for one interface, for what ethtool does not report: the
// device's MTU range (IFLA_MIN_MTU, IFLA_MAX_MTU; kernel 4.19 and later). Requests
// built and replies parsed on byte buffers (no socket), so a recorded kernel reply is
// the unit-test input (tests/fixtures/netlink/GETLINK-*.bin).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "probes/ethtool_msg.h"
#include "probes/inventory.h"

namespace tuner {

/// RTM_GETLINK by name (checked by validate_ifname first), asking for no statistics.
NlRequest build_getlink_request(const std::string& ifname, uint32_t seq);

/// The RTM_NEWLINK reply's MTU range. Errors: a malformed message (invalid), a reply
/// without the range (EOPNOTSUPP: a kernel before 4.19).
Result<MtuRange> parse_getlink_mtu_range(std::string_view msg);

}  // namespace tuner
