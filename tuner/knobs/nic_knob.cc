#include "tuner/knobs/nic_knob.h"

#include <chrono>
#include <thread>

#include "base/strings.h"
#include "tuner/knobs/nic_id.h"

namespace tuner {

NicKnob::NicKnob(std::string id, std::string ifname, KnobContext& ctx)
    : id_(std::move(id)), ifname_(std::move(ifname)), ctx_(ctx) {}

Result<Netlink*> NicKnob::netlink() {
  if (ctx_.netlink) return ctx_.netlink;
  if (own_netlink_) return own_netlink_.get();
  if (!ctx_.root.is_live())
    return Error::invalid("ethtool netlink is only available on the live machine, not under --root " +
                     ctx_.root.dir(),
                 id_);
  auto nl = open_ethtool_netlink();
  if (!nl.ok()) return errno_error("cannot open ethtool netlink: " + nl.error().message(), id_, nl.error().err);
  own_netlink_ = std::move(nl).value();
  return own_netlink_.get();
}

Result<bool> NicKnob::link_up() {
  if (auto nl = netlink(); nl.ok()) {
    LinkInfo info;
    if ((*nl)->get_link_state(ifname_, info).ok() && info.up) return *info.up;
  }
  auto state = ctx_.root.read("sys/class/net/" + ifname_ + "/operstate");
  if (!state.ok()) return state.error();
  return trim(*state) == "up";
}

bool NicKnob::wait_link_up() {
  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + std::chrono::milliseconds(ctx_.link_timeout_ms);
  // Drivers drop the carrier a moment after the SET returns; polling at once could see
  // the old link still up and read back before renegotiation even started.
  std::this_thread::sleep_for(std::chrono::milliseconds(std::min(1000u, ctx_.link_timeout_ms / 10)));
  for (;;) {
    if (link_up().value_or(false)) return true;
    auto now = Clock::now();
    if (now >= deadline) return false;
    auto step = std::min<Clock::duration>(std::chrono::milliseconds(100), deadline - now);
    std::this_thread::sleep_for(step);
  }
}

std::string format_timeout(unsigned ms) {
  if (ms < 1000) return std::to_string(ms) + " ms";
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  std::string s = std::to_string(ms / 1000) + "." + std::to_string(ms % 1000 + 1000).substr(1);
  while (s.back() == '0') s.pop_back();
  return s + " s";
}

Status NicKnob::write(const std::string& value) {
  auto want = canonical(value);
  if (!want.ok()) return want.error();
  auto before = read();
  if (!before.ok()) return before.error();
  bool was_up = link_up().value_or(false);

  // Puts the before value back; returns what to append to the error message.
  auto revert = [&]() -> std::string {
    auto st = apply(*before);
    if (!st.ok()) return "; reverting to '" + *before + "' failed: " + st.error().message();
    if (was_up && !wait_link_up())
      return "; reverted to '" + *before + "' but the link is still down after " +
             format_timeout(ctx_.link_timeout_ms);
    auto now = read();
    if (!now.ok()) return "; reverted, but reading back failed: " + now.error().message();
    if (*now != *before)
      return "; reverting to '" + *before + "' left '" + *now + "'";
    return "; reverted";
  };

  if (auto st = apply(*want); !st.ok()) {
    Error e = st.error();
    // A refusal should change nothing; make sure of it.
    auto now = read();
    if (now.ok() && *now != *before) e.what += revert();
    return e;
  }
  if (was_up && !wait_link_up())
    return Error::invalid("link did not come back within " + format_timeout(ctx_.link_timeout_ms) +
                     " after setting '" + *want + "'" + revert(),
                 id_);
  auto now = read();
  if (!now.ok()) return Error::invalid("cannot read back: " + now.error().message() + revert(), id_);
  if (*now != *want)
    return Error::invalid("the driver reports '" + *now + "' after setting '" + *want + "'" + revert(),
                 id_);
  return Ok{};
}

Result<std::unique_ptr<Knob>> make_nic_knob(const std::string& id, KnobContext& ctx) {
  auto parsed = parse_nic_id(id);
  if (!parsed.ok()) return parsed.error();
  if (!ctx.root.exists("sys/class/net/" + parsed->ifname))
    return errno_error("no such network interface '" + parsed->ifname + "'", id, ENODEV);
  if (parsed->attr == "link") return make_nic_link_knob(id, parsed->ifname, ctx);
  if (parsed->attr == "channels") return make_nic_channels_knob(id, parsed->ifname, ctx);
  return make_nic_rings_knob(id, parsed->ifname, ctx);
}

}  // namespace tuner
