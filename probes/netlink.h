// The ethtool seam's netlink backend (probes/ethtool.h): the ethtool generic netlink
// family over libmnl, with extended ACK texts in its errors.
#pragma once

#include <memory>
#include <string>

#include "base/result.h"
#include "probes/ethtool.h"

namespace tuner {

/// How the real client talks to the kernel.
struct NetlinkOptions {
  /// Ask for compact bitsets (u32 arrays; names then come from the kernel's link-mode
  /// string set, fetched once per socket) instead of verbose ones (names inline).
  bool compact_bitsets = false;
  /// When non-empty, every reply and error message is written raw to
  /// DIR/<op>-<ifname>-<compact|verbose>[-error].bin (test fixtures). The environment
  /// variable TUNER_NETLINK_RECORD sets it for open_ethtool_netlink() without options.
  std::string record_dir;
};

/// Opens a generic netlink socket and resolves the "ethtool" family. Fails (with
/// errno text) when the kernel has no ethtool netlink (CONFIG_ETHTOOL_NETLINK=n).
/// Errors of the returned client carry the kernel's errno (EOPNOTSUPP when a driver
/// lacks the operation) and its extended ACK message.
Result<std::unique_ptr<Ethtool>> open_ethtool_netlink();
Result<std::unique_ptr<Ethtool>> open_ethtool_netlink(const NetlinkOptions& options);

}  // namespace tuner
