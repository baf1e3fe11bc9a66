// Test support: the one fake of the ethtool seam (probes/ethtool.h). It behaves like a
// device behind the kernel's ethtool netlink: LINKMODES_SET with speed/duplex filters
// rebuilds the advertised modes from the supported ones, a link partner decides at
// which speeds the link comes up, and channel, ring and coalesce settings are kept.
// Coalescing behaves like the kernel's: a field the driver does not support is left out
// of a GET and refused in a SET. It records every request, and fails the ones a test
// tells it to.
#pragma once

#include <cerrno>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probes/netdev_netlink.h"
#include "probes/netlink.h"

namespace tuner::testing {

/// The link modes of a 1000baseT copper port (e1000-like), as ethtool names them.
inline std::vector<std::string> copper_link_modes() {
  return {"10baseT/Half",
          "10baseT/Full",
          "100baseT/Half",
          "100baseT/Full",
          "1000baseT/Full",
          "Autoneg",
          "TP"};
}

class FakeNetlink : public Ethtool {
 public:
  EthtoolBackend backend() const override { return kind; }
  EthtoolBackend kind = EthtoolBackend::netlink;  // the backend it stands for
  /// The device: a 1000baseT copper port that advertises everything it supports.
  LinkInfo link;
  Channels channels;
  Rings rings;
  /// The fields the driver supports are the ones set (an ixgbe-like NIC: usecs and
  /// adaptive rx, no frame counts).
  Coalesce coalesce;
  /// The MTUs the device takes (an e1000e's: 68 to 9216 bytes).
  MtuRange mtu_range{68, 9216};
  std::vector<uint32_t> partner_speeds = {1000, 100, 10};  // what the other end can do
  bool driver_reports_full_duplex = false;  // a driver that ignores forced half duplex

  /// Operation ("LINKMODES_GET", "CHANNELS_SET", ...) -> errno it fails with, every time.
  std::map<std::string, int> fail;
  /// The next SET fails with this (and changes nothing); then it is cleared.
  std::optional<Error> refuse;

  /// Every request, "OP:ifname", in order.
  std::vector<std::string> asked;
  /// The SET requests that reached the device, in order.
  std::vector<LinkModesRequest> link_sets;
  std::vector<Channels> channel_sets;
  std::vector<Rings> ring_sets;
  std::vector<Coalesce> coalesce_sets;

  FakeNetlink() {
    link.port = "TP";
    link.autoneg = true;
    link.supported_modes = copper_link_modes();
    link.advertised_modes = link.supported_modes;
    update_state();
    channels.combined = 4;
    channels.combined_max = 8;
    channels.other = 1;
    channels.other_max = 1;
    channels.rx_max = channels.tx_max = 0;
    rings.rx = rings.tx = 256;
    rings.rx_max = rings.tx_max = 4096;
    coalesce.rx_usecs = 50;
    coalesce.tx_usecs = 50;
    coalesce.adaptive_rx = true;
  }

  /// The modes among `modes` of that speed and duplex (either unset: any), the way the
  /// kernel's ethtool filters them ("1000baseT/Full": 1000 Mb/s, full duplex).
  static std::vector<std::string> modes_matching(const std::vector<std::string>& modes,
                                                 std::optional<uint32_t> speed,
                                                 std::optional<Duplex> duplex) {
    std::vector<std::string> out;
    for (const std::string& m : modes) {
      std::size_t digits = 0;
      while (digits < m.size() && m[digits] >= '0' && m[digits] <= '9') ++digits;
      std::size_t slash = m.rfind('/');
      if (digits == 0 || m.compare(digits, 4, "base") != 0 || slash == std::string::npos) continue;
      std::string_view d = std::string_view(m).substr(slash + 1);
      if (d != "Full" && d != "Half") continue;
      Duplex mode_duplex = d == "Full" ? Duplex::full : Duplex::half;
      if (speed && std::stoul(m.substr(0, digits)) != *speed) continue;
      if (duplex && mode_duplex != *duplex) continue;
      out.push_back(m);
    }
    return out;
  }

  /// Link comes up when both ends share a mode: negotiated, or the forced one.
  void update_state() {
    link.up = false;
    link.speed_mbps.reset();
    link.duplex.reset();
    if (link.autoneg.value_or(false)) {
      for (uint32_t sp : partner_speeds)
        if (!modes_matching(link.advertised_modes, sp, Duplex::full).empty()) {
          link.up = true;
          link.speed_mbps = sp;
          link.duplex = Duplex::full;
          return;
        }
    } else {
      link.speed_mbps = forced_speed_;
      link.duplex = driver_reports_full_duplex ? Duplex::full : forced_duplex_;
      for (uint32_t sp : partner_speeds)
        if (sp == forced_speed_) link.up = true;
    }
  }

  Status get_link_info(const std::string& n, LinkInfo& out) override {
    if (auto s = answer("LINKINFO_GET", n); !s) return s;
    out.port = link.port;
    return Ok{};
  }
  Status get_link_modes(const std::string& n, LinkInfo& out) override {
    if (auto s = answer("LINKMODES_GET", n); !s) return s;
    out.autoneg = link.autoneg;
    out.speed_mbps = link.speed_mbps;
    out.duplex = link.duplex;
    out.supported_modes = link.supported_modes;
    out.advertised_modes = link.advertised_modes;
    out.partner_modes = link.partner_modes;
    return Ok{};
  }
  Status get_link_state(const std::string& n, LinkInfo& out) override {
    if (auto s = answer("LINKSTATE_GET", n); !s) return s;
    out.up = link.up;
    return Ok{};
  }
  Result<Channels> get_channels(const std::string& n) override {
    if (auto s = answer("CHANNELS_GET", n); !s) return s.error();
    return channels;
  }
  Result<Rings> get_rings(const std::string& n) override {
    if (auto s = answer("RINGS_GET", n); !s) return s.error();
    return rings;
  }
  Result<Coalesce> get_coalesce(const std::string& n) override {
    if (auto s = answer("COALESCE_GET", n); !s) return s.error();
    return coalesce;
  }
  Result<MtuRange> get_mtu_range(const std::string& n) override {
    if (auto s = answer("GETLINK", n); !s) return s.error();
    return mtu_range;
  }

  Status set_link_modes(const std::string& n, const LinkModesRequest& req) override {
    link_sets.push_back(req);
    if (auto s = answer_set("LINKMODES_SET", n); !s) return s;
    if (req.autoneg) link.autoneg = *req.autoneg;
    if (req.speed_mbps) forced_speed_ = *req.speed_mbps;
    if (req.duplex) forced_duplex_ = *req.duplex;
    if (!req.advertise.empty()) {
      link.advertised_modes = req.advertise;  // a no-mask list: exactly these
    } else if (link.autoneg.value_or(false) && (req.speed_mbps || req.duplex)) {
      std::vector<std::string> adv =
          modes_matching(link.supported_modes, req.speed_mbps, req.duplex);
      adv.emplace_back("Autoneg");
      adv.emplace_back("TP");
      link.advertised_modes = adv;
    }
    update_state();
    return Ok{};
  }
  Status set_channels(const std::string& n, const Channels& ch) override {
    channel_sets.push_back(ch);
    if (auto s = answer_set("CHANNELS_SET", n); !s) return s;
    keep_set(channels, ch, {&Channels::rx, &Channels::tx, &Channels::other, &Channels::combined});
    return Ok{};
  }
  Status set_rings(const std::string& n, const Rings& r) override {
    ring_sets.push_back(r);
    if (auto s = answer_set("RINGS_SET", n); !s) return s;
    keep_set(rings, r, {&Rings::rx, &Rings::tx});
    return Ok{};
  }
  Status set_coalesce(const std::string& n, const Coalesce& c) override {
    coalesce_sets.push_back(c);
    if (auto s = answer_set("COALESCE_SET", n); !s) return s;
    // As ethnl_set_coalesce_validate: the first field the driver lacks fails the SET.
    std::pair<const char*, bool> unsupported[] = {
        {"rx-usecs", c.rx_usecs && !coalesce.rx_usecs},
        {"tx-usecs", c.tx_usecs && !coalesce.tx_usecs},
        {"rx-frames", c.rx_frames && !coalesce.rx_frames},
        {"tx-frames", c.tx_frames && !coalesce.tx_frames},
        {"adaptive-rx", c.adaptive_rx && !coalesce.adaptive_rx},
        {"adaptive-tx", c.adaptive_tx && !coalesce.adaptive_tx}};
    for (auto [field, bad] : unsupported)
      if (bad)
        return errno_error(std::string(field) + ": cannot modify an unsupported parameter",
                           n + ": ethtool COALESCE_SET", EINVAL);
    keep_set(
        coalesce, c,
        {&Coalesce::rx_usecs, &Coalesce::tx_usecs, &Coalesce::rx_frames, &Coalesce::tx_frames});
    if (c.adaptive_rx) coalesce.adaptive_rx = c.adaptive_rx;
    if (c.adaptive_tx) coalesce.adaptive_tx = c.adaptive_tx;
    return Ok{};
  }

 private:
  /// Records the request; an Error with the errno `fail` holds for it, like the kernel's.
  Status answer(const std::string& op, const std::string& ifname) {
    asked.push_back(op + ":" + ifname);
    if (auto it = fail.find(op); it != fail.end())
      return errno_error("kernel said no", ifname + ": ethtool " + op, it->second);
    return Ok{};
  }
  Status answer_set(const std::string& op, const std::string& ifname) {
    if (auto s = answer(op, ifname); !s) return s;
    if (refuse) {
      Error e = *refuse;
      refuse.reset();
      return e;
    }
    return Ok{};
  }

  /// Copies the fields a SET names into the device's state; unset ones stay as they are.
  template <typename T>
  static void keep_set(T& state, const T& req,
                       std::initializer_list<std::optional<uint32_t> T::*> fields) {
    for (auto f : fields)
      if (req.*f) state.*f = req.*f;
  }

  uint32_t forced_speed_ = 0;
  Duplex forced_duplex_ = Duplex::full;
};

/// The one fake of the netdev family seam (probes/netdev_netlink.h): NAPIs and queues
/// per ifindex as a kernel with napi-get would list them, or the errno of a kernel
/// without it. Records every request, "NAPI_GET:ifindex".
class FakeNetdevNetlink : public NetdevNetlink {
 public:
  std::map<uint32_t, std::vector<NapiInfo>> napi;
  std::map<uint32_t, std::vector<NetdevQueue>> queue;
  int fail = 0;  // EOPNOTSUPP: a kernel with the family but no napi-get
  std::vector<std::string> asked;

  /// A combined NAPI per queue pair: queues 0..irqs.size()-1 of ifindex, NAPI ids from
  /// 8193, each with its IRQ (as ice, bnxt and mlx5 register them).
  void combined(uint32_t ifindex, const std::vector<unsigned>& irqs) {
    for (std::size_t i = 0; i < irqs.size(); ++i) {
      auto id = static_cast<uint32_t>(8193 + napi[ifindex].size());
      napi[ifindex].push_back({id, ifindex, irqs[i]});
      queue[ifindex].push_back({static_cast<uint32_t>(i), ifindex, false, id});
      queue[ifindex].push_back({static_cast<uint32_t>(i), ifindex, true, id});
    }
  }

  Result<std::vector<NapiInfo>> napis(uint32_t ifindex) override {
    asked.push_back("NAPI_GET:" + std::to_string(ifindex));
    if (fail) return errno_error("kernel said no", "netdev NAPI_GET", fail);
    return napi[ifindex];
  }
  Result<std::vector<NetdevQueue>> queues(uint32_t ifindex) override {
    asked.push_back("QUEUE_GET:" + std::to_string(ifindex));
    if (fail) return errno_error("kernel said no", "netdev QUEUE_GET", fail);
    return queue[ifindex];
  }
};

}  // namespace tuner::testing
