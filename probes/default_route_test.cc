// Default routes from the kernel's route files, as captured (tests/fixtures/host/routes):
// this build VM's (eth0 holds both families' default) and a network namespace with a
// management port, two data ports, a reject route, a route in another table and a
// source-specific IPv6 default.
#include "probes/default_route.h"

#include <doctest/doctest.h>

#include <filesystem>

#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

namespace tuner {

using Ports = std::set<std::string>;

TEST_CASE("default routes: the build VM's route files name eth0") {
  CHECK(parse_ipv4_default_routes(testing::read_test_data("host/routes/debian12-ipv4")) ==
        Ports{"eth0"});
  // ::/0 via eth0, and the kernel's unreachable ::/0 on lo (flags 0x00200200, reject).
  CHECK(parse_ipv6_default_routes(testing::read_test_data("host/routes/debian12-ipv6")) ==
        Ports{"eth0"});
}

TEST_CASE("default routes: a namespace with a management port and data ports") {
  // IPv4: default via mgmt0; an `unreachable default` (device "*", RTF_REJECT); data0's
  // 10.0.0.0/8 is not a default; data1's default is in table 100, which the file does not
  // show. IPv6: data0 holds a ::/0 and a source-specific ::/0 from 2001:db8::/64.
  CHECK(parse_ipv4_default_routes(testing::read_test_data("host/routes/netns-ipv4")) ==
        Ports{"mgmt0"});
  CHECK(parse_ipv6_default_routes(testing::read_test_data("host/routes/netns-ipv6")) ==
        Ports{"data0"});
}

TEST_CASE("default routes: a route that is down, rejected or malformed is no default") {
  std::string header =
      "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n";
  CHECK(parse_ipv4_default_routes(header + "eth1\t00000000\t010200C0\t0002\t0\t0\t0\t00000000\t0"
                                           "\t0\t0\n")
            .empty());  // RTF_GATEWAY without RTF_UP
  CHECK(parse_ipv4_default_routes(header + "eth1\t00000000\t00000000\t0201\t0\t0\t0\t00000000\t0"
                                           "\t0\t0\n")
            .empty());  // reject
  CHECK(parse_ipv4_default_routes(header + "eth1\t00000000\t010200C0\t0003\t0\t0\t0\t0000FFFF\t0"
                                           "\t0\t0\n")
            .empty());  // a /16, not a default
  CHECK(parse_ipv4_default_routes(header + "eth1\t0000000g\t010200C0\t0003\t0\t0\t0\t00000000\t0"
                                           "\t0\t0\n")
            .empty());                                                              // not hex
  CHECK(parse_ipv4_default_routes(header + "eth1\t00000000\t010200C0\n").empty());  // short row
  CHECK(parse_ipv4_default_routes("").empty());
  std::string zero(32, '0');
  CHECK(parse_ipv6_default_routes(zero + " 00 " + zero + " 00 " + zero +
                                  " 00000400 00000003 00000000 00000002 eth2\n")
            .empty());  // RTF_GATEWAY without RTF_UP
  CHECK(parse_ipv6_default_routes(zero.substr(1) + " 00 " + zero + " 00 " + zero +
                                  " 00000400 00000003 00000000 00000003 eth2\n")
            .empty());  // a destination of 31 digits
  CHECK(parse_ipv6_default_routes(zero + " 00 " + zero + " 00 " + zero +
                                  " 00000400 00000003 00000000 00000003 eth2\n") == Ports{"eth2"});
}

TEST_CASE("default routes: under a root, either file; neither is unknown") {
  testing::TempDir dir;
  CHECK_FALSE(probe_default_route_ports(Root::open(dir.path).value()).has_value());
  dir.write("proc/net/ipv6_route", testing::read_test_data("host/routes/netns-ipv6"));
  CHECK(probe_default_route_ports(Root::open(dir.path).value()) == Ports{"data0"});
  dir.write("proc/net/route", testing::read_test_data("host/routes/netns-ipv4"));
  CHECK(probe_default_route_ports(Root::open(dir.path).value()) == Ports{"data0", "mgmt0"});
}

}  // namespace tuner

namespace tuner {

TEST_CASE("default routes: a port under a bond, bridge or VLAN that holds the route carries it") {
  // As sysfs lays it out: a bond's or bridge's port links to it as `master`; a device
  // stacked on a port (VLAN, macvlan, the bond too) shows as `upper_NAME` in its dir.
  testing::TempDir dir;
  auto link = [&](const std::string& from, const std::string& to) {
    std::filesystem::create_directories(std::filesystem::path(dir / from).parent_path());
    std::filesystem::create_directory_symlink(to, dir / from);
  };
  link("sys/class/net/eno1/master", "../bond0");
  link("sys/class/net/eno1/upper_bond0", "../bond0");
  link("sys/class/net/bond0/upper_bond0.100", "../bond0.100");
  link("sys/class/net/ens1/upper_ens1.7", "../ens1.7");
  link("sys/class/net/ens2/master", "../br0");
  dir.write("sys/class/net/ens3/mtu", "1500\n");
  // A loop a hostile tree could hold: finite all the same.
  link("sys/class/net/x0/master", "../x1");
  link("sys/class/net/x1/master", "../x0");
  Root root = Root::open(dir.path).value();
  CHECK(carries_default_route(root, "eno1", {"bond0.100"}));  // two levels up
  CHECK(carries_default_route(root, "eno1", {"bond0"}));
  CHECK(carries_default_route(root, "ens1", {"ens1.7"}));
  CHECK(carries_default_route(root, "ens2", {"br0"}));
  CHECK(carries_default_route(root, "ens3", {"ens3"}));
  CHECK_FALSE(carries_default_route(root, "ens3", {"bond0"}));
  CHECK_FALSE(carries_default_route(root, "ens1", {"eno1"}));  // not below it
  CHECK_FALSE(carries_default_route(root, "x0", {"eth9"}));
  CHECK(carries_default_route(root, "x0", {"x1"}));
}

}  // namespace tuner

namespace tuner {

TEST_CASE("default routes: the ports under ovs-system carry a route on an OVS internal port") {
  // An OVN-Kubernetes node as sysfs shows it: the kernel enslaves each OVS port to the
  // datapath device ovs-system (`master`, `upper_ovs-system`); br-ex, the internal port
  // with the address and the route, is virtual and links to none of them.
  testing::TempDir dir;
  auto link = [&](const std::string& from, const std::string& to) {
    std::filesystem::create_directories(std::filesystem::path(dir / from).parent_path());
    std::filesystem::create_directory_symlink(to, dir / from);
  };
  dir.write("sys/class/net/ovs-system/type", "1\n");
  dir.write("sys/class/net/br-ex/type", "1\n");
  link("sys/class/net/ens1f0/device", "../../../0000:17:00.0");
  link("sys/class/net/ens1f0/master", "../ovs-system");
  link("sys/class/net/ens1f0/upper_ovs-system", "../ovs-system");
  // A bond under ovs-system, with two ports: both are under it.
  link("sys/class/net/bond0/master", "../ovs-system");
  link("sys/class/net/eno1/master", "../bond0");
  link("sys/class/net/eno2/master", "../bond0");
  link("sys/class/net/eno3/device", "../../../0000:01:00.0");  // not in OVS
  dir.write("sys/class/net/eno3/type", "1\n");
  Root root = Root::open(dir.path).value();
  for (const char* port : {"ens1f0", "eno1", "eno2", "bond0"}) {
    CAPTURE(port);
    auto carrier = carries_default_route(root, port, {"br-ex"});
    REQUIRE(carrier.has_value());
    CHECK(carrier->holder == "br-ex");
    CHECK(carrier->through_ovs);
  }
  CHECK_FALSE(carries_default_route(root, "eno3", {"br-ex"}));
  // The route on a plain port: the ports under ovs-system do not carry it, and it does,
  // as before.
  CHECK_FALSE(carries_default_route(root, "ens1f0", {"eno3"}));
  CHECK_FALSE(carries_default_route(root, "eno1", {"eno3"}));
  auto plain = carries_default_route(root, "eno3", {"eno3"});
  REQUIRE(plain.has_value());
  CHECK_FALSE(plain->through_ovs);
  // A virtual device that is not an internal port: a Linux bridge, a VPN (ARPHRD_NONE).
  dir.write("sys/class/net/br0/bridge/stp_state", "0\n");
  dir.write("sys/class/net/wg0/type", "65534\n");
  CHECK_FALSE(carries_default_route(root, "ens1f0", {"br0"}));
  CHECK_FALSE(carries_default_route(root, "ens1f0", {"wg0"}));
  // Without ovs-system, br-ex is no OVS internal port.
  std::filesystem::remove_all(dir / "sys/class/net/ovs-system");
  CHECK_FALSE(carries_default_route(root, "ens1f0", {"br-ex"}));
}

}  // namespace tuner
