// Netlink seam: the ethtool generic netlink family over libmnl. The real implementation
// talks to the kernel; tests can substitute a fake that records SET requests.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "probes/inventory.h"

namespace tuner {

/// What a LINKMODES_SET asks for; unset fields are left as they are.
struct LinkModesRequest {
  std::optional<bool> autoneg;
  std::optional<uint32_t> speed_mbps;
  std::optional<Duplex> duplex;
  /// When not empty: exactly these modes are advertised (ETHTOOL_A_LINKMODES_OURS as a
  /// verbose no-mask bitset of mode names, "1000baseT/Full"); every other mode is
  /// cleared. This is how a restricted advertisement goes back to "every supported
  /// mode" on a NIC that has both full- and half-duplex modes.
  std::vector<std::string> advertise;
};

class Netlink {
 public:
  virtual ~Netlink() = default;
  /// LINKINFO_GET: port.
  virtual Status get_link_info(const std::string& ifname, LinkInfo& out) = 0;
  /// LINKMODES_GET: autoneg, speed, duplex, supported and advertised modes.
  virtual Status get_link_modes(const std::string& ifname, LinkInfo& out) = 0;
  /// LINKSTATE_GET: link up.
  virtual Status get_link_state(const std::string& ifname, LinkInfo& out) = 0;
  virtual Result<Channels> get_channels(const std::string& ifname) = 0;
  virtual Result<Rings> get_rings(const std::string& ifname) = 0;
  virtual Result<Coalesce> get_coalesce(const std::string& ifname) = 0;
  /// The device's MTU range: rtnetlink's RTM_GETLINK (on a NETLINK_ROUTE socket of its
  /// own), the one thing here ethtool does not say. EOPNOTSUPP from a kernel whose
  /// reply has no range (before 4.19).
  virtual Result<MtuRange> get_mtu_range(const std::string& ifname) = 0;
  /// SET requests; errors carry the kernel's extended ACK text when it sent one.
  virtual Status set_link_modes(const std::string& ifname, const LinkModesRequest& req) = 0;
  virtual Status set_channels(const std::string& ifname, const Channels& ch) = 0;
  virtual Status set_rings(const std::string& ifname, const Rings& rings) = 0;
  /// Sends only the fields that are set. A field the driver does not support is refused
  /// (EINVAL, "cannot modify an unsupported parameter"); the Error names the field.
  virtual Status set_coalesce(const std::string& ifname, const Coalesce& c) = 0;
};

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
Result<std::unique_ptr<Netlink>> open_ethtool_netlink();
Result<std::unique_ptr<Netlink>> open_ethtool_netlink(const NetlinkOptions& options);

}  // namespace tuner
