// nic:IF:coalesce: interrupt coalescing through the ethtool backend (netlink
// COALESCE_GET/SET, else ETHTOOL_GCOALESCE/SCOALESCE).
#include "tuner/knobs/nic_knob.h"
#include "tuner/knobs/nic_value.h"

namespace tuner {

namespace {

class NicCoalesceKnob : public NicKnob {
 public:
  using NicKnob::NicKnob;

  Result<std::string> read() override {
    auto c = coalesce();
    if (!c.ok()) return c.error();
    return format_coalesce(*c);
  }

  /// Fills the fields the value leaves out from the device, and refuses a field the
  /// device does not report: the kernel leaves out only fields its driver cannot change.
  Result<std::string> canonical(const std::string& desired) override {
    auto want = parse_coalesce(desired, id_str_);
    if (!want.ok()) return want.error();
    auto cur = coalesce();
    if (!cur.ok()) return format_coalesce(*want);
    Coalesce merged = *cur;
    for (const CoalesceField& f : coalesce_fields()) {
      if (!coalesce_has(*want, f)) continue;
      if (!coalesce_has(*cur, f))
        return Error::unsupported(std::string(f.name) + ": the driver of " + ifname() +
                                      " does not support it (its coalesce settings are " +
                                      format_coalesce(*cur) + ")",
                                  id_str_);
      coalesce_copy(merged, *want, f);
    }
    return format_coalesce(merged);
  }

 protected:
  /// Sends only the fields that differ from the device's: a driver refuses a field it
  /// does not support even when its value would not change.
  Status set(const std::string& value) override {
    auto want = parse_coalesce(value, id_str_);
    if (!want.ok()) return want.error();
    auto cur = coalesce();
    if (!cur.ok()) return cur.error();
    Coalesce diff;
    bool any = false;
    for (const CoalesceField& f : coalesce_fields())
      if (coalesce_has(*want, f) && !coalesce_same(*want, *cur, f)) {
        coalesce_copy(diff, *want, f);
        any = true;
      }
    if (!any) return Ok{};
    auto et = ethtool();
    if (!et.ok()) return et.error();
    auto st = (*et)->set_coalesce(ifname(), diff);
    if (!st.ok()) return nic_set_error("cannot set coalesce to '" + value + "': ", st.error());
    return Ok{};
  }

 private:
  Result<Coalesce> coalesce() {
    auto et = ethtool();
    if (!et.ok()) return et.error();
    auto c = (*et)->get_coalesce(ifname());
    if (!c.ok()) return nic_error("cannot read coalesce: ", c.error());
    return c;
  }
};

}  // namespace

std::unique_ptr<Knob> make_nic_coalesce_knob(const KnobId& id, KnobContext& ctx) {
  return std::unique_ptr<Knob>(new NicCoalesceKnob(id, ctx));
}

}  // namespace tuner
