// ethtool generic netlink messages: building requests and parsing replies. Pure code on
// byte buffers (no socket), so recorded kernel replies are the unit-test input. Each
// parser takes one whole netlink message (nlmsghdr onward) as the kernel sent it.
#pragma once

#include <linux/netlink.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "probes/ethtool.h"
#include "probes/inventory.h"

namespace tuner {

/// A netlink request in 4-byte-aligned storage.
class NlRequest {
 public:
  /// Starts a generic netlink message to `family` with command `cmd`.
  NlRequest(uint16_t family, uint8_t cmd, uint16_t flags, uint32_t seq);
  /// Starts a plain netlink message (rtnetlink: RTM_GETLINK, ...) with no generic
  /// netlink header; the caller puts its family's header next.
  static NlRequest plain(uint16_t type, uint16_t flags, uint32_t seq);
  nlmsghdr* header() { return reinterpret_cast<nlmsghdr*>(buf_.data()); }
  std::string_view bytes() const;

 private:
  NlRequest();
  std::vector<uint32_t> buf_;
};

/// Whether a whole netlink message lies at the front of `len` bytes. libmnl's
/// mnl_nlmsg_ok compares nlmsg_len as an int, so a length of 2^31 or more passes it
/// and the payload runs past the buffer (found by fuzz/netlink_fuzz.cc).
bool nlmsg_fits(const nlmsghdr* nlh, int len);

/// CTRL_CMD_GETFAMILY for a generic netlink family ("ethtool", "netdev").
NlRequest build_family_request(uint32_t seq, const char* family = "ethtool");
/// An ethtool *_GET for one device (name checked by validate_ifname first); `flags` are ETHTOOL_FLAG_* for the request header.
NlRequest build_get_request(uint16_t family, uint8_t cmd, const std::string& ifname, uint32_t flags,
                            uint32_t seq);
/// STRSET_GET for the global link-mode names (ETH_SS_LINK_MODES).
NlRequest build_link_mode_names_request(uint16_t family, uint32_t seq);
/// LINKMODES_SET; Error for an empty request.
Result<NlRequest> build_linkmodes_set(uint16_t family, const std::string& ifname,
                                      const LinkModesRequest& req, uint32_t seq);
/// CHANNELS_SET with the counts that are set (the *_max fields are ignored).
Result<NlRequest> build_channels_set(uint16_t family, const std::string& ifname, const Channels& ch,
                                     uint32_t seq);
/// RINGS_SET with rx/tx when set.
Result<NlRequest> build_rings_set(uint16_t family, const std::string& ifname, const Rings& rings,
                                  uint32_t seq);

/// COALESCE_SET with the fields that are set; Error for an empty request.
Result<NlRequest> build_coalesce_set(uint16_t family, const std::string& ifname, const Coalesce& c,
                                     uint32_t seq);
/// The coalesce field an ETHTOOL_A_COALESCE_* attribute carries, as the knob value names
/// it ("rx-usecs"); nullptr for attributes tuner does not set.
const char* coalesce_field_name(uint16_t attr_type);
/// The type of the attribute that starts `offset` bytes into `request` (an extended
/// ACK's NLMSGERR_ATTR_OFFS); nullopt when no whole attribute header lies there.
std::optional<uint16_t> attr_type_at(std::string_view request, uint32_t offset);

/// The largest errno the kernel sends in netlink (MAX_ERRNO).
inline constexpr int kMaxErrno = 4095;

/// An NLMSG_ERROR message: error 0 is an ACK; message is NLMSGERR_ATTR_MSG if sent.
struct NlAck {
  int error = 0;  // positive errno
  std::string message;
  /// NLMSGERR_ATTR_OFFS: where in the request the attribute the kernel refused starts.
  std::optional<uint32_t> bad_attr_offset;
};
Result<NlAck> parse_ack(std::string_view msg);

/// CTRL_CMD_NEWFAMILY reply: the family id.
Result<uint16_t> parse_family_reply(std::string_view msg);
/// STRSET_GET reply: the ETH_SS_LINK_MODES names indexed by bit.
Result<std::vector<std::string>> parse_link_mode_names(std::string_view msg);
/// LINKINFO_GET reply: port.
Status parse_linkinfo_reply(std::string_view msg, LinkInfo& out);
/// LINKMODES_GET reply: autoneg, speed, duplex, supported (bitset mask) and advertised
/// (bitset value) modes, and the link partner's advertised modes (PEER) when sent.
/// Names come from a verbose bitset, else from `names`.
Status parse_linkmodes_reply(std::string_view msg, const std::vector<std::string>& names,
                             LinkInfo& out);
/// LINKSTATE_GET reply: link up.
Status parse_linkstate_reply(std::string_view msg, LinkInfo& out);
Result<Channels> parse_channels_reply(std::string_view msg);
Result<Rings> parse_rings_reply(std::string_view msg);
/// COALESCE_GET reply: rx/tx usecs and max frames, adaptive rx/tx, each when sent.
Result<Coalesce> parse_coalesce_reply(std::string_view msg);

}  // namespace tuner
