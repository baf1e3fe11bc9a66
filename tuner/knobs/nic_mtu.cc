// nic:IF:mtu: an interface's MTU in bytes, sys/class/net/IF/mtu ("9000"). The kernel
// checks a new MTU against the device's own range (min_mtu..max_mtu, which sysfs does
// not show: canonical() asks rtnetlink for it) and its driver may refuse it for the
// moment (an XDP program attached, a bond's slave): both are EINVAL, a refusal that
// changes nothing. Some drivers reset the link to resize their buffers, so a link that
// was up is waited for (NicKnob::settle).
//
// canonical() takes any MTU the device's range allows, or, with the range not known,
// any the kernel might hold (CAN devices run at 16 or 72, a tunnel below 1280), so that
// rollback can put back what was there; the profile asks only for 1280 to 65536
// (tuner/profile/parse_nic.cc).
#include <cerrno>
#include <climits>

#include <fmt/core.h>

#include "base/strings.h"
#include "probes/mtu_range.h"
#include "tuner/knobs/knob_files.h"
#include "tuner/knobs/nic_knob.h"

namespace tuner {

namespace {

/// Decimal without sign or leading zeros, at most INT_MAX (the kernel's MTU is an int).
std::optional<unsigned> parse_mtu(std::string_view text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos ||
      (text.size() > 1 && text[0] == '0'))
    return std::nullopt;
  auto n = parse_u64(text);
  if (!n || *n > INT_MAX) return std::nullopt;
  return static_cast<unsigned>(*n);
}

class NicMtuKnob : public NicKnob {
 public:
  NicMtuKnob(KnobId id, KnobContext& ctx)
      : NicKnob(std::move(id), ctx), path_(netdev_dir(ctx.root, ifname()) + "/mtu") {}

  Result<std::string> read() override {
    auto text = read_proc_file(ctx_.root, path_);
    if (!text.ok()) return text.error().labelled(id_str_);
    auto mtu = parse_mtu(trim(*text));
    if (!mtu)
      return Error::invalid(fmt::format("not an MTU: '{}'", escape_controls(trim(*text))),
                            id_str_ + " (" + shown_path(ctx_.root, path_) + ")");
    return std::to_string(*mtu);
  }

  Result<std::string> canonical(const std::string& desired) override {
    auto mtu = parse_mtu(trim(desired));
    if (!mtu)
      return Error::invalid(
          fmt::format("not an MTU: '{}' (expected bytes, such as 9000)", escape_controls(desired)),
          id_str_);
    // The device's range where rtnetlink says it; otherwise the kernel checks on write.
    if (auto r = mtu_range(); r.ok() && !r->takes(*mtu))
      return Error::invalid(
          fmt::format("MTU {} is outside the MTUs {} takes ({})", *mtu, ifname(), r->text()),
          id_str_);
    return std::to_string(*mtu);
  }

 protected:
  Status set(const std::string& value) override {
    Status s = write_file(path_, value);
    if (s.ok()) return s;
    const Error& e = s.error();
    if (e.err == EINVAL || e.err == EOPNOTSUPP || e.err == EBUSY)
      return Error::refused(fmt::format("{} refused MTU {}: outside the device's MTU range, or its "
                                        "driver cannot change it now (an XDP program, a bond)",
                                        ifname(), value),
                            e.where, e.err)
          .labelled(id_str_);
    return e.labelled(id_str_);
  }

  std::string mismatch(const std::string& now, const std::string& want) override {
    return "the kernel reports MTU " + now + " after setting " + want;
  }

 private:
  /// rtnetlink's answer, without the ethtool family (a test's fake answers for it).
  Result<MtuRange> mtu_range() {
    if (ctx_.ethtool) return ctx_.ethtool->get_mtu_range(ifname());
    if (!ctx_.root.is_live()) return Error::unsupported("not the live machine", id_str_);
    return read_mtu_range(ifname());
  }

  std::string path_;
};

}  // namespace

std::unique_ptr<Knob> make_nic_mtu_knob(const KnobId& id, KnobContext& ctx) {
  return std::make_unique<NicMtuKnob>(id, ctx);
}

}  // namespace tuner
