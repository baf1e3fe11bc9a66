#include "probes/ethtool_ioctl.h"

#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <optional>

#include "base/unique_fd.h"
#include "probes/ethtool_ioctl_msg.h"
#include "probes/ifname.h"
#include "probes/link_modes.h"
#include "probes/mtu_range.h"

namespace tuner {
namespace {

class EthtoolIoctl : public Ethtool {
 public:
  explicit EthtoolIoctl(UniqueFd sock) : sock_(std::move(sock)) {}

  EthtoolBackend backend() const override { return EthtoolBackend::ioctl; }

  Status get_link_info(const std::string& ifname, LinkInfo& out) override {
    auto s = link_settings(ifname);
    if (!s) return s.error();
    out.port = port_name(s->base().port);
    return Ok{};
  }

  Status get_link_modes(const std::string& ifname, LinkInfo& out) override {
    auto s = link_settings(ifname);
    if (!s) return s.error();
    auto names = link_mode_names(ifname);
    std::optional<std::string> port = out.port;
    link_info_from_settings(*s, names, out);
    out.port = port;  // LINKINFO's, as netlink's LINKMODES_GET leaves it
    return Ok{};
  }

  Status get_link_state(const std::string& ifname, LinkInfo& out) override {
    ethtool_value v{};
    v.cmd = ETHTOOL_GLINK;
    if (auto ok = call(ifname, &v, "ETHTOOL_GLINK"); !ok) return ok.error();
    out.up = v.data != 0;
    return Ok{};
  }

  Result<Channels> get_channels(const std::string& ifname) override {
    auto c = read<ethtool_channels>(ifname, ETHTOOL_GCHANNELS, "ETHTOOL_GCHANNELS");
    if (!c) return c.error();
    return decode_channels(*c);
  }

  Result<Rings> get_rings(const std::string& ifname) override {
    auto r = read<ethtool_ringparam>(ifname, ETHTOOL_GRINGPARAM, "ETHTOOL_GRINGPARAM");
    if (!r) return r.error();
    return decode_rings(*r);
  }

  Result<Coalesce> get_coalesce(const std::string& ifname) override {
    auto c = read<ethtool_coalesce>(ifname, ETHTOOL_GCOALESCE, "ETHTOOL_GCOALESCE");
    if (!c) return c.error();
    return decode_coalesce(*c);
  }

  Result<MtuRange> get_mtu_range(const std::string& ifname) override {
    return read_mtu_range(ifname);
  }

  Status set_link_modes(const std::string& ifname, const LinkModesRequest& req) override {
    auto cur = link_settings(ifname);
    if (!cur) return cur.error();
    auto next = apply_link_request(*cur, req, link_mode_names(ifname), ifname);
    if (!next) return next.error();
    if (!link_settings_differ(*cur, *next)) return Ok{};  // as netlink: nothing to send
    std::vector<uint32_t> words = encode_link_settings(*next, ETHTOOL_SLINKSETTINGS);
    return call(ifname, words.data(), "ETHTOOL_SLINKSETTINGS");
  }

  Status set_channels(const std::string& ifname, const Channels& ch) override {
    return read_modify_write<ethtool_channels>(ifname, ETHTOOL_GCHANNELS, "ETHTOOL_GCHANNELS",
                                               encode_channels, ch, "ETHTOOL_SCHANNELS");
  }

  Status set_rings(const std::string& ifname, const Rings& rings) override {
    return read_modify_write<ethtool_ringparam>(ifname, ETHTOOL_GRINGPARAM, "ETHTOOL_GRINGPARAM",
                                                encode_rings, rings, "ETHTOOL_SRINGPARAM");
  }

  Status set_coalesce(const std::string& ifname, const Coalesce& c) override {
    return read_modify_write<ethtool_coalesce>(ifname, ETHTOOL_GCOALESCE, "ETHTOOL_GCOALESCE",
                                               encode_coalesce, c, "ETHTOOL_SCOALESCE");
  }

 private:
  /// One SIOCETHTOOL on ifname with `data` (its first u32 is the ETHTOOL_* command).
  Status call(const std::string& ifname, void* data, const char* op) {
    if (auto ok = validate_ifname(ifname, IfnameRule::kernel); !ok)
      return ok.error().context("ethtool ioctl");
    ifreq req{};
    std::memcpy(req.ifr_name, ifname.data(), ifname.size());
    req.ifr_data = static_cast<char*>(data);
    int rc;
    do rc = ::ioctl(sock_.get(), SIOCETHTOOL, &req);
    while (rc != 0 && errno == EINTR);
    if (rc != 0) return errno_error("request failed", ifname + ": ethtool ioctl " + op, errno);
    return Ok{};
  }

  template <typename T>
  Result<T> read(const std::string& ifname, uint32_t cmd, const char* op) {
    T v{};
    v.cmd = cmd;
    if (auto ok = call(ifname, &v, op); !ok) return ok.error();
    return v;
  }

  /// The structure read with `get`, changed by `encode` (which fills in the set command),
  /// written back: the fields the request leaves alone keep the driver's values.
  template <typename T, typename Want>
  Status read_modify_write(const std::string& ifname, uint32_t get, const char* get_op,
                           Result<T> (*encode)(T, const Want&, const std::string&),
                           const Want& want, const char* set_op) {
    auto cur = read<T>(ifname, get, get_op);
    if (!cur) return cur.error();
    auto next = encode(*cur, want, ifname);
    if (!next) return next.error();
    return call(ifname, &*next, set_op);
  }

  /// ETHTOOL_GLINKSETTINGS in its two steps: the kernel first says how many words its
  /// link-mode masks take, then fills masks of that size.
  Result<LinkSettings> link_settings(const std::string& ifname) {
    ethtool_link_settings hs = link_settings_handshake();
    if (auto ok = call(ifname, &hs, "ETHTOOL_GLINKSETTINGS"); !ok) return ok.error();
    auto nwords = handshake_words(hs);
    if (!nwords) return nwords.error().context(ifname);
    LinkSettings ask;
    ethtool_link_settings b{};
    b.link_mode_masks_nwords = static_cast<int8_t>(*nwords);
    ask.set_base(b);
    std::vector<uint32_t> words = encode_link_settings(ask, ETHTOOL_GLINKSETTINGS);
    if (auto ok = call(ifname, words.data(), "ETHTOOL_GLINKSETTINGS"); !ok) return ok.error();
    auto s = decode_link_settings(words, *nwords);
    if (!s) return s.error().context(ifname);
    return s;
  }

  /// The kernel's link-mode names when it has the global string set (5.6+), else the
  /// built-in table; fetched once (they are global and fixed).
  const std::vector<std::string>& link_mode_names(const std::string& ifname) {
    if (mode_names_) return *mode_names_;
    std::string strings;
    uint32_t count = 0;
    // ethtool_sset_info with room for one count: cmd, reserved, sset_mask, data[1].
    std::array<uint32_t, 5> sset{ETHTOOL_GSSET_INFO};
    uint64_t mask = 1ull << ETH_SS_LINK_MODES;
    std::memcpy(&sset[2], &mask, sizeof mask);
    if (call(ifname, sset.data(), "ETHTOOL_GSSET_INFO").ok()) {
      std::memcpy(&mask, &sset[2], sizeof mask);
      uint32_t n = (mask >> ETH_SS_LINK_MODES) & 1 ? sset[4] : 0;
      // ethtool_gstrings: cmd, string_set, len, then len strings of ETH_GSTRING_LEN.
      std::vector<uint32_t> buf(3 + size_t{n} * ETH_GSTRING_LEN / 4);
      buf[0] = ETHTOOL_GSTRINGS;
      buf[1] = ETH_SS_LINK_MODES;
      buf[2] = n;
      if (n > 0 && n <= 1024 && call(ifname, buf.data(), "ETHTOOL_GSTRINGS").ok() && buf[2] == n) {
        count = n;
        strings.assign(reinterpret_cast<const char*>(&buf[3]), size_t{n} * ETH_GSTRING_LEN);
      }
    }
    mode_names_ = choose_link_mode_names(strings, count);
    return *mode_names_;
  }

  UniqueFd sock_;
  std::optional<std::vector<std::string>> mode_names_;
};

}  // namespace

Result<std::unique_ptr<Ethtool>> open_ethtool_ioctl() {
  UniqueFd sock(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!sock) return errno_error("socket(AF_INET) for the ethtool ioctl", "", errno);
  return std::unique_ptr<Ethtool>(new EthtoolIoctl(std::move(sock)));
}

}  // namespace tuner
