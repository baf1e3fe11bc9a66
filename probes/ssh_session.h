// Which ports an SSH session to this node arrives through: the port an operator, or
// Ansible running tuner, reaches the node by. Most often that port also holds the default
// route (probes/default_route.h), but not on a node whose management network is reached
// by a subnet route while the default route goes out of the front end: there a channel
// or link write to the management port drops the session tuner runs in.
//
// Read from proc/net/tcp and proc/net/tcp6 (the established connections whose local
// port is sshd's) and the main routing table (proc/net/route, proc/net/ipv6_route): the
// port a session's replies go out of is the one the main table routes its peer to. Text
// the kernel has kept stable since 2.2, and what a capture may carry. Not seen: policy
// routing (other tables), an sshd on a port that is neither 22 nor in sshd_config, and
// the connections of a node with so many that proc/net/tcp outgrows the bounded reader
// (16 MiB, about 100,000 sockets): then the sessions are unknown.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "probes/root.h"

namespace tuner {

/// An IPv4 or IPv6 address in network byte order (IPv4 in the first 4 bytes).
struct IpAddr {
  std::array<uint8_t, 16> bytes{};
  bool v4 = false;
  bool operator==(const IpAddr&) const = default;
};

/// The address as inet_ntop(3) writes it.
std::string to_string(const IpAddr& a);

/// The peers of the ESTABLISHED connections whose local port is in `ports`, from the
/// text of proc/net/tcp or proc/net/tcp6. The kernel prints each 32-bit word of an
/// address as a number in the host's byte order, so a capture is read as written by a
/// machine of this one's byte order (every x86-64, arm64 and ppc64le node). An
/// IPv4-mapped IPv6 peer (::ffff:a.b.c.d, a dual-stack sshd) comes back as IPv4. Rows
/// that do not parse are skipped.
std::vector<IpAddr> parse_tcp_peers(std::string_view text, const std::set<uint16_t>& ports);

/// The device the main table routes `peer` out of: the longest matching prefix, then
/// the lowest metric, among routes that are up and not rejected; from the text of
/// proc/net/route (IPv4 peers) or proc/net/ipv6_route (IPv6 peers). nullopt when none
/// matches.
std::optional<std::string> route_out(std::string_view routes, const IpAddr& peer);

/// sshd's ports: 22, and each `Port N` in etc/ssh/sshd_config and
/// etc/ssh/sshd_config.d/*.conf (Debian's and RHEL's Include) under root.
std::set<uint16_t> sshd_ports(const Root& root);

/// The ports SSH sessions arrive through, each with one of its sessions' peers
/// ("10.1.2.3"), for the plan's note. `extra_port` is the server port of the session tuner
/// runs in, from SSH_CONNECTION (live only: a capture's sessions are its machine's).
/// nullopt when neither proc/net/tcp nor proc/net/tcp6 can be read, or no routing table.
std::optional<std::map<std::string, std::string>> probe_ssh_session_ports(
    const Root& root, std::optional<uint16_t> extra_port = std::nullopt);

/// The server port of an SSH_CONNECTION value ("CLIENT_IP CLIENT_PORT SERVER_IP
/// SERVER_PORT"); nullopt when it does not parse.
std::optional<uint16_t> ssh_connection_port(std::string_view value);

}  // namespace tuner
