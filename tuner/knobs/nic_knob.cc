#include "tuner/knobs/nic_knob.h"

#include <algorithm>

#include "base/strings.h"
#include "probes/nic.h"

namespace tuner {

Result<Ethtool*> NicKnob::ethtool() {
  if (ctx_.ethtool) return ctx_.ethtool;
  if (!ctx_.root.is_live())
    return Error::unsupported(
        "ethtool is only available on the live machine, not under --root " + ctx_.root.dir(),
        id_str_);
  auto opened = open_ethtool();
  if (!opened.ok()) return opened.error().context(id_str_ + ": cannot open ethtool");
  ctx_.opened_ethtool = std::move(opened).value();
  ctx_.ethtool = ctx_.opened_ethtool.get();
  return ctx_.ethtool;
}

Result<bool> NicKnob::link_up() {
  // The stack's view first: operstate follows the carrier the driver hands the kernel,
  // which can come up after the PHY reports link to ethtool (e1000 turns the carrier on
  // from its watchdog, a moment after a ring resize); traffic waits for the carrier.
  auto state = ctx_.root.read("sys/class/net/" + ifname() + "/operstate");
  std::string op = state.ok() ? std::string(trim(*state)) : std::string();
  if (op == "up") return true;
  if (op == "down" || op == "lowerlayerdown" || op == "dormant" || op == "notpresent") return false;
  if (ctx_.ethtool) {  // "unknown": the driver does not report one
    LinkInfo info;
    if (ctx_.ethtool->get_link_state(ifname(), info).ok() && info.up) return *info.up;
  }
  if (!state.ok()) return state.error();
  return false;
}

void NicKnob::prepare() { was_up_ = link_up().value_or(false); }

bool NicKnob::wait_link_up() {
  using std::chrono::milliseconds;
  Clock& clock = *ctx_.clock;
  auto deadline = clock.now() + milliseconds(ctx_.link_timeout_ms);
  // Drivers drop the carrier a moment after the SET returns; polling at once could see
  // the old link still up and read back before renegotiation even started.
  clock.sleep_for(milliseconds(std::min(1000u, ctx_.link_timeout_ms / 10)));
  for (;;) {
    if (link_up().value_or(false)) return true;
    auto now = clock.now();
    if (now >= deadline) return false;
    clock.sleep_for(std::min<Clock::duration>(milliseconds(100), deadline - now));
  }
}

Status NicKnob::settle(const std::string& value) {
  if (!was_up_ || wait_link_up()) return Ok{};
  return Error::io("link did not come back within " + format_timeout(ctx_.link_timeout_ms) +
                       " after setting '" + value + "'",
                   id_str_);
}

std::string NicKnob::mismatch(const std::string& now, const std::string& want) {
  return "the driver reports '" + now + "' after setting '" + want + "'";
}

std::string netdev_dir(const Root& root, const std::string& ifname) {
  std::string link = "sys/class/net/" + ifname;
  auto target = root.readlink(link);
  if (!target.ok() || target->empty()) return link;
  return normalize_path(target->front() == '/' ? *target : "sys/class/net/" + *target);
}

std::string format_timeout(unsigned ms) {
  if (ms < 1000) return std::to_string(ms) + " ms";
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  std::string s = std::to_string(ms / 1000) + "." + std::to_string(ms % 1000 + 1000).substr(1);
  while (s.back() == '0') s.pop_back();
  return s + " s";
}

Result<std::unique_ptr<Knob>> make_nic_knob(const KnobId& id, KnobContext& ctx) {
  if (!ctx.root.exists("sys/class/net/" + id.name))
    return Error::missing("no such network interface '" + id.name + "'", id.str(), ENODEV);
  if (id.kind == KnobKind::nic_link) return make_nic_link_knob(id, ctx);
  if (id.kind == KnobKind::nic_mtu) return make_nic_mtu_knob(id, ctx);
  if (id.kind == KnobKind::nic_channels) return make_nic_channels_knob(id, ctx);
  if (id.kind == KnobKind::nic_coalesce) return make_nic_coalesce_knob(id, ctx);
  return make_nic_rings_knob(id, ctx);
}

}  // namespace tuner
