// Link-mode names and what they say: the kernel's names of the ethtool link-mode bits
// (net/ethtool/common.c link_mode_names, the ETH_SS_LINK_MODES string set), a mode's
// speed and duplex, and the names of the PORT_* values.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "probes/inventory.h"

namespace tuner {

/// The kernel's link-mode names indexed by bit number, as of Linux 6.18 (121 bits): what
/// the ioctl backend names modes by when the kernel does not give its own string set
/// (before 5.6, whose kernels have no ethtool netlink either). Bit numbers are kernel
/// ABI and never change; a bit past the table is "bit N", as netlink names a bit it
/// has no string for.
std::span<const std::string_view> builtin_link_mode_names();

/// Speed and duplex of an ethtool link mode name ("25000baseSR/Full"); nullopt for
/// bits that are not speeds ("Autoneg", "TP", "Pause", "RS").
struct ModeSpeed {
  uint32_t speed_mbps = 0;
  Duplex duplex = Duplex::full;  // full or half
};
std::optional<ModeSpeed> parse_link_mode(std::string_view name);

/// "TP", "FIBRE", "DA", ... for a PORT_* value; "port N" for one without a name.
std::string port_name(uint8_t port);

}  // namespace tuner
