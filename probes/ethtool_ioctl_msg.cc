#include "probes/ethtool_ioctl_msg.h"

#include <algorithm>
#include <cstring>

#include "probes/ethtool_bitset.h"
#include "probes/link_modes.h"

namespace tuner {
namespace {

constexpr size_t kBaseWords = sizeof(ethtool_link_settings) / 4;
static_assert(sizeof(ethtool_link_settings) % 4 == 0);

bool bit(const std::vector<uint32_t>& mask, size_t i) {
  return i / 32 < mask.size() && (mask[i / 32] >> (i % 32)) & 1u;
}
void set_bit(std::vector<uint32_t>& mask, size_t i, bool on) {
  if (i / 32 >= mask.size()) return;
  if (on) mask[i / 32] |= 1u << (i % 32);
  else mask[i / 32] &= ~(1u << (i % 32));
}

std::vector<std::string> mode_names(const std::vector<uint32_t>& mask,
                                    const std::vector<std::string>& names) {
  Bitset bits;
  bits.size = static_cast<uint32_t>(mask.size() * 32);
  bits.nomask = true;
  bits.value.resize(bits.size);
  for (size_t i = 0; i < bits.size; ++i) bits.value[i] = bit(mask, i);
  return bitset_names(bits, false, names);
}

bool any_bit(const std::vector<uint32_t>& mask) {
  return std::any_of(mask.begin(), mask.end(), [](uint32_t w) { return w != 0; });
}

std::optional<uint32_t> opt(uint32_t v) { return v; }

}  // namespace

ethtool_link_settings LinkSettings::base() const {
  ethtool_link_settings b;
  std::memcpy(&b, fixed.data(), sizeof b);
  return b;
}

void LinkSettings::set_base(const ethtool_link_settings& b) {
  std::memcpy(fixed.data(), &b, sizeof b);
}

ethtool_link_settings link_settings_handshake() {
  ethtool_link_settings s{};
  s.cmd = ETHTOOL_GLINKSETTINGS;
  s.link_mode_masks_nwords = 0;
  return s;
}

Result<uint8_t> handshake_words(const ethtool_link_settings& reply) {
  if (reply.link_mode_masks_nwords >= 0)
    return Error::invalid("ETHTOOL_GLINKSETTINGS handshake: no mask size in the reply (nwords " +
                              std::to_string(reply.link_mode_masks_nwords) + ")",
                          "ethtool ioctl");
  return static_cast<uint8_t>(-reply.link_mode_masks_nwords);
}

std::vector<uint32_t> encode_link_settings(const LinkSettings& s, uint32_t cmd) {
  size_t n = s.nwords();
  std::vector<uint32_t> words(kBaseWords + 3 * n, 0);
  std::copy(s.fixed.begin(), s.fixed.end(), words.begin());
  words[0] = cmd;
  const std::vector<uint32_t>* masks[] = {&s.supported, &s.advertising, &s.partner};
  for (size_t m = 0; m < 3; ++m)
    for (size_t i = 0; i < n && i < masks[m]->size(); ++i)
      words[kBaseWords + m * n + i] = (*masks[m])[i];
  return words;
}

Result<LinkSettings> decode_link_settings(std::span<const uint32_t> words, uint8_t nwords) {
  constexpr const char* where = "ethtool ioctl ETHTOOL_GLINKSETTINGS";
  if (words.size() < kBaseWords + 3 * size_t{nwords})
    return Error::invalid("reply shorter than its link-mode masks", where);
  LinkSettings s;
  std::copy(words.begin(), words.begin() + kBaseWords, s.fixed.begin());
  if (s.base().link_mode_masks_nwords != static_cast<int8_t>(nwords))
    return Error::invalid("reply has masks of " + std::to_string(s.base().link_mode_masks_nwords) +
                              " words, not the " + std::to_string(nwords) + " asked",
                          where);
  auto mask = [&](size_t m) {
    auto first = words.begin() + static_cast<std::ptrdiff_t>(kBaseWords + m * nwords);
    return std::vector<uint32_t>(first, first + nwords);
  };
  s.supported = mask(0);
  s.advertising = mask(1);
  s.partner = mask(2);
  return s;
}

void link_info_from_settings(const LinkSettings& s, const std::vector<std::string>& names,
                             LinkInfo& out) {
  ethtool_link_settings b = s.base();
  out.autoneg = b.autoneg == AUTONEG_ENABLE;
  // SPEED_UNKNOWN is -1 in a u32; 0 is what some drivers report without link.
  if (b.speed == static_cast<uint32_t>(SPEED_UNKNOWN) || b.speed == 0) out.speed_mbps.reset();
  else out.speed_mbps = b.speed;
  if (b.duplex == DUPLEX_FULL) out.duplex = Duplex::full;
  else if (b.duplex == DUPLEX_HALF) out.duplex = Duplex::half;
  else out.duplex.reset();
  out.port = port_name(b.port);
  // Netlink's OURS bitset: the mask is the supported modes, the value the advertised.
  out.supported_modes = mode_names(s.supported, names);
  out.advertised_modes = mode_names(s.advertising, names);
  // PEER is sent only when the driver filled lp_advertising.
  out.partner_modes = any_bit(s.partner) ? mode_names(s.partner, names)
                                         : std::vector<std::string>{};
}

Result<LinkSettings> apply_link_request(const LinkSettings& cur, const LinkModesRequest& req,
                                        const std::vector<std::string>& names,
                                        const std::string& ifname) {
  if (!req.autoneg && !req.speed_mbps && !req.duplex && req.advertise.empty())
    return Error::invalid("empty link modes request", ifname);
  LinkSettings next = cur;
  ethtool_link_settings b = cur.base();
  if (req.autoneg) b.autoneg = *req.autoneg ? AUTONEG_ENABLE : AUTONEG_DISABLE;
  if (req.speed_mbps) b.speed = *req.speed_mbps;
  if (req.duplex)
    b.duplex = *req.duplex == Duplex::full   ? DUPLEX_FULL
               : *req.duplex == Duplex::half ? DUPLEX_HALF
                                             : DUPLEX_UNKNOWN;
  b.master_slave_cfg = 0;  // MASTER_SLAVE_CFG_UNSUPPORTED: SLINKSETTINGS refuses others
  b.master_slave_state = 0;
  next.set_base(b);
  if (!req.advertise.empty()) {
    std::fill(next.advertising.begin(), next.advertising.end(), 0u);
    for (const std::string& mode : req.advertise) {
      auto it = std::find(names.begin(), names.end(), mode);
      if (mode.empty() || it == names.end())
        return Error::invalid("unknown link mode '" + mode + "'", ifname);
      auto i = static_cast<size_t>(it - names.begin());
      if (i / 32 >= next.advertising.size())
        return Error::invalid("link mode '" + mode + "' is past the kernel's masks", ifname);
      set_bit(next.advertising, i, true);
    }
  } else if (b.autoneg == AUTONEG_ENABLE && (req.speed_mbps || req.duplex)) {
    // ethnl_auto_linkmodes: each speed mode is advertised when supported and of the
    // asked speed and duplex; bits that are not speeds (Autoneg, TP, Pause) stay.
    for (size_t i = 0; i < names.size() && i / 32 < next.advertising.size(); ++i) {
      auto m = parse_link_mode(names[i]);
      if (!m) continue;
      bool on = bit(next.supported, i) && (!req.speed_mbps || m->speed_mbps == b.speed) &&
                (!req.duplex || (b.duplex == DUPLEX_FULL && m->duplex == Duplex::full) ||
                 (b.duplex == DUPLEX_HALF && m->duplex == Duplex::half));
      set_bit(next.advertising, i, on);
    }
  }
  return next;
}

bool link_settings_differ(const LinkSettings& cur, const LinkSettings& next) {
  ethtool_link_settings a = cur.base(), b = next.base();
  return a.autoneg != b.autoneg || a.speed != b.speed || a.duplex != b.duplex ||
         cur.advertising != next.advertising;
}

Channels decode_channels(const ethtool_channels& c) {
  Channels ch;
  // ethnl's CHANNELS_GET puts a count with its maximum, and only when that is not 0.
  if (c.max_rx) ch.rx_max = c.max_rx, ch.rx = c.rx_count;
  if (c.max_tx) ch.tx_max = c.max_tx, ch.tx = c.tx_count;
  if (c.max_other) ch.other_max = c.max_other, ch.other = c.other_count;
  if (c.max_combined) ch.combined_max = c.max_combined, ch.combined = c.combined_count;
  return ch;
}

Result<ethtool_channels> encode_channels(ethtool_channels cur, const Channels& want,
                                         const std::string& ifname) {
  if (!want.rx && !want.tx && !want.other && !want.combined)
    return Error::invalid("empty channels request", ifname);
  if (want.rx) cur.rx_count = *want.rx;
  if (want.tx) cur.tx_count = *want.tx;
  if (want.other) cur.other_count = *want.other;
  if (want.combined) cur.combined_count = *want.combined;
  cur.cmd = ETHTOOL_SCHANNELS;
  return cur;
}

Rings decode_rings(const ethtool_ringparam& r) {
  Rings out;
  if (r.rx_max_pending) out.rx_max = r.rx_max_pending, out.rx = r.rx_pending;
  if (r.tx_max_pending) out.tx_max = r.tx_max_pending, out.tx = r.tx_pending;
  return out;
}

Result<ethtool_ringparam> encode_rings(ethtool_ringparam cur, const Rings& want,
                                       const std::string& ifname) {
  if (!want.rx && !want.tx) return Error::invalid("empty rings request", ifname);
  if (want.rx) cur.rx_pending = *want.rx;
  if (want.tx) cur.tx_pending = *want.tx;
  cur.cmd = ETHTOOL_SRINGPARAM;
  return cur;
}

Coalesce decode_coalesce(const ethtool_coalesce& c) {
  Coalesce out;
  out.rx_usecs = opt(c.rx_coalesce_usecs);
  out.tx_usecs = opt(c.tx_coalesce_usecs);
  out.rx_frames = opt(c.rx_max_coalesced_frames);
  out.tx_frames = opt(c.tx_max_coalesced_frames);
  out.adaptive_rx = c.use_adaptive_rx_coalesce != 0;
  out.adaptive_tx = c.use_adaptive_tx_coalesce != 0;
  return out;
}

Result<ethtool_coalesce> encode_coalesce(ethtool_coalesce cur, const Coalesce& want,
                                         const std::string& ifname) {
  if (!want.rx_usecs && !want.tx_usecs && !want.rx_frames && !want.tx_frames && !want.adaptive_rx &&
      !want.adaptive_tx)
    return Error::invalid("empty coalesce request", ifname);
  if (want.rx_usecs) cur.rx_coalesce_usecs = *want.rx_usecs;
  if (want.tx_usecs) cur.tx_coalesce_usecs = *want.tx_usecs;
  if (want.rx_frames) cur.rx_max_coalesced_frames = *want.rx_frames;
  if (want.tx_frames) cur.tx_max_coalesced_frames = *want.tx_frames;
  if (want.adaptive_rx) cur.use_adaptive_rx_coalesce = *want.adaptive_rx ? 1 : 0;
  if (want.adaptive_tx) cur.use_adaptive_tx_coalesce = *want.adaptive_tx ? 1 : 0;
  cur.cmd = ETHTOOL_SCOALESCE;
  return cur;
}

std::vector<std::string> choose_link_mode_names(std::string_view gstrings, uint32_t count) {
  auto builtin = builtin_link_mode_names();
  std::vector<std::string> fallback(builtin.begin(), builtin.end());
  if (count == 0 || gstrings.size() < size_t{count} * ETH_GSTRING_LEN) return fallback;
  std::vector<std::string> names;
  for (uint32_t i = 0; i < count; ++i) {
    std::string_view s = gstrings.substr(size_t{i} * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
    names.emplace_back(s.substr(0, std::min(s.find('\0'), s.size())));
  }
  for (size_t i = 0; i < names.size() && i < builtin.size(); ++i)
    if (names[i] != builtin[i]) return fallback;
  return names;
}

}  // namespace tuner
