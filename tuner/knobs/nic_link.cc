// nic:IF:link: autonegotiation, speed and duplex through ETHTOOL_MSG_LINKMODES_GET/SET.
#include <algorithm>

#include "tuner/knobs/nic_id.h"
#include "tuner/knobs/nic_knob.h"

namespace tuner {

namespace {

std::string list_modes(const std::vector<std::string>& modes) {
  std::string out;
  for (const std::string& m : modes) out += (out.empty() ? "" : ", ") + m;
  return out.empty() ? "none" : out;
}

class NicLinkKnob : public NicKnob {
 public:
  using NicKnob::NicKnob;

  Result<std::string> read() override {
    auto info = link_modes();
    if (!info.ok()) return info.error();
    return format_link_setting(describe_link(*info));
  }

  Result<std::string> canonical(const std::string& desired) override {
    auto s = parse_link_setting(desired, id_);
    if (!s.ok()) return s.error();
    auto info = link_modes();
    if (!info.ok()) return format_link_setting(*s);  // nothing to check against
    std::vector<std::string> speeds = filter_modes(info->supported_modes, {}, {});
    if (speeds.empty()) return format_link_setting(*s);  // the driver lists no modes
    std::vector<std::string> match = filter_modes(speeds, s->speed_mbps, s->duplex);
    if (match.empty())
      return Error{"no supported link mode has " + format_link_setting(*s) +
                       " (supported: " + list_modes(speeds) + ")",
                   id_, 0};
    if (!s->autoneg) return format_link_setting(*s);
    // What the kernel will advertise, described the way read() describes it.
    LinkInfo after;
    after.autoneg = true;
    after.supported_modes = info->supported_modes;
    after.advertised_modes = match;
    return format_link_setting(describe_link(after));
  }

 protected:
  Status apply(const std::string& value) override {
    if (value.find("advertise=") != std::string::npos)
      return Error{"cannot set '" + value +
                       "': an advertised set no speed/duplex filter describes needs the "
                       "OURS bitset, which tuner does not send",
                   id_, 0};
    auto s = parse_link_setting(value, id_);
    if (!s.ok()) return s.error();
    auto nl = netlink();
    if (!nl.ok()) return nl.error();
    LinkModesRequest req;
    req.autoneg = s->autoneg;
    req.speed_mbps = s->speed_mbps;
    req.duplex = s->duplex;
    if (s->autoneg && !s->speed_mbps && !s->duplex) {
      // Plain "autoneg=on" means advertise every supported mode. The kernel rebuilds
      // the advertised set from the supported one only when a speed or duplex comes
      // with the request, so name the duplex when all supported modes share it.
      // Forced mode leaves the advertised set alone, so it may still be complete.
      auto info = link_modes();
      if (!info.ok()) return info.error();
      LinkInfo as_autoneg = *info;
      as_autoneg.autoneg = true;
      LinkSetting now = describe_link(as_autoneg);
      bool all_advertised = !now.speed_mbps && !now.duplex && now.advertise.empty();
      if (!all_advertised) {
        std::vector<std::string> full = filter_modes(info->supported_modes, {}, "full");
        std::vector<std::string> half = filter_modes(info->supported_modes, {}, "half");
        if (!full.empty() && !half.empty())
          return Error{"cannot advertise every supported mode again (full and half duplex "
                           "modes both supported; that needs the OURS bitset)",
                       id_, 0};
        if (!full.empty()) req.duplex = "full";
        else if (!half.empty()) req.duplex = "half";
      }
    }
    auto st = (*nl)->set_link_modes(ifname_, req);
    if (!st.ok())
      return Error{"cannot set link modes to '" + value + "': " + st.error().what, id_,
                   st.error().err};
    return Ok{};
  }

 private:
  Result<LinkInfo> link_modes() {
    auto nl = netlink();
    if (!nl.ok()) return nl.error();
    LinkInfo info;
    auto st = (*nl)->get_link_modes(ifname_, info);
    if (!st.ok())
      return Error{"cannot read link modes: " + st.error().what, id_, st.error().err};
    return info;
  }
};

}  // namespace

std::unique_ptr<Knob> make_nic_link_knob(std::string id, std::string ifname, KnobContext& ctx) {
  return std::unique_ptr<Knob>(new NicLinkKnob(std::move(id), std::move(ifname), ctx));
}

}  // namespace tuner
