// nic:IF:link: autonegotiation, speed and duplex through the ethtool backend (netlink
// LINKMODES_GET/SET, else ETHTOOL_GLINKSETTINGS/SLINKSETTINGS).
#include <algorithm>

#include "tuner/knobs/nic_knob.h"
#include "tuner/knobs/nic_value.h"

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
    auto s = parse_link_setting(desired, id_str_);
    if (!s.ok()) return s.error();
    if (s->speed_mbps == kSpeedUnknown) return format_link_setting(*s);  // a rollback value
    auto info = link_modes();
    if (!info.ok()) return format_link_setting(*s);  // nothing to check against
    std::vector<std::string> speeds = filter_modes(info->supported_modes, {}, {});
    if (speeds.empty()) return format_link_setting(*s);  // the driver lists no modes
    std::vector<std::string> match = filter_modes(speeds, s->speed_mbps, s->duplex);
    if (match.empty())
      return Error::invalid("no supported link mode has " + format_link_setting(*s) +
                                " (supported: " + list_modes(speeds) + ")",
                            id_str_);
    if (!s->autoneg) return format_link_setting(*s);
    if (!s->advertise.empty()) {
      for (const std::string& m : s->advertise)
        if (std::find(speeds.begin(), speeds.end(), m) == speeds.end())
          return Error::invalid("cannot advertise " + m + ": not a supported mode (supported: " +
                                    list_modes(speeds) + ")",
                                id_str_);
      match = s->advertise;
    }
    // What the kernel will advertise, described the way read() describes it.
    LinkInfo after;
    after.autoneg = true;
    after.supported_modes = info->supported_modes;
    after.advertised_modes = match;
    return format_link_setting(describe_link(after));
  }

 protected:
  Status set(const std::string& value) override {
    auto s = parse_link_setting(value, id_str_);
    if (!s.ok()) return s.error();
    auto et = ethtool();
    if (!et.ok()) return et.error();
    LinkModesRequest req;
    req.autoneg = s->autoneg;
    req.speed_mbps = s->speed_mbps;
    req.duplex = s->duplex;
    req.advertise = s->advertise;
    if (s->autoneg && !s->speed_mbps && !s->duplex && s->advertise.empty()) {
      // Plain "autoneg=on" means advertise every supported mode. After a restriction
      // to one speed the advertised set is smaller, and the kernel rebuilds it from
      // the supported set only when a speed or duplex comes with the request, which
      // cannot describe "full and half": so name the supported modes outright.
      auto info = link_modes();
      if (!info.ok()) return info.error();
      req.advertise = info->supported_modes;
    }
    auto st = (*et)->set_link_modes(ifname(), req);
    if (!st.ok()) return nic_set_error("cannot set link modes to '" + value + "': ", st.error());
    return Ok{};
  }

 private:
  Result<LinkInfo> link_modes() {
    auto et = ethtool();
    if (!et.ok()) return et.error();
    LinkInfo info;
    auto st = (*et)->get_link_modes(ifname(), info);
    if (!st.ok()) return nic_error("cannot read link modes: ", st.error());
    return info;
  }
};

}  // namespace

std::unique_ptr<Knob> make_nic_link_knob(const KnobId& id, KnobContext& ctx) {
  return std::unique_ptr<Knob>(new NicLinkKnob(id, ctx));
}

}  // namespace tuner
