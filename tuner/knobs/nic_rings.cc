// nic:IF:rings: RX/TX ring sizes through the ethtool backend (netlink RINGS_GET/SET, else
// ETHTOOL_GRINGPARAM/SRINGPARAM).
#include "tuner/knobs/nic_knob.h"
#include "tuner/knobs/nic_value.h"

namespace tuner {

namespace {

class NicRingsKnob : public NicKnob {
 public:
  using NicKnob::NicKnob;

  Result<std::string> read() override {
    auto r = rings();
    if (!r.ok()) return r.error();
    return format_rings(*r);
  }

  /// Fills a size the value leaves out from the device and checks the maxima.
  Result<std::string> canonical(const std::string& desired) override {
    auto want = parse_rings(desired, id_str_);
    if (!want.ok()) return want.error();
    auto cur = rings();
    if (!cur.ok()) return format_rings(*want);
    Rings merged = *cur;
    auto check = [&](const char* name, const std::optional<uint32_t>& v,
                     const std::optional<uint32_t>& max, std::optional<uint32_t>& out) -> Status {
      if (!v) return Ok{};
      if (max && *v > *max)
        return Error::invalid(std::string(name) + "=" + std::to_string(*v) +
                                  " exceeds the device's maximum of " + std::to_string(*max),
                              id_str_);
      out = v;
      return Ok{};
    };
    if (auto st = check("rx", want->rx, cur->rx_max, merged.rx); !st.ok()) return st.error();
    if (auto st = check("tx", want->tx, cur->tx_max, merged.tx); !st.ok()) return st.error();
    return format_rings(merged);
  }

 protected:
  Status set(const std::string& value) override {
    auto r = parse_rings(value, id_str_);
    if (!r.ok()) return r.error();
    auto et = ethtool();
    if (!et.ok()) return et.error();
    auto st = (*et)->set_rings(ifname(), *r);
    if (!st.ok()) return nic_set_error("cannot set rings to '" + value + "': ", st.error());
    return Ok{};
  }

 private:
  Result<Rings> rings() {
    auto et = ethtool();
    if (!et.ok()) return et.error();
    auto r = (*et)->get_rings(ifname());
    if (!r.ok()) return nic_error("cannot read rings: ", r.error());
    return r;
  }
};

}  // namespace

std::unique_ptr<Knob> make_nic_rings_knob(const KnobId& id, KnobContext& ctx) {
  return std::unique_ptr<Knob>(new NicRingsKnob(id, ctx));
}

}  // namespace tuner
