// nic:IF:coalesce on the real kernel: a netdevsim port (which implements every ethtool
// coalesce field) created inside a private network namespace, set, read back and put
// back through the knob. Kernels without netdevsim (CONFIG_NETDEVSIM, `modprobe
// netdevsim`) skip with the reason; veth has no coalescing at all (EOPNOTSUPP,
// probes/nic_test.cc). The host's interfaces are never touched.
#include <dirent.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <fstream>

#include "probes/netlink.h"
#include "tests/support/netns.h"
#include "tuner/knobs/knob.h"

namespace tuner {
namespace {

constexpr const char* kBus = "/sys/bus/netdevsim";

bool bus_write(const char* file, const std::string& text) {
  std::ofstream out(std::string(kBus) + "/" + file);
  out << text;
  out.flush();
  return out.good();
}

/// The netdev of netdevsim device `id`, once udev-less sysfs shows it; "" if none.
std::string netdev_of(unsigned id) {
  std::string dir = std::string(kBus) + "/devices/netdevsim" + std::to_string(id) + "/net";
  for (int tries = 0; tries < 50; ++tries) {
    if (DIR* d = ::opendir(dir.c_str())) {
      std::string name;
      while (dirent* e = ::readdir(d))
        if (e->d_name[0] != '.') name = e->d_name;
      ::closedir(d);
      if (!name.empty()) return name;
    }
    ::usleep(20000);
  }
  return "";
}

testing::Report coalesce_round_trip(const std::string& ifname) {
  testing::Report out;
  auto nl = open_ethtool_netlink();
  if (!nl) return {{"error", nl.error().message()}};
  KnobContext ctx{Root::live()};
  ctx.ethtool = nl->get();
  ctx.link_timeout_ms = 2000;
  auto k = make_knob("nic:" + ifname + ":coalesce", ctx);
  if (!k) return {{"error", k.error().message()}};
  auto before = (*k)->read();
  if (!before) return {{"error", before.error().message()}};
  out["before"] = *before;
  auto st = (*k)->write("rx-usecs=8,tx-usecs=16,rx-frames=32,tx-frames=64,adaptive-rx=off");
  out["set"] = st ? "ok" : st.error().message();
  out["after"] = (*k)->read().value_or("unreadable");
  auto back = (*k)->write(*before);
  out["rollback"] = back ? "ok" : back.error().message();
  out["restored"] = (*k)->read().value_or("unreadable");
  return out;
}

}  // namespace

TEST_CASE("nic coalesce live: netdevsim in a private namespace, set, read back, put back") {
  if (auto why = testing::netns_unavailable(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  if (::access((std::string(kBus) + "/new_device").c_str(), W_OK) != 0) {
    MESSAGE("skipped: no netdevsim on this kernel (CONFIG_NETDEVSIM; modprobe netdevsim)");
    return;
  }
  const unsigned id = 7300 + static_cast<unsigned>(::getpid()) % 1000;
  testing::Report r = testing::run_in_netns([id] {
    // A device made from inside the namespace has its ports there.
    if (!bus_write("new_device", std::to_string(id) + " 1"))
      return testing::Report{{"skip", "cannot create netdevsim device " + std::to_string(id)}};
    std::string ifname = netdev_of(id);
    testing::Report out = ifname.empty()
                              ? testing::Report{{"error", "netdevsim device has no netdev"}}
                              : coalesce_round_trip(ifname);
    out["ifname"] = ifname;
    if (!bus_write("del_device", std::to_string(id))) out["error"] = "cannot delete netdevsim";
    return out;
  });
  if (auto it = r.find("skip"); it != r.end()) {
    MESSAGE("skipped: " << it->second);
    return;
  }
  REQUIRE_MESSAGE(r.count("error") == 0, r["error"]);
  MESSAGE("netdevsim " << r["ifname"] << " coalesce before: " << r["before"]);
  CHECK(r["set"] == "ok");
  CHECK(r["after"].find("rx-usecs=8,tx-usecs=16,rx-frames=32,tx-frames=64,adaptive-rx=off") == 0);
  CHECK(r["rollback"] == "ok");
  CHECK(r["restored"] == r["before"]);
}

}  // namespace tuner
