// nic:IF:channels: queue counts through the ethtool backend (netlink CHANNELS_GET/SET,
// else ETHTOOL_GCHANNELS/SCHANNELS).
#include "tuner/knobs/nic_knob.h"
#include "tuner/knobs/nic_value.h"

namespace tuner {

namespace {

class NicChannelsKnob : public NicKnob {
 public:
  using NicKnob::NicKnob;

  Result<std::string> read() override {
    auto ch = channels();
    if (!ch.ok()) return ch.error();
    return format_channels(*ch);
  }

  /// Fills the counts the value leaves out from the device, so "combined=8" on a
  /// device that also has "other=1" compares equal to what read() will say.
  Result<std::string> canonical(const std::string& desired) override {
    auto want = parse_channels(desired, id_str_);
    if (!want.ok()) return want.error();
    auto cur = channels();
    if (!cur.ok()) return format_channels(*want);
    Channels merged = *cur;
    struct Field {
      const char* name;
      std::optional<uint32_t> Channels::*value;
      std::optional<uint32_t> Channels::*max;
    };
    static const Field fields[] = {{"rx", &Channels::rx, &Channels::rx_max},
                                   {"tx", &Channels::tx, &Channels::tx_max},
                                   {"other", &Channels::other, &Channels::other_max},
                                   {"combined", &Channels::combined, &Channels::combined_max}};
    for (const Field& f : fields) {
      const auto& v = (*want).*f.value;
      if (!v) continue;
      const auto& max = (*cur).*f.max;
      if (max && *max == 0 && *v != 0)
        return Error::invalid(std::string("the device has no ") + f.name + " channels", id_str_);
      if (max && *v > *max)
        return Error::invalid(std::string(f.name) + "=" + std::to_string(*v) +
                                  " exceeds the device's maximum of " + std::to_string(*max),
                              id_str_);
      merged.*f.value = v;
    }
    return format_channels(merged);
  }

 protected:
  Status set(const std::string& value) override {
    auto ch = parse_channels(value, id_str_);
    if (!ch.ok()) return ch.error();
    auto et = ethtool();
    if (!et.ok()) return et.error();
    auto st = (*et)->set_channels(ifname(), *ch);
    if (!st.ok()) return nic_set_error("cannot set channels to '" + value + "': ", st.error());
    return Ok{};
  }

 private:
  Result<Channels> channels() {
    auto et = ethtool();
    if (!et.ok()) return et.error();
    auto ch = (*et)->get_channels(ifname());
    if (!ch.ok()) return nic_error("cannot read channels: ", ch.error());
    return ch;
  }
};

}  // namespace

std::unique_ptr<Knob> make_nic_channels_knob(const KnobId& id, KnobContext& ctx) {
  return std::unique_ptr<Knob>(new NicChannelsKnob(id, ctx));
}

}  // namespace tuner
