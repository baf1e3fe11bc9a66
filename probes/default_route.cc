#include "probes/default_route.h"

#include <algorithm>
#include <vector>

#include "base/strings.h"

namespace tuner {
namespace {

// include/uapi/linux/route.h and ipv6_route.h.
constexpr uint64_t kRtfUp = 0x0001;
constexpr uint64_t kRtfReject = 0x0200;

bool all_zero(std::string_view s) {
  return !s.empty() && s.find_first_not_of('0') == std::string_view::npos;
}

bool usable(std::string_view flags) {
  auto f = parse_hex(flags);
  return f && (*f & kRtfUp) && !(*f & kRtfReject);
}

// The datapath device Open vSwitch makes every port it adds (not its internal ports)
// a slave of: net/openvswitch/vport-netdev.c, ovs_netdev_link().
constexpr std::string_view kOvsDatapath = "ovs-system";

}  // namespace

std::set<std::string> parse_ipv4_default_routes(std::string_view text) {
  // Iface Destination Gateway Flags RefCnt Use Metric Mask MTU Window IRTT; a header row.
  std::set<std::string> out;
  for (std::string_view line : split(text, '\n')) {
    auto f = split_ws(line);
    if (f.size() < 8 || f[0] == "Iface") continue;
    if (parse_hex(f[1]) == 0u && parse_hex(f[7]) == 0u && usable(f[3])) out.emplace(f[0]);
  }
  return out;
}

std::set<std::string> parse_ipv6_default_routes(std::string_view text) {
  // dest plen src plen next_hop metric refcnt use flags iface; no header.
  std::set<std::string> out;
  for (std::string_view line : split(text, '\n')) {
    auto f = split_ws(line);
    if (f.size() < 10 || f[0].size() != 32) continue;
    if (all_zero(f[0]) && all_zero(f[1]) && usable(f[8])) out.emplace(f[9]);
  }
  return out;
}

std::optional<std::set<std::string>> probe_default_route_ports(const Root& root) {
  auto v4 = root.read("proc/net/route");
  auto v6 = root.read("proc/net/ipv6_route");
  if (!v4.ok() && !v6.ok()) return std::nullopt;
  std::set<std::string> out;
  if (v4.ok()) out = parse_ipv4_default_routes(*v4);
  if (v6.ok()) out.merge(parse_ipv6_default_routes(*v6));
  return out;
}

namespace {

// An Open vSwitch internal port (br-ex), as sysfs shows one live and in a capture: a
// virtual device (no `device` link) that is not a stack of ports, on a node where
// ovs-system exists. sysfs names no link kind; rtnetlink's "openvswitch" would.
bool is_ovs_internal_port(const Root& root, const std::string& name) {
  std::string base = "sys/class/net/" + name;
  if (root.readlink(base + "/device").ok()) return false;  // a physical port
  auto entries = root.list(base);
  if (!entries.ok()) return false;
  for (const std::string& e : *entries)
    if (starts_with(e, "lower_") || e == "bridge" || e == "bonding" || e == "tun_flags")
      return false;  // a stack the upward walk resolves, or a TUN/TAP device
  // An internal port is an Ethernet device; WireGuard and IP tunnels are not (ARPHRD 1).
  if (auto type = root.read(base + "/type"); type.ok() && trim(*type) != "1") return false;
  auto devices = root.list("sys/class/net");
  return devices.ok() && std::ranges::find(*devices, kOvsDatapath) != devices->end();
}

}  // namespace

std::optional<RouteCarrier> carries_default_route(const Root& root, const std::string& name,
                                                  const std::set<std::string>& routed) {
  std::set<std::string> seen{name};
  std::vector<std::string> todo{name};
  bool under_ovs = false;
  // Stacks are a few devices deep; the bound keeps a hostile tree finite.
  while (!todo.empty() && seen.size() < 256) {
    std::string dev = todo.back();
    todo.pop_back();
    if (routed.contains(dev)) return RouteCarrier{dev, false};
    if (dev == kOvsDatapath) under_ovs = true;
    std::string base = "sys/class/net/" + dev;
    std::vector<std::string> uppers;
    if (auto master = root.link_name(base + "/master")) uppers.push_back(*master);
    if (auto entries = root.list(base); entries.ok())
      for (const std::string& e : *entries)
        if (starts_with(e, "upper_") && e.size() > 6) uppers.push_back(e.substr(6));
    for (std::string& u : uppers)
      if (seen.insert(u).second) todo.push_back(std::move(u));
  }
  if (under_ovs)
    for (const std::string& r : routed)
      if (is_ovs_internal_port(root, r)) return RouteCarrier{r, true};
  return std::nullopt;
}

}  // namespace tuner
