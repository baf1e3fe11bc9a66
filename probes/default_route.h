// Which ports hold a default route: on most nodes the management or front-end port
// (the in-band LOM an operator reaches the node by, over SSH and Ansible), which NIC
// rules meant for data ports leave alone (profile key `default_route = false`, which
// also leaves alone the ports SSH sessions arrive through: probes/ssh_session.h).
//
// Read from proc/net/route (IPv4) and proc/net/ipv6_route (IPv6): the main routing
// table of the prober's network namespace, as text the kernel has kept stable since
// 2.2, and what a capture carries, so a plan from a capture sees what the machine saw.
// Not seen: routes in other tables (policy routing, VRFs), and for an IPv4 multipath
// route every next hop but the first (the kernel's proc file shows only that one).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "probes/root.h"

namespace tuner {

/// Ports with an IPv4 default route (destination and mask 0, up, not a reject route),
/// from proc/net/route's text. Rows that do not parse are skipped.
std::set<std::string> parse_ipv4_default_routes(std::string_view text);

/// Ports with an IPv6 default route (::/0 from any source, up, not a reject route: the
/// kernel lists an unreachable ::/0 on lo), from proc/net/ipv6_route's text.
std::set<std::string> parse_ipv6_default_routes(std::string_view text);

/// Both families' ports under root; nullopt when neither file can be read (a capture
/// without them), so that "no default route" and "not known" stay apart.
std::optional<std::set<std::string>> probe_default_route_ports(const Root& root);

/// How a port carries a default route (carries_default_route).
struct RouteCarrier {
  std::string holder;  // the device the route goes out of: the port or one above it
  /// Only through Open vSwitch: the holder is an OVS internal port (br-ex) and the port
  /// is under ovs-system, which every OVS bridge's ports share.
  bool through_ovs = false;
};

/// Whether `name` carries a default route in `routed`, and how: itself, or a device
/// stacked on it, at any depth (a bond or bridge it is enslaved to:
/// sys/class/net/NAME/master; a VLAN, macvlan or bond above it: upper_*). The
/// management address often sits on bond0 or a VLAN of the LOM, not on the port itself.
///
/// Open vSwitch hides the stack: the kernel enslaves each port of every OVS bridge to
/// the datapath device ovs-system, and the bridge's internal port (br-ex on an
/// OVN-Kubernetes node), where the address and route are, links to none of them. So
/// when a default route goes out of an OVS internal port (a virtual Ethernet device,
/// not TUN/TAP, with no lower_*, bridge/ or bonding/ entry, on a node with ovs-system),
/// every port whose chain reaches ovs-system carries it: conservative, as only OVSDB
/// says which bridge a port is in, so a data port of another OVS bridge is left out
/// too. Not seen: a VLAN device on the internal port holding the route (it has a
/// lower_*).
std::optional<RouteCarrier> carries_default_route(const Root& root, const std::string& name,
                                                  const std::set<std::string>& routed);

}  // namespace tuner
