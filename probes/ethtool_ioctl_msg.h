// The SIOCETHTOOL ioctl's structs, encoded and decoded (no socket): link settings
// (ETHTOOL_GLINKSETTINGS/SLINKSETTINGS), channels, rings and coalescing. Each decoder
// reports what the netlink backend reports for the same device, so that the two give
// one inventory: a channel or ring pair only when the driver has a maximum for it, as
// ethnl's CHANNELS_GET and RINGS_GET put it. Each encoder is a read-modify-write: the
// ioctl sets the whole struct, so the fields a request leaves out keep the device's.
#pragma once

#include <linux/ethtool.h>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "probes/ethtool.h"

namespace tuner {

/// ETHTOOL_GLINKSETTINGS's reply: the fixed part, then the supported, advertised and
/// link partner's mode masks, base.link_mode_masks_nwords u32 words each.
struct LinkSettings {
  /// The fixed part, ethtool_link_settings without its masks, as the kernel sent it:
  /// kept whole, so that a SET sends back what tuner does not change. (A struct with a
  /// flexible array member cannot be a member itself.)
  ethtool_link_settings base() const;
  void set_base(const ethtool_link_settings& b);
  uint8_t nwords() const { return static_cast<uint8_t>(base().link_mode_masks_nwords); }

  std::array<uint32_t, sizeof(ethtool_link_settings) / 4> fixed{};
  std::vector<uint32_t> supported, advertising, partner;
};

/// The request of the first step of the mask-size handshake: nwords 0 asks the kernel
/// how many words its masks take.
ethtool_link_settings link_settings_handshake();
/// The kernel's answer to it: -nwords in link_mode_masks_nwords. Error (invalid) when
/// that is not a negative count.
Result<uint8_t> handshake_words(const ethtool_link_settings& reply);
/// The whole ioctl buffer for `nwords`-word masks, in u32 words (base first). The
/// second GET sends it with only cmd and nwords set; a SET with s's values.
std::vector<uint32_t> encode_link_settings(const LinkSettings& s, uint32_t cmd);
/// The buffer of a GET's reply; Error (invalid) when its nwords is not the one asked
/// or the buffer is too short for the masks.
Result<LinkSettings> decode_link_settings(std::span<const uint32_t> words, uint8_t nwords);

/// What LINKMODES_GET and LINKINFO_GET report, from link settings: autoneg, speed and
/// duplex (unknown or 0 speed: unset), port, supported and advertised modes, and the
/// partner's when the driver filled them. `names` are the link-mode names by bit.
void link_info_from_settings(const LinkSettings& s, const std::vector<std::string>& names,
                             LinkInfo& out);
/// The settings after `req` as the kernel's LINKMODES_SET makes them: autoneg, speed
/// and duplex as given; `advertise` names exactly the advertised modes; else, with
/// autoneg on and a speed or duplex asked, the supported speed modes of that speed and
/// duplex (other bits kept). The master-slave fields are cleared (SLINKSETTINGS
/// refuses them). Error (invalid) for a mode name `names` does not have.
Result<LinkSettings> apply_link_request(const LinkSettings& cur, const LinkModesRequest& req,
                                        const std::vector<std::string>& names,
                                        const std::string& ifname);
/// Whether a SET of `next` would change anything the request can: autoneg, speed,
/// duplex or the advertised modes (netlink sends nothing to the driver then either).
bool link_settings_differ(const LinkSettings& cur, const LinkSettings& next);

Channels decode_channels(const ethtool_channels& c);
/// `cur` with the counts `want` sets. Error (invalid) for an empty request.
Result<ethtool_channels> encode_channels(ethtool_channels cur, const Channels& want,
                                         const std::string& ifname);
Rings decode_rings(const ethtool_ringparam& r);
Result<ethtool_ringparam> encode_rings(ethtool_ringparam cur, const Rings& want,
                                       const std::string& ifname);
/// All six fields: unlike netlink (5.7+), the ioctl cannot say which ones the driver
/// supports, so a zero it does not support reads as a zero (DESIGN.md "ethtool
/// backends").
Coalesce decode_coalesce(const ethtool_coalesce& c);
Result<ethtool_coalesce> encode_coalesce(ethtool_coalesce cur, const Coalesce& want,
                                         const std::string& ifname);

/// The link-mode names the kernel gave (ETHTOOL_GSTRINGS of ETH_SS_LINK_MODES: 32-byte
/// NUL-padded strings), kept only when they agree with the built-in table on every bit
/// both name: an old kernel without the global set hands the request to the driver,
/// which may answer with another set's strings. Otherwise the built-in table.
std::vector<std::string> choose_link_mode_names(std::string_view gstrings, uint32_t count);

}  // namespace tuner
