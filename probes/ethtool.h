// The ethtool seam: a NIC's link settings, channels, rings and interrupt coalescing, read
// and set. Two backends talk to the kernel: the ethtool generic netlink family
// (probes/netlink.h, kernels 5.6 and later built with CONFIG_ETHTOOL_NETLINK) and the
// SIOCETHTOOL ioctl every kernel has (probes/ethtool_ioctl.h). Both answer the same
// requests with the same values, so the probe, the plan and the nic knobs never know
// which one they have; tests substitute tests/support/fake_netlink.h's FakeNetlink.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "probes/inventory.h"

namespace tuner {

/// What a link-modes SET asks for; unset fields are left as they are.
struct LinkModesRequest {
  std::optional<bool> autoneg;
  std::optional<uint32_t> speed_mbps;
  std::optional<Duplex> duplex;
  /// When not empty: exactly these modes are advertised ("1000baseT/Full"); every other
  /// mode is cleared. This is how a restricted advertisement goes back to "every
  /// supported mode" on a NIC that has both full- and half-duplex modes. Without it, and
  /// with autoneg on and a speed or duplex, the advertised modes become the supported
  /// ones of that speed and duplex (the kernel's rule for netlink; the ioctl backend
  /// applies it itself).
  std::vector<std::string> advertise;
};

class Ethtool {
 public:
  virtual ~Ethtool() = default;
  /// Which backend this is (the probe reports it per NIC).
  virtual EthtoolBackend backend() const = 0;
  /// Port (netlink LINKINFO_GET; ioctl ETHTOOL_GLINKSETTINGS).
  virtual Status get_link_info(const std::string& ifname, LinkInfo& out) = 0;
  /// Autoneg, speed, duplex, supported, advertised and partner modes.
  virtual Status get_link_modes(const std::string& ifname, LinkInfo& out) = 0;
  /// Link up (netlink LINKSTATE_GET; ioctl ETHTOOL_GLINK).
  virtual Status get_link_state(const std::string& ifname, LinkInfo& out) = 0;
  virtual Result<Channels> get_channels(const std::string& ifname) = 0;
  virtual Result<Rings> get_rings(const std::string& ifname) = 0;
  virtual Result<Coalesce> get_coalesce(const std::string& ifname) = 0;
  /// The device's MTU range: rtnetlink's RTM_GETLINK (on a NETLINK_ROUTE socket of its
  /// own) for both backends, the one thing here ethtool does not say. EOPNOTSUPP from a
  /// kernel whose reply has no range (before 4.19).
  virtual Result<MtuRange> get_mtu_range(const std::string& ifname) = 0;
  /// SET requests; errors carry the kernel's errno (EOPNOTSUPP when the driver lacks the
  /// operation) and, from netlink, its extended ACK text.
  virtual Status set_link_modes(const std::string& ifname, const LinkModesRequest& req) = 0;
  virtual Status set_channels(const std::string& ifname, const Channels& ch) = 0;
  virtual Status set_rings(const std::string& ifname, const Rings& rings) = 0;
  /// Sends only the fields that are set. A field the driver does not support is refused
  /// (EINVAL from netlink, naming the field; EOPNOTSUPP from the ioctl on 5.7+).
  virtual Status set_coalesce(const std::string& ifname, const Coalesce& c) = 0;
};

/// Which backend open_ethtool() uses: TUNER_ETHTOOL_BACKEND=netlink|ioctl forces one;
/// unset or "auto", netlink when the kernel has the family, else the ioctl. Any other
/// value is an Error (invalid), naming the variable.
enum class EthtoolChoice { automatic, netlink, ioctl };
Result<EthtoolChoice> ethtool_choice_from_env();

/// Opens the backend `choice` names (automatic: netlink, else the ioctl). A forced
/// netlink fails where the kernel has no family; the ioctl backend opens everywhere.
Result<std::unique_ptr<Ethtool>> open_ethtool(EthtoolChoice choice);
/// open_ethtool(ethtool_choice_from_env()).
Result<std::unique_ptr<Ethtool>> open_ethtool();

}  // namespace tuner
