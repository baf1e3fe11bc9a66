#include "tuner/profile/parse_nic.h"

#include <fmt/core.h>

#include <cstdint>

#include "tuner/profile/toml_reader.h"
#include "tuner/profile/values.h"

namespace tuner {

using namespace profile_toml;

namespace {

class NicParser : public TomlReader {
 public:
  explicit NicParser(const std::string& file) : TomlReader(file) {}

  std::optional<uint32_t> ring_size(const toml::node& n, const std::string& what, bool& max) const {
    if (n.is_string()) {
      if (string(n, what) != "max") fail(n.source(), what + " must be a number or \"max\"");
      max = true;
      return std::nullopt;
    }
    return static_cast<uint32_t>(integer(n, what, 1, 1 << 20));
  }

  /// combined channels: a count (at least 1: a NIC with no queue carries nothing), or
  /// "local-cores", sized by the planner to the physical cores of the NIC's socket,
  /// lowering only (tuner/plan/nic.cc).
  void combined(const toml::node& n, const std::string& what, NicRule& r) const {
    if (n.is_string()) {
      if (string(n, what) != "local-cores")
        fail(n.source(),
             fmt::format("{} is '{}': give a count or \"local-cores\"", what, string(n, what)));
      r.combined_local_cores = true;
      return;
    }
    r.combined =
        static_cast<uint32_t>(integer(n, what + " (a count or \"local-cores\")", 1, 65535));
  }

  /// coalesce = { rx_usecs = 8, adaptive_rx = false, ... }: usecs and frames 0 or more
  /// (0 turns that trigger off), adaptive ones true or false.
  Coalesce coalesce(const toml::node& v, const std::string& what, const std::string& ctx,
                    NicRule& r) const {
    const toml::table& c = table(v, what);
    std::string cctx = fmt::format("'coalesce' in {}", ctx);
    check_keys(c, cctx,
               {"rx_usecs", "tx_usecs", "rx_frames", "tx_frames", "adaptive_rx", "adaptive_tx"});
    if (c.empty()) fail(v.source(), cctx + " is empty");
    Coalesce out;
    for (auto&& [ck, cv] : c) {
      std::string cwhat = fmt::format("'{}' in {}", ck.str(), cctx);
      bool adaptive = ck.str() == "adaptive_rx" || ck.str() == "adaptive_tx";
      const char* unit = ck.str().ends_with("usecs") ? "microseconds" : "frames";
      auto one = [&](const toml::node& n) -> std::string {
        if (adaptive) return boolean(n, cwhat) ? "true" : "false";
        return std::to_string(integer(n, fmt::format("{} ({})", cwhat, unit), 0, UINT32_MAX));
      };
      std::string text;
      if (is_search(cv)) {
        if (!r.coalesce_search.empty())
          fail(cv.source(), cctx + " searches two fields: a group searches one setting at a "
                                   "time; put the other in a rule of its own group");
        r.coalesce_search = candidates(cv, cwhat, one);
        r.coalesce_search_field = std::string(ck.str());
        text = r.coalesce_search.front();
      } else {
        text = one(cv);
      }
      set_coalesce_field(out, ck.str(), text);
    }
    return out;
  }

  /// rfs = N (the socket flow table's entries, 1 to 2^29) or "off" (0). 2^29 is the most
  /// the kernel's net.core.rps_sock_flow_entries takes (rps_sock_flow_sysctl,
  /// net/core/sysctl_net_core.c: more is EINVAL), a 2 GiB table of 4-byte entries;
  /// scaling.rst suggests 32768 for a moderately loaded server.
  uint32_t rfs_entries(const toml::node& n, const std::string& what) const {
    if (n.is_string()) {
      if (string(n, what) != "off")
        fail(n.source(), fmt::format("{} is '{}': give the flow table's entries (32768) or "
                                     "\"off\"",
                                     what, string(n, what)));
      return 0;
    }
    if (n.is_integer() && n.as_integer()->get() == 0)
      fail(n.source(), what + " = 0: write \"off\" to turn RFS off");
    return static_cast<uint32_t>(
        integer(n, what + " (the socket flow table's entries, or \"off\")", 1, 1 << 29));
  }

  NicRule parse(const std::string& glob, const toml::table& t, const std::string& ctx) const {
    check_keys(t, ctx,
               {"speed", "duplex", "autoneg", "mtu", "channels", "combined", "rings", "coalesce",
                "rps", "xps", "rfs", "accept_filter_loss", "min_speed", "rdma", "default_route",
                "ports", "link_type", "group"});
    NicRule r;
    r.glob = glob;
    r.group = "nic";
    r.loc = loc(t.source());
    const toml::node* duplex = nullptr;
    for (auto&& [k, v] : t) {
      std::string what = fmt::format("'{}' in {}", k.str(), ctx);
      if (k.str() == "speed") {
        if (v.is_string()) {
          if (v.as_string()->get() != "max")
            fail(v.source(), fmt::format("{} is '{}': give Mb/s (25000) or \"max\"", what,
                                         v.as_string()->get()));
          r.speed_max = true;
        } else if (v.is_integer() && v.as_integer()->get() <= 0) {
          fail(v.source(), fmt::format("{} = {}: a link speed is a positive number of Mb/s", what,
                                       v.as_integer()->get()));
        } else {
          r.speed_mbps =
              static_cast<uint32_t>(integer(v, what + " (Mb/s or \"max\")", 1, 10'000'000));
        }
      } else if (k.str() == "duplex") {
        duplex = &v;
        std::string word = string(v, what);
        r.duplex = parse_duplex(word);
        if (!r.duplex || r.duplex == Duplex::unknown)
          fail(v.source(), fmt::format("{} is '{}': expected \"full\" or \"half\"", what, word));
      } else if (k.str() == "autoneg") {
        r.autoneg = boolean(v, what);
      } else if (k.str() == "accept_filter_loss") {
        r.accept_filter_loss = boolean(v, what);
      } else if (k.str() == "mtu") {
        // Below 1280 the kernel takes IPv6 off the port; 65536 is loopback's own.
        r.mtu = static_cast<uint32_t>(
            integer(v, what + " (bytes; IPv6 needs 1280 at least)", 1280, 65536));
      } else if (k.str() == "combined") {
        combined(v, what, r);
      } else if (k.str() == "channels") {
        const toml::table& c = table(v, what);
        std::string cctx = fmt::format("'channels' in {}", ctx);
        check_keys(c, cctx, {"combined", "rx", "tx"});
        if (t.contains("combined") && c.contains("combined"))
          fail(v.source(),
               fmt::format("{}: 'combined' is given twice (alone and in 'channels')", ctx));
        for (auto&& [ck, cv] : c) {
          std::string cwhat = fmt::format("'{}' in {}", ck.str(), cctx);
          if (ck.str() == "combined") {
            combined(cv, cwhat, r);
            continue;
          }
          auto n = static_cast<uint32_t>(integer(cv, cwhat, 0, 65535));
          if (ck.str() == "rx") r.rx_channels = n;
          else r.tx_channels = n;
        }
        if (c.empty()) fail(v.source(), cctx + " is empty");
      } else if (port_scope_key(k.str(), v, what, r)) {  // the port-scope keys
      } else if (k.str() == "rings") {
        const toml::table& c = table(v, what);
        std::string cctx = fmt::format("'rings' in {}", ctx);
        check_keys(c, cctx, {"rx", "tx"});
        for (auto&& [ck, cv] : c) {
          std::string cwhat = fmt::format("'{}' in {}", ck.str(), cctx);
          bool rx = ck.str() == "rx";
          if (is_search(cv)) {
            // Candidates are sizes: "max" is one value, found without a search.
            std::vector<uint32_t>& search = rx ? r.rx_ring_search : r.tx_ring_search;
            for (const std::string& c : candidates(cv, cwhat, [&](const toml::node& n) {
                   return std::to_string(integer(n, cwhat, 1, 1 << 20));
                 }))
              search.push_back(static_cast<uint32_t>(std::stoul(c)));
            (rx ? r.rx_ring : r.tx_ring) = search.front();
          } else if (rx) {
            r.rx_ring = ring_size(cv, cwhat, r.rx_ring_max);
          } else {
            r.tx_ring = ring_size(cv, cwhat, r.tx_ring_max);
          }
        }
        if (c.empty()) fail(v.source(), cctx + " is empty");
      } else if (k.str() == "coalesce") {
        r.coalesce = coalesce(v, what, ctx, r);
      } else if (k.str() == "rps" || k.str() == "xps") {
        // The planner works out the CPUs; a cpulist here would bypass the NUMA rule.
        bool rps = k.str() == "rps";
        std::string word = string(v, what);
        const char* policy = rps ? "numa-local" : "follow-irq";
        if (word != policy && word != "off")
          fail(v.source(),
               fmt::format("{} is '{}': expected \"{}\" or \"off\"", what, word, policy));
        (rps ? r.rps_loc : r.xps_loc) = loc(v.source());
        if (rps) r.rps = word == "off" ? RpsPolicy::off : RpsPolicy::numa_local;
        else r.xps = word == "off" ? XpsPolicy::off : XpsPolicy::follow_irq;
      } else if (k.str() == "rfs") {
        r.rfs_loc = loc(v.source());
        r.rfs = rfs_entries(v, what);
      } else if (k.str() == "group") {
        r.group = string(v, fmt::format("'group' in {}", ctx));
        check(check_plain_name(r.group, "group name"), v, ctx);
      }
    }
    // Half duplex exists only up to 1000 Mb/s; asking for it at 10G+ cannot work.
    if (duplex && r.duplex == Duplex::half &&
        (r.speed_max || (r.speed_mbps && *r.speed_mbps > 1000)))
      fail(duplex->source(), fmt::format("{}: half duplex is only defined up to 1000 Mb/s", ctx));
    if (!r.speed_max && !r.speed_mbps && !r.duplex && !r.autoneg && !r.mtu && !r.combined &&
        !r.combined_local_cores && !r.rx_channels && !r.tx_channels && !r.rx_ring && !r.tx_ring &&
        !r.rx_ring_max && !r.tx_ring_max && !r.coalesce && !r.rps && !r.xps && !r.rfs)
      fail(t.source(), ctx + " sets nothing");
    return r;
  }
};

}  // namespace

NicRule parse_nic_rule(const std::string& file, const std::string& glob, const toml::table& t,
                       const std::string& ctx) {
  return NicParser(file).parse(glob, t, ctx);
}

}  // namespace tuner
