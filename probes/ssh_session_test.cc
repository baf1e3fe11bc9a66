// SSH sessions and the ports they arrive through, from text captured in a network
// namespace (tests/fixtures/host/ssh): mgmt0 (10.9.0.1/24, fd00:9::1/64) reached by a
// subnet route, data0 holding both default routes, a dual-stack listener on port 22 with
// an IPv6 and an IPv4-mapped session from 10.9.0.2/fd00:9::2, and IPv4 sessions on 2222
// and 8080.
#include "probes/ssh_session.h"

#include <doctest/doctest.h>

#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

namespace tuner {
namespace {

IpAddr v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d) {
  IpAddr ip;
  ip.bytes[0] = a, ip.bytes[1] = b, ip.bytes[2] = c, ip.bytes[3] = d;
  ip.v4 = true;
  return ip;
}

IpAddr v6(std::initializer_list<uint16_t> head, uint16_t last) {
  IpAddr ip;
  size_t i = 0;
  for (uint16_t w : head) {
    ip.bytes[i++] = static_cast<uint8_t>(w >> 8);
    ip.bytes[i++] = static_cast<uint8_t>(w);
  }
  ip.bytes[14] = static_cast<uint8_t>(last >> 8);
  ip.bytes[15] = static_cast<uint8_t>(last);
  return ip;
}

std::vector<std::string> names(const std::vector<IpAddr>& peers) {
  std::vector<std::string> out;
  out.reserve(peers.size());
  for (const IpAddr& p : peers) out.push_back(to_string(p));
  return out;
}

using Names = std::vector<std::string>;

}  // namespace

TEST_CASE("ssh sessions: the established peers of sshd's ports, both families") {
  std::string tcp = testing::read_test_data("host/ssh/netns-tcp");
  std::string tcp6 = testing::read_test_data("host/ssh/netns-tcp6");
  // The dual-stack listener on 22 has its IPv4 session in tcp6 (::ffff:10.9.0.2).
  CHECK(parse_tcp_peers(tcp, {22}).empty());
  CHECK(names(parse_tcp_peers(tcp6, {22})) == Names{"fd00:9::2", "10.9.0.2"});
  CHECK(parse_tcp_peers(tcp6, {22})[1] == v4(10, 9, 0, 2));
  CHECK(names(parse_tcp_peers(tcp, {2222})) == Names{"10.9.0.2"});
  // Listening rows (state 0A) are no session; the same peer on two ports is one.
  CHECK(names(parse_tcp_peers(tcp, {22, 2222, 8080})) == Names{"10.9.0.2"});
  CHECK(parse_tcp_peers(tcp, {443}).empty());
}

TEST_CASE("ssh sessions: rows that do not parse are skipped") {
  std::string head = "  sl  local_address rem_address   st\n";
  CHECK(parse_tcp_peers(head + "0: 0100090A:0016 0200090A:A4F0 06\n", {22}).empty());   // TIME_WAIT
  CHECK(parse_tcp_peers(head + "0: 0100090A:0016 0200090A:A4F0\n", {22}).empty());      // short
  CHECK(parse_tcp_peers(head + "0: 0100090A:0016 0200090X:A4F0 01\n", {22}).empty());   // not hex
  CHECK(parse_tcp_peers(head + "0: 0100090A:0016 00090A:A4F0 01\n", {22}).empty());     // 6 digits
  CHECK(parse_tcp_peers(head + "0: 0100090A0016 0200090A:A4F0 01\n", {22}).empty());    // no colon
  CHECK(parse_tcp_peers(head + "0: 0100090A:10016 0200090A:A4F0 01\n", {22}).empty());  // port
  CHECK(names(parse_tcp_peers(head + "0: 0100090A:0016 0200090A:A4F0 01\n", {22})) ==
        Names{"10.9.0.2"});
}

TEST_CASE("ssh sessions: the main table's longest prefix names the port a peer is reached by") {
  std::string route = testing::read_test_data("host/ssh/netns-route");
  std::string route6 = testing::read_test_data("host/ssh/netns-ipv6_route");
  CHECK(route_out(route, v4(10, 9, 0, 2)) == "mgmt0");          // the management subnet
  CHECK(route_out(route, v4(10, 8, 0, 7)) == "data0");          // the data subnet
  CHECK(route_out(route, v4(192, 0, 2, 7)) == "data0");         // the default route
  CHECK(route_out(route6, v6({0xfd00, 9}, 2)) == "mgmt0");      // fd00:9::/64
  CHECK(route_out(route6, v6({0x2001, 0xdb8}, 1)) == "data0");  // ::/0
  std::string head =
      "Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\tMTU\tWindow\tIRTT\n";
  // Without a default route, a peer no route covers is reached by no port.
  CHECK_FALSE(route_out(head + "mgmt0\t0000090A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n",
                        v4(192, 0, 2, 7))
                  .has_value());
  // A route down or rejected is not taken; of two equal prefixes the lower metric is.
  CHECK_FALSE(route_out(head + "eth1\t0000090A\t00000000\t0000\t0\t0\t0\t00FFFFFF\t0\t0\t0\n",
                        v4(10, 9, 0, 2))
                  .has_value());
  CHECK_FALSE(route_out(head + "eth1\t0000090A\t00000000\t0201\t0\t0\t0\t00FFFFFF\t0\t0\t0\n",
                        v4(10, 9, 0, 2))
                  .has_value());
  CHECK(route_out(head + "eth1\t0000090A\t00000000\t0001\t0\t0\t200\t00FFFFFF\t0\t0\t0\n" +
                      "eth2\t0000090A\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0\n",
                  v4(10, 9, 0, 2)) == "eth2");
}

TEST_CASE("ssh sessions: under a root, the ports with a session and one peer each") {
  testing::TempDir dir;
  auto probe = [&](std::optional<uint16_t> extra = std::nullopt) {
    return probe_ssh_session_ports(Root::open(dir.path).value(), extra);
  };
  CHECK_FALSE(probe().has_value());  // nothing to read: unknown, not "none"
  dir.write("proc/net/tcp", testing::read_test_data("host/ssh/netns-tcp"));
  CHECK_FALSE(probe().has_value());  // sessions but no routing table
  dir.write("proc/net/route", testing::read_test_data("host/ssh/netns-route"));
  CHECK(probe() == std::map<std::string, std::string>{});  // no session on 22 in tcp
  // The session tuner runs in, on a port sshd_config does not name (SSH_CONNECTION).
  CHECK(probe(8080) == std::map<std::string, std::string>{{"mgmt0", "10.9.0.2"}});
  dir.write("proc/net/tcp6", testing::read_test_data("host/ssh/netns-tcp6"));
  // fd00:9::2 has no IPv6 table to be routed by; its IPv4-mapped twin has.
  CHECK(probe() == std::map<std::string, std::string>{{"mgmt0", "10.9.0.2"}});
  dir.write("proc/net/ipv6_route", testing::read_test_data("host/ssh/netns-ipv6_route"));
  CHECK(probe() == std::map<std::string, std::string>{{"mgmt0", "fd00:9::2"}});
}

TEST_CASE("ssh sessions: sshd's ports from sshd_config and its drop-ins") {
  testing::TempDir dir;
  auto ports = [&] { return sshd_ports(Root::open(dir.path).value()); };
  CHECK(ports() == std::set<uint16_t>{22});
  dir.write("etc/ssh/sshd_config",
            "# Port 2200\nInclude /etc/ssh/sshd_config.d/*.conf\n  port 2222\nPortX 1\n"
            "Port 70000\nPort 0\nPort\n");
  dir.write("etc/ssh/sshd_config.d/site.conf", "Port 2022\n");
  dir.write("etc/ssh/sshd_config.d/site.conf.bak", "Port 2023\n");
  CHECK(ports() == std::set<uint16_t>{22, 2022, 2222});
}

TEST_CASE("ssh sessions: SSH_CONNECTION's server port") {
  CHECK(ssh_connection_port("10.9.0.2 41234 10.9.0.1 22") == 22);
  CHECK(ssh_connection_port("fd00:9::2 41234 fd00:9::1 2222") == 2222);
  CHECK_FALSE(ssh_connection_port("10.9.0.2 41234 10.9.0.1").has_value());
  CHECK_FALSE(ssh_connection_port("10.9.0.2 41234 10.9.0.1 99999").has_value());
  CHECK_FALSE(ssh_connection_port("").has_value());
}

}  // namespace tuner
