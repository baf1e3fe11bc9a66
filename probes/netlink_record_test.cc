// Fixture recorder, not a test: with TUNER_NETLINK_RECORD=DIR it asks every interface in
// the current namespace for everything, in both bitset forms, and the client dumps the
// raw replies into DIR. How the fixtures in tests/fixtures/netlink were made:
//   TUNER_NETLINK_RECORD=DIR build/tuner_tests -tc='netlink record'   (host: eth0, lo)
//   unshare -n -m sh -c 'mount -t sysfs sysfs /sys && ip link add va type veth peer name vb &&
//     ip link set va up && ip link set vb up &&
//     TUNER_NETLINK_RECORD=DIR build/tuner_tests -tc="netlink record"'
// (sysfs mounted again inside, so that /sys/class/net lists the namespace's own
// interfaces). GETLINK-va.bin and GETLINK-lo.bin are GETLINK-*-verbose.bin renamed:
// rtnetlink has no bitset forms, both files are the same.
#include <dirent.h>
#include <doctest/doctest.h>

#include <cstdlib>

#include "probes/netlink.h"

namespace tuner {

TEST_CASE("netlink record") {
  const char* dir = std::getenv("TUNER_NETLINK_RECORD");
  if (!dir) {
    MESSAGE("set TUNER_NETLINK_RECORD=DIR to record netlink fixtures");
    return;
  }
  std::vector<std::string> ifnames;
  if (DIR* d = ::opendir("/sys/class/net")) {
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') ifnames.emplace_back(e->d_name);
    ::closedir(d);
  }
  for (bool compact : {false, true}) {
    auto nl = open_ethtool_netlink(NetlinkOptions{compact, dir});
    REQUIRE_MESSAGE(nl.ok(), nl.error().message());
    for (const auto& ifname : ifnames) {
      LinkInfo info;
      (void)(*nl)->get_link_info(ifname, info);
      (void)(*nl)->get_link_modes(ifname, info);
      (void)(*nl)->get_link_state(ifname, info);
      (void)(*nl)->get_channels(ifname);
      (void)(*nl)->get_rings(ifname);
      (void)(*nl)->get_coalesce(ifname);
      (void)(*nl)->get_mtu_range(ifname);
    }
  }
}

}  // namespace tuner
