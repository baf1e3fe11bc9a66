#include "probes/ethtool_msg.h"

#include <libmnl/libmnl.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>

#include <cstring>

#include "probes/ethtool_attr.h"
#include "probes/ethtool_bitset.h"
#include "probes/genl_parse.h"
#include "probes/ifname.h"
#include "probes/link_modes.h"

namespace tuner {
namespace {

// The extended ACK's "missing attribute" TLV (Linux 6.0): an enumerator, so older
// headers (Debian 11's 5.10) cannot be asked with #ifdef. Numbered as the kernel has it;
// the table has room for it whatever the headers say.
constexpr unsigned kErrAttrMissType = 5;
constexpr unsigned kErrAttrMax = static_cast<unsigned>(NLMSGERR_ATTR_MAX) > kErrAttrMissType + 1
                                     ? static_cast<unsigned>(NLMSGERR_ATTR_MAX)
                                     : kErrAttrMissType + 1;

// Requests are small: a header nest and a few u32s.
// Room for a LINKMODES_SET that names every link mode the kernel knows (~120 names).
constexpr size_t kRequestBytes = 16384;
// Link modes are ~120 names; a count past this is corruption.
constexpr uint32_t kMaxStrings = 1u << 16;

Result<std::optional<uint32_t>> opt_u32(const nlattr* a, const char* where) {
  if (!a) return std::optional<uint32_t>{};
  auto v = attr_u32(a, where);
  if (!v) return v.error();
  return std::optional<uint32_t>(*v);
}

void put_header(nlmsghdr* nlh, uint16_t type, const std::string& ifname, uint32_t flags) {
  nlattr* nest = mnl_attr_nest_start(nlh, type);
  if (!ifname.empty()) mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, ifname.c_str());
  if (flags) mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_FLAGS, flags);
  mnl_attr_nest_end(nlh, nest);
}

}  // namespace

bool nlmsg_fits(const nlmsghdr* nlh, int len) {
  return len >= static_cast<int>(sizeof(nlmsghdr)) && nlh->nlmsg_len >= sizeof(nlmsghdr) &&
         nlh->nlmsg_len <= static_cast<unsigned>(len);
}

NlRequest::NlRequest(uint16_t family, uint8_t cmd, uint16_t flags, uint32_t seq)
    : buf_(kRequestBytes / 4) {
  nlmsghdr* nlh = mnl_nlmsg_put_header(buf_.data());
  nlh->nlmsg_type = family;
  nlh->nlmsg_flags = NLM_F_REQUEST | flags;
  nlh->nlmsg_seq = seq;
  auto* genl = static_cast<genlmsghdr*>(mnl_nlmsg_put_extra_header(nlh, sizeof(genlmsghdr)));
  genl->cmd = cmd;
  // Both families are at version 1 today; the names say which version is whose.
  // NOLINTNEXTLINE(bugprone-branch-clone)
  genl->version = family == GENL_ID_CTRL ? 1 : ETHTOOL_GENL_VERSION;
}

NlRequest::NlRequest() : buf_(kRequestBytes / 4) {}

NlRequest NlRequest::plain(uint16_t type, uint16_t flags, uint32_t seq) {
  NlRequest r;
  nlmsghdr* nlh = mnl_nlmsg_put_header(r.buf_.data());
  nlh->nlmsg_type = type;
  nlh->nlmsg_flags = NLM_F_REQUEST | flags;
  nlh->nlmsg_seq = seq;
  return r;
}

std::string_view NlRequest::bytes() const {
  const auto* nlh = reinterpret_cast<const nlmsghdr*>(buf_.data());
  return {reinterpret_cast<const char*>(buf_.data()), nlh->nlmsg_len};
}

NlRequest build_family_request(uint32_t seq, const char* family) {
  NlRequest r(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK, seq);
  mnl_attr_put_strz(r.header(), CTRL_ATTR_FAMILY_NAME, family);
  return r;
}

NlRequest build_get_request(uint16_t family, uint8_t cmd, const std::string& ifname, uint32_t flags,
                            uint32_t seq) {
  NlRequest r(family, cmd, NLM_F_ACK, seq);
  // Every ethtool request's header nest is attribute 1 (ETHTOOL_A_*_HEADER).
  put_header(r.header(), 1, ifname, flags);
  return r;
}

NlRequest build_link_mode_names_request(uint16_t family, uint32_t seq) {
  NlRequest r(family, ETHTOOL_MSG_STRSET_GET, NLM_F_ACK, seq);
  nlmsghdr* nlh = r.header();
  put_header(nlh, ETHTOOL_A_STRSET_HEADER, "", 0);  // required, even with no device
  nlattr* sets = mnl_attr_nest_start(nlh, ETHTOOL_A_STRSET_STRINGSETS);
  nlattr* set = mnl_attr_nest_start(nlh, ETHTOOL_A_STRINGSETS_STRINGSET);
  mnl_attr_put_u32(nlh, ETHTOOL_A_STRINGSET_ID, ETH_SS_LINK_MODES);
  mnl_attr_nest_end(nlh, set);
  mnl_attr_nest_end(nlh, sets);
  return r;
}

Result<NlRequest> build_linkmodes_set(uint16_t family, const std::string& ifname,
                                      const LinkModesRequest& req, uint32_t seq) {
  if (auto ok = validate_ifname(ifname, IfnameRule::kernel); !ok)
    return ok.error().context("ethtool netlink");
  if (!req.autoneg && !req.speed_mbps && !req.duplex && req.advertise.empty())
    return Error::invalid("empty link modes request", ifname);
  uint8_t duplex = DUPLEX_UNKNOWN;  // Duplex::unknown: virtio-net accepts it back
  if (req.duplex == Duplex::full) duplex = DUPLEX_FULL;
  else if (req.duplex == Duplex::half) duplex = DUPLEX_HALF;
  NlRequest r(family, ETHTOOL_MSG_LINKMODES_SET, NLM_F_ACK, seq);
  nlmsghdr* nlh = r.header();
  put_header(nlh, ETHTOOL_A_LINKMODES_HEADER, ifname, 0);
  if (req.autoneg)
    mnl_attr_put_u8(nlh, ETHTOOL_A_LINKMODES_AUTONEG,
                    *req.autoneg ? AUTONEG_ENABLE : AUTONEG_DISABLE);
  if (req.speed_mbps) mnl_attr_put_u32(nlh, ETHTOOL_A_LINKMODES_SPEED, *req.speed_mbps);
  if (req.duplex) mnl_attr_put_u8(nlh, ETHTOOL_A_LINKMODES_DUPLEX, duplex);
  if (!req.advertise.empty()) {
    // A verbose list (NOMASK): the named bits are set, every other bit is cleared.
    nlattr* ours = mnl_attr_nest_start(nlh, ETHTOOL_A_LINKMODES_OURS);
    mnl_attr_put(nlh, ETHTOOL_A_BITSET_NOMASK, 0, nullptr);
    nlattr* bits = mnl_attr_nest_start(nlh, ETHTOOL_A_BITSET_BITS);
    for (const std::string& mode : req.advertise) {
      if (mode.empty() || mode.size() > ETH_GSTRING_LEN)
        return Error::invalid("invalid link mode name '" + mode + "'", ifname);
      nlattr* bit = mnl_attr_nest_start_check(nlh, kRequestBytes, ETHTOOL_A_BITSET_BITS_BIT);
      if (!bit ||
          !mnl_attr_put_strz_check(nlh, kRequestBytes, ETHTOOL_A_BITSET_BIT_NAME, mode.c_str()))
        return Error::invalid("too many link modes to advertise in one request", ifname);
      mnl_attr_nest_end(nlh, bit);
    }
    mnl_attr_nest_end(nlh, bits);
    mnl_attr_nest_end(nlh, ours);
  }
  return r;
}

Result<NlRequest> build_channels_set(uint16_t family, const std::string& ifname, const Channels& ch,
                                     uint32_t seq) {
  if (auto ok = validate_ifname(ifname, IfnameRule::kernel); !ok)
    return ok.error().context("ethtool netlink");
  if (!ch.rx && !ch.tx && !ch.other && !ch.combined)
    return Error::invalid("empty channels request", ifname);
  NlRequest r(family, ETHTOOL_MSG_CHANNELS_SET, NLM_F_ACK, seq);
  nlmsghdr* nlh = r.header();
  put_header(nlh, ETHTOOL_A_CHANNELS_HEADER, ifname, 0);
  if (ch.rx) mnl_attr_put_u32(nlh, ETHTOOL_A_CHANNELS_RX_COUNT, *ch.rx);
  if (ch.tx) mnl_attr_put_u32(nlh, ETHTOOL_A_CHANNELS_TX_COUNT, *ch.tx);
  if (ch.other) mnl_attr_put_u32(nlh, ETHTOOL_A_CHANNELS_OTHER_COUNT, *ch.other);
  if (ch.combined) mnl_attr_put_u32(nlh, ETHTOOL_A_CHANNELS_COMBINED_COUNT, *ch.combined);
  return r;
}

Result<NlRequest> build_rings_set(uint16_t family, const std::string& ifname, const Rings& rings,
                                  uint32_t seq) {
  if (auto ok = validate_ifname(ifname, IfnameRule::kernel); !ok)
    return ok.error().context("ethtool netlink");
  if (!rings.rx && !rings.tx) return Error::invalid("empty rings request", ifname);
  NlRequest r(family, ETHTOOL_MSG_RINGS_SET, NLM_F_ACK, seq);
  nlmsghdr* nlh = r.header();
  put_header(nlh, ETHTOOL_A_RINGS_HEADER, ifname, 0);
  if (rings.rx) mnl_attr_put_u32(nlh, ETHTOOL_A_RINGS_RX, *rings.rx);
  if (rings.tx) mnl_attr_put_u32(nlh, ETHTOOL_A_RINGS_TX, *rings.tx);
  return r;
}

Result<NlRequest> build_coalesce_set(uint16_t family, const std::string& ifname, const Coalesce& c,
                                     uint32_t seq) {
  if (auto ok = validate_ifname(ifname, IfnameRule::kernel); !ok)
    return ok.error().context("ethtool netlink");
  if (!c.rx_usecs && !c.tx_usecs && !c.rx_frames && !c.tx_frames && !c.adaptive_rx &&
      !c.adaptive_tx)
    return Error::invalid("empty coalesce request", ifname);
  NlRequest r(family, ETHTOOL_MSG_COALESCE_SET, NLM_F_ACK, seq);
  nlmsghdr* nlh = r.header();
  put_header(nlh, ETHTOOL_A_COALESCE_HEADER, ifname, 0);
  if (c.rx_usecs) mnl_attr_put_u32(nlh, ETHTOOL_A_COALESCE_RX_USECS, *c.rx_usecs);
  if (c.tx_usecs) mnl_attr_put_u32(nlh, ETHTOOL_A_COALESCE_TX_USECS, *c.tx_usecs);
  if (c.rx_frames) mnl_attr_put_u32(nlh, ETHTOOL_A_COALESCE_RX_MAX_FRAMES, *c.rx_frames);
  if (c.tx_frames) mnl_attr_put_u32(nlh, ETHTOOL_A_COALESCE_TX_MAX_FRAMES, *c.tx_frames);
  if (c.adaptive_rx) mnl_attr_put_u8(nlh, ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, *c.adaptive_rx);
  if (c.adaptive_tx) mnl_attr_put_u8(nlh, ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX, *c.adaptive_tx);
  return r;
}

const char* coalesce_field_name(uint16_t attr_type) {
  switch (attr_type) {
    case ETHTOOL_A_COALESCE_RX_USECS: return "rx-usecs";
    case ETHTOOL_A_COALESCE_TX_USECS: return "tx-usecs";
    case ETHTOOL_A_COALESCE_RX_MAX_FRAMES: return "rx-frames";
    case ETHTOOL_A_COALESCE_TX_MAX_FRAMES: return "tx-frames";
    case ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX: return "adaptive-rx";
    case ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX: return "adaptive-tx";
    default: return nullptr;
  }
}

std::optional<uint16_t> attr_type_at(std::string_view request, uint32_t offset) {
  if (offset < sizeof(nlmsghdr) + sizeof(genlmsghdr) || offset % 4 != 0 ||
      request.size() < sizeof(nlattr) || offset > request.size() - sizeof(nlattr))
    return std::nullopt;
  nlattr a;
  std::memcpy(&a, request.data() + offset, sizeof(a));
  if (a.nla_len < sizeof(nlattr) || a.nla_len > request.size() - offset) return std::nullopt;
  return static_cast<uint16_t>(a.nla_type & NLA_TYPE_MASK);
}

Result<NlAck> parse_ack(std::string_view msg) {
  constexpr const char* where = "netlink ack";
  auto store = aligned_message(msg, where);
  if (!store) return store.error();
  const auto* nlh = reinterpret_cast<const nlmsghdr*>(store->data());
  if (nlh->nlmsg_type != NLMSG_ERROR) return Error::invalid("not an error message", where);
  size_t payload = mnl_nlmsg_get_payload_len(nlh);
  if (payload < sizeof(int)) return Error::invalid("error message without error code", where);
  const auto* err = static_cast<const nlmsgerr*>(mnl_nlmsg_get_payload(nlh));
  NlAck ack;
  // The kernel sends 0 or -errno, and errnos stop at 4095 (MAX_ERRNO); negating
  // INT_MIN would be undefined (found by fuzz/netlink_fuzz.cc).
  if (err->error < -kMaxErrno || err->error > kMaxErrno)
    return Error::invalid("error code " + std::to_string(err->error) + " is no errno", where);
  ack.error = err->error < 0 ? -err->error : err->error;
  if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS)) return ack;
  // The TLVs follow the echoed request: its header only when capped, else all of it.
  if (payload < sizeof(nlmsgerr)) return Error::invalid("truncated error message", where);
  size_t offset = (nlh->nlmsg_flags & NLM_F_CAPPED) ? sizeof(nlmsgerr)
                                                    : sizeof(int) + err->msg.nlmsg_len;
  offset = MNL_ALIGN(offset);
  if (offset > payload) return Error::invalid("error TLVs beyond message end", where);
  AttrTable<kErrAttrMax> t;
  if (mnl_attr_parse(nlh, static_cast<unsigned>(offset), attr_detail::store<kErrAttrMax>, &t) < 0)
    return Error::invalid("malformed error TLVs", where);
  if (const nlattr* m = t[NLMSGERR_ATTR_MSG]) {
    auto s = attr_str(m, where);
    if (!s) return s.error();
    ack.message = *s;
  }
  if (const nlattr* m = t[kErrAttrMissType]; m && ack.message.empty()) {
    auto type = attr_u32(m, where);
    if (!type) return type.error();
    ack.message = "missing required attribute " + std::to_string(*type);
  }
  if (const nlattr* m = t[NLMSGERR_ATTR_OFFS]) {
    auto offs = attr_u32(m, where);
    if (!offs) return offs.error();
    ack.bad_attr_offset = *offs;
  }
  return ack;
}

Result<uint16_t> parse_family_reply(std::string_view msg) {
  constexpr const char* where = "genetlink family reply";
  auto p = parse_genl<CTRL_ATTR_MAX>(msg, CTRL_CMD_NEWFAMILY, where);
  if (!p) return p.error();
  const nlattr* id = p->attrs[CTRL_ATTR_FAMILY_ID];
  if (!id || mnl_attr_validate(id, MNL_TYPE_U16) < 0)
    return Error::invalid("no valid family id", where);
  return mnl_attr_get_u16(id);
}

Result<std::vector<std::string>> parse_link_mode_names(std::string_view msg) {
  constexpr const char* where = "ethtool STRSET_GET reply";
  auto p = parse_genl<ETHTOOL_A_STRSET_MAX>(msg, ETHTOOL_MSG_STRSET_GET_REPLY, where);
  if (!p) return p.error();
  const nlattr* sets = p->attrs[ETHTOOL_A_STRSET_STRINGSETS];
  if (!sets) return Error::invalid("no string sets in reply", where);
  auto set_list = nested_list(sets, where);
  if (!set_list) return set_list.error();
  for (const nlattr* set : *set_list) {
    auto st = parse_nested<ETHTOOL_A_STRINGSET_MAX>(set, where);
    if (!st) return st.error();
    auto id = opt_u32((*st)[ETHTOOL_A_STRINGSET_ID], where);
    auto count = opt_u32((*st)[ETHTOOL_A_STRINGSET_COUNT], where);
    if (!id) return id.error();
    if (!count) return count.error();
    if (*id != std::optional<uint32_t>(ETH_SS_LINK_MODES)) continue;
    if (!*count || **count > kMaxStrings)
      return Error::invalid("missing or absurd string count", where);
    std::vector<std::string> names(**count);
    const nlattr* strings = (*st)[ETHTOOL_A_STRINGSET_STRINGS];
    if (!strings) return names;  // count without strings: the kernel sends that for 0
    auto string_list = nested_list(strings, where);
    if (!string_list) return string_list.error();
    for (const nlattr* s : *string_list) {
      auto str = parse_nested<ETHTOOL_A_STRING_MAX>(s, where);
      if (!str) return str.error();
      auto index = opt_u32((*str)[ETHTOOL_A_STRING_INDEX], where);
      if (!index) return index.error();
      if (!*index || **index >= names.size())
        return Error::invalid("string index out of range", where);
      if (const nlattr* v = (*str)[ETHTOOL_A_STRING_VALUE]) {
        auto text = attr_str(v, where);
        if (!text) return text.error();
        names[**index] = *text;
      }
    }
    return names;
  }
  return Error::invalid("no link mode string set in reply", where);
}

Status parse_linkinfo_reply(std::string_view msg, LinkInfo& out) {
  constexpr const char* where = "ethtool LINKINFO_GET reply";
  auto p = parse_genl<ETHTOOL_A_LINKINFO_MAX>(msg, ETHTOOL_MSG_LINKINFO_GET_REPLY, where);
  if (!p) return p.error();
  if (const nlattr* a = p->attrs[ETHTOOL_A_LINKINFO_PORT]) {
    auto v = attr_u8(a, where);
    if (!v) return v.error();
    out.port = port_name(*v);
  }
  return Ok{};
}

Status parse_linkmodes_reply(std::string_view msg, const std::vector<std::string>& names,
                             LinkInfo& out) {
  constexpr const char* where = "ethtool LINKMODES_GET reply";
  auto p = parse_genl<ETHTOOL_A_LINKMODES_MAX>(msg, ETHTOOL_MSG_LINKMODES_GET_REPLY, where);
  if (!p) return p.error();
  LinkInfo info = out;  // only commit on success
  if (const nlattr* a = p->attrs[ETHTOOL_A_LINKMODES_AUTONEG]) {
    auto v = attr_u8(a, where);
    if (!v) return v.error();
    info.autoneg = *v == AUTONEG_ENABLE;
  }
  if (const nlattr* a = p->attrs[ETHTOOL_A_LINKMODES_SPEED]) {
    auto v = attr_u32(a, where);
    if (!v) return v.error();
    // SPEED_UNKNOWN is -1 in a u32; 0 is what some drivers report without link.
    if (*v == static_cast<uint32_t>(SPEED_UNKNOWN) || *v == 0) info.speed_mbps.reset();
    else info.speed_mbps = *v;
  }
  if (const nlattr* a = p->attrs[ETHTOOL_A_LINKMODES_DUPLEX]) {
    auto v = attr_u8(a, where);
    if (!v) return v.error();
    if (*v == DUPLEX_FULL) info.duplex = Duplex::full;
    else if (*v == DUPLEX_HALF) info.duplex = Duplex::half;
    else info.duplex.reset();
  }
  if (const nlattr* a = p->attrs[ETHTOOL_A_LINKMODES_OURS]) {
    auto bits = parse_bitset(a);
    if (!bits) return Error::invalid(bits.error().what, where);
    info.supported_modes = bitset_names(*bits, true, names);
    info.advertised_modes = bitset_names(*bits, false, names);
  }
  // The kernel sends PEER (a list, no mask) only when the driver filled lp_advertising.
  info.partner_modes.clear();
  if (const nlattr* a = p->attrs[ETHTOOL_A_LINKMODES_PEER]) {
    auto bits = parse_bitset(a);
    if (!bits) return Error::invalid(bits.error().what, where);
    info.partner_modes = bitset_names(*bits, false, names);
  }
  out = std::move(info);
  return Ok{};
}

Status parse_linkstate_reply(std::string_view msg, LinkInfo& out) {
  constexpr const char* where = "ethtool LINKSTATE_GET reply";
  auto p = parse_genl<ETHTOOL_A_LINKSTATE_MAX>(msg, ETHTOOL_MSG_LINKSTATE_GET_REPLY, where);
  if (!p) return p.error();
  if (const nlattr* a = p->attrs[ETHTOOL_A_LINKSTATE_LINK]) {
    auto v = attr_u8(a, where);
    if (!v) return v.error();
    out.up = *v != 0;
  }
  return Ok{};
}

Result<Channels> parse_channels_reply(std::string_view msg) {
  constexpr const char* where = "ethtool CHANNELS_GET reply";
  auto p = parse_genl<ETHTOOL_A_CHANNELS_MAX>(msg, ETHTOOL_MSG_CHANNELS_GET_REPLY, where);
  if (!p) return p.error();
  Channels ch;
  std::pair<unsigned, std::optional<uint32_t>*> fields[] = {
      {ETHTOOL_A_CHANNELS_RX_COUNT, &ch.rx},
      {ETHTOOL_A_CHANNELS_TX_COUNT, &ch.tx},
      {ETHTOOL_A_CHANNELS_OTHER_COUNT, &ch.other},
      {ETHTOOL_A_CHANNELS_COMBINED_COUNT, &ch.combined},
      {ETHTOOL_A_CHANNELS_RX_MAX, &ch.rx_max},
      {ETHTOOL_A_CHANNELS_TX_MAX, &ch.tx_max},
      {ETHTOOL_A_CHANNELS_OTHER_MAX, &ch.other_max},
      {ETHTOOL_A_CHANNELS_COMBINED_MAX, &ch.combined_max}};
  for (auto& [type, field] : fields) {
    auto v = opt_u32(p->attrs[type], where);
    if (!v) return v.error();
    *field = *v;
  }
  return ch;
}

Result<Rings> parse_rings_reply(std::string_view msg) {
  constexpr const char* where = "ethtool RINGS_GET reply";
  auto p = parse_genl<ETHTOOL_A_RINGS_MAX>(msg, ETHTOOL_MSG_RINGS_GET_REPLY, where);
  if (!p) return p.error();
  Rings r;
  std::pair<unsigned, std::optional<uint32_t>*> fields[] = {{ETHTOOL_A_RINGS_RX, &r.rx},
                                                            {ETHTOOL_A_RINGS_TX, &r.tx},
                                                            {ETHTOOL_A_RINGS_RX_MAX, &r.rx_max},
                                                            {ETHTOOL_A_RINGS_TX_MAX, &r.tx_max}};
  for (auto& [type, field] : fields) {
    auto v = opt_u32(p->attrs[type], where);
    if (!v) return v.error();
    *field = *v;
  }
  return r;
}

Result<Coalesce> parse_coalesce_reply(std::string_view msg) {
  constexpr const char* where = "ethtool COALESCE_GET reply";
  auto p = parse_genl<ETHTOOL_A_COALESCE_MAX>(msg, ETHTOOL_MSG_COALESCE_GET_REPLY, where);
  if (!p) return p.error();
  Coalesce c;
  std::pair<unsigned, std::optional<uint32_t>*> fields[] = {
      {ETHTOOL_A_COALESCE_RX_USECS, &c.rx_usecs},
      {ETHTOOL_A_COALESCE_TX_USECS, &c.tx_usecs},
      {ETHTOOL_A_COALESCE_RX_MAX_FRAMES, &c.rx_frames},
      {ETHTOOL_A_COALESCE_TX_MAX_FRAMES, &c.tx_frames}};
  for (auto& [type, field] : fields) {
    auto v = opt_u32(p->attrs[type], where);
    if (!v) return v.error();
    *field = *v;
  }
  std::pair<unsigned, std::optional<bool>*> flags[] = {
      {ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, &c.adaptive_rx},
      {ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX, &c.adaptive_tx}};
  for (auto& [type, flag] : flags) {
    if (const nlattr* a = p->attrs[type]) {
      auto v = attr_u8(a, where);
      if (!v) return v.error();
      *flag = *v != 0;
    }
  }
  return c;
}

}  // namespace tuner
