// A NIC's driver and firmware versions (ETHTOOL_GDRVINFO): the netlink ethtool family
// has no message for them, so this one fact comes through the ethtool ioctl, on a
// socket of the caller's network namespace. Live machine only.
#pragma once

#include <optional>
#include <string>

#include "base/result.h"

namespace tuner {

struct DrvInfo {
  std::string driver;
  std::optional<std::string> version;           // empty in the kernel's reply = unknown
  std::optional<std::string> firmware_version;  // "16.35.2000 (MT_0000000012)", or unknown
  std::optional<std::string> bus_info;          // "0000:3b:00.0"
};

/// ETHTOOL_GDRVINFO for interface ifname. An Error with errno when the interface does
/// not exist (ENODEV) or its driver does not answer (EOPNOTSUPP).
Result<DrvInfo> read_drvinfo(const std::string& ifname);

}  // namespace tuner
