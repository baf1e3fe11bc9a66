// NIC rules: autonegotiation off, half duplex, a link slower than both ends can run
// (link modes from ethtool netlink LINKMODES, the partner's from its PEER bitset), and
// drops, errors or carrier changes rising over the sampling window.
#include <algorithm>

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "tuner/check/check.h"
#include "tuner/knobs/nic_value.h"

namespace tuner {
namespace {

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::ranges::find(v, s) != v.end();
}

/// The highest speed of the modes, full duplex only (what a switched link runs).
std::optional<uint32_t> top_speed(const std::vector<std::string>& modes,
                                  const std::vector<std::string>& other = {}) {
  std::optional<uint32_t> best;
  for (const std::string& name : modes) {
    auto m = parse_link_mode(name);
    if (!m || m->duplex != Duplex::full) continue;
    if (!other.empty()) {
      bool shared = std::ranges::any_of(other, [&](const std::string& o) {
        auto p = parse_link_mode(o);
        return p && p->duplex == Duplex::full && p->speed_mbps == m->speed_mbps;
      });
      if (!shared) continue;
    }
    if (!best || m->speed_mbps > *best) best = m->speed_mbps;
  }
  return best;
}

std::string mbps(uint32_t v) {
  return v % 1000 == 0 ? fmt::format("{} Gb/s", v / 1000) : fmt::format("{} Mb/s", v);
}

std::string link_fix(const std::string& nic) {
  return fmt::format(
      "autonegotiate: a profile with [nic.\"{0}\"] autoneg = true, speed = \"max\", then "
      "'tuner apply --profile PROFILE' (by hand: ethtool -s {0} autoneg on); check the "
      "switch port negotiates too",
      nic);
}

void check_link(const Nic& nic, CheckReport& out) {
  const LinkInfo& l = nic.link;
  const std::string src = "ethtool LINKMODES";
  if (l.autoneg == false && has(l.supported_modes, "Autoneg")) {
    out.findings.push_back(
        {Rule::nic_autoneg_off,
         Severity::warning,
         nic.name,
         fmt::format("{} has autonegotiation off although it supports it: a forced mode the "
                     "partner does not match falls back to half duplex or no link",
                     nic.name),
         {{nic.name + " autoneg (" + src + ")", "off"},
          {nic.name + " supported modes", fmt::format("{}", fmt::join(l.supported_modes, " "))},
          {nic.name + " speed/duplex",
           fmt::format("{}/{}", l.speed_mbps ? std::to_string(*l.speed_mbps) : "unknown",
                       duplex_name(l.duplex.value_or(Duplex::unknown)))}},
         link_fix(nic.name)});
  }
  if (l.duplex == Duplex::half && l.up != false) {
    out.findings.push_back(
        {Rule::nic_half_duplex,
         Severity::error,
         nic.name,
         fmt::format("{} runs half duplex: collisions, and late collisions and CRC errors "
                     "against a full-duplex partner",
                     nic.name),
         {{nic.name + " duplex (" + src + ")", "half"},
          {nic.name + " autoneg", l.autoneg ? (*l.autoneg ? "on" : "off") : "unknown"}},
         link_fix(nic.name)});
  }
  if (l.up == false || !l.speed_mbps) return;
  uint32_t speed = *l.speed_mbps;
  if (!l.partner_modes.empty()) {
    auto both = top_speed(l.supported_modes, l.partner_modes);
    if (both && speed < *both)
      out.findings.push_back(
          {Rule::nic_speed_below_capability,
           Severity::warning,
           nic.name,
           fmt::format("{} runs at {}, but it and its link partner both support {}", nic.name,
                       mbps(speed), mbps(*both)),
           {{nic.name + " speed (" + src + ")", std::to_string(speed)},
            {nic.name + " supported modes", fmt::format("{}", fmt::join(l.supported_modes, " "))},
            {nic.name + " partner advertised (" + src + " PEER)",
             fmt::format("{}", fmt::join(l.partner_modes, " "))}},
           link_fix(nic.name)});
    return;
  }
  if (auto own = top_speed(l.supported_modes); own && speed < *own)
    out.findings.push_back(
        {Rule::nic_speed_below_capability,
         Severity::info,
         nic.name,
         fmt::format("{} runs at {}, below its own {}; the driver does not report what the "
                     "link partner advertised, so the partner may be the limit",
                     nic.name, mbps(speed), mbps(*own)),
         {{nic.name + " speed (" + src + ")", std::to_string(speed)},
          {nic.name + " supported modes", fmt::format("{}", fmt::join(l.supported_modes, " "))},
          {nic.name + " partner advertised", "unknown"}},
         "check the switch port and cable (ethtool " + nic.name +
             " shows both ends where the driver reports them); " + link_fix(nic.name)});
}

}  // namespace

void check_nic_links(const CheckInput& in, CheckReport& out) {
  const Inventory& inv = in.inventory;
  std::optional<Unavailable> why;
  if (!in.netlink)
    why =
        Unavailable{"link modes come from ethtool netlink on the live machine; a capture has none"};
  else if (auto failed = probe_failed(inv, "nic", inv.nics.empty())) why = failed;
  else  // ethtool netlink could not be opened: no NIC has any link fact
    why = probe_failed(inv, "netlink", std::ranges::none_of(inv.nics, [](const Nic& n) {
                         return !n.is_virtual && (n.link.autoneg || n.link.speed_mbps ||
                                                  n.link.duplex || !n.link.supported_modes.empty());
                       }));
  if (why) {
    for (Rule r : {Rule::nic_autoneg_off, Rule::nic_half_duplex, Rule::nic_speed_below_capability})
      skip(out, r, *why);
    return;
  }
  for (const Nic& nic : inv.nics)
    if (!nic.is_virtual) check_link(nic, out);
}

void check_nic_counters(const CheckInput& in, CheckReport& out) {
  if (!in.counters) {
    Unavailable why = in.counters_skipped.value_or(Unavailable{"not sampled"});
    skip(out, Rule::nic_counters_rising, why);
    skip(out, Rule::nic_disappeared, why);
    return;
  }
  const CounterWindow& w = *in.counters;
  for (const CounterWindow::Vanished& v : w.vanished) {
    const char* start = v.at_start ? "there" : "gone";
    out.findings.push_back(
        {Rule::nic_disappeared,
         Severity::warning,
         v.nic,
         v.at_end ? fmt::format("NIC {} disappeared during the {:g}s window and came back: "
                                "unregistered and registered again (a driver reset or reload); "
                                "its counters restarted",
                                v.nic, w.window_s)
                  : fmt::format("NIC {} disappeared during the {:g}s window: traffic through "
                                "it stopped, and its counters cannot be compared",
                                v.nic, w.window_s),
         {{v.nic + " in sys/class/net when the check probed the NICs", "there"},
          {v.nic + " in proc/net/dev and sys/class/net at the window's start", start},
          {v.nic + " at the window's end", v.at_end ? "there" : "gone"}},
         "find out why: 'dmesg' shows the driver's reset or firmware crash, a PCIe AER error or "
         "a surprise removal, or a rename by udev; 'ip link' lists the NICs there are now"});
  }
  bench::GuardSample before, after;
  before.nics = w.before;
  after.nics = w.after;
  bench::GuardDelta delta = bench::guard_delta(before, after);
  for (const auto& [nic_name, d] : delta.nics) {
    const std::string& name = nic_name;  // a structured binding cannot be captured (clang 14)
    if (d.drops() == 0 && d.errors() == 0 && d.carrier_changes == 0) continue;
    Severity sev = d.errors() > 0 || d.carrier_changes > 0 ? Severity::error : Severity::warning;
    std::vector<Evidence> ev;
    auto add = [&](const char* counter, uint64_t v, const std::string& where) {
      if (v > 0)
        ev.push_back({fmt::format("{} {} over {:g}s ({})", name, counter, w.window_s, where),
                      fmt::format("+{}", v)});
    };
    add("rx_dropped+rx_missed", d.rx_dropped, "proc/net/dev");
    add("tx_dropped", d.tx_dropped, "proc/net/dev");
    add("rx_errors", d.rx_errors, "proc/net/dev");
    add("tx_errors", d.tx_errors, "proc/net/dev");
    add("carrier_changes", d.carrier_changes, "sys/class/net/" + name + "/carrier_changes");
    std::string what = d.carrier_changes > 0 ? "the link flaps"
                       : d.errors() > 0      ? "errors are rising"
                                             : "drops are rising";
    out.findings.push_back(
        {Rule::nic_counters_rising, sev, name,
         fmt::format("{}: {} over a {:g}s window", name, what, w.window_s), std::move(ev),
         d.carrier_changes > 0 || d.errors() > 0
             ? "check the cable, optic and switch port (errors and flaps are physical); "
               "'ethtool -S " +
                   name + "' names the counter"
             : "larger rings ([nic.\"" + name +
                   "\"] rings = { rx = \"max\", tx = \"max\" }) "
                   "and more queues, or "
                   "IRQs near the NIC ([irq.\"" +
                   name +
                   "\"] policy = \"numa-local\"); "
                   "'ethtool -S " +
                   name + "' names where packets are dropped"});
  }
}

}  // namespace tuner
