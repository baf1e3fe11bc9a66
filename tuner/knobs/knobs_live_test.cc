// Knobs on the real kernel. Most cases run only inside the integration scripts
// (tests/integration/nic_link_veth_test.sh, numa_binding_test.sh), which create the
// veth pair in a private network namespace or the temporary cgroup and name it in the
// environment; elsewhere they say so and do nothing. The RFS case makes its own
// namespace (tests/support/netns.h), as root.
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include <doctest/doctest.h>

#include "base/cpuset.h"
#include "base/strings.h"
#include "probes/netlink.h"
#include "tests/support/child.h"
#include "tests/support/files.h"
#include "tests/support/netns.h"
#include "tuner/knobs/knob.h"

namespace tuner {

namespace {

const char* live_env(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v)
    MESSAGE("not run: " << std::string(name) << " is not set (run by tests/integration)");
  return v && *v ? v : nullptr;
}

std::string status_field(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (starts_with(line, field + ":")) return std::string(trim(line.substr(field.size() + 1)));
  return "";
}

}  // namespace

TEST_CASE("nic live: veth link reads; a forced speed is refused and changes nothing") {
  const char* ifname = live_env("TUNER_LIVE_VETH");
  if (!ifname) return;
  auto nl = open_ethtool_netlink();
  REQUIRE_MESSAGE(nl.ok(), (nl.ok() ? "" : nl.error().message()));
  KnobContext ctx{Root::live()};
  ctx.ethtool = nl->get();
  ctx.link_timeout_ms = 3000;
  auto link = make_knob(std::string("nic:") + ifname + ":link", ctx);
  REQUIRE_MESSAGE(link.ok(), (link.ok() ? "" : link.error().message()));
  auto before = (*link)->read();
  REQUIRE_MESSAGE(before.ok(), (before.ok() ? "" : before.error().message()));
  MESSAGE("veth link: " << *before);
  CHECK(starts_with(*before, "autoneg="));
  auto st = (*link)->write("autoneg=off,speed=1000,duplex=full");
  if (st.ok()) {
    // A kernel whose veth took it: it must then read back as asked.
    CHECK(*(*link)->read() == "autoneg=off,speed=1000,duplex=full");
    REQUIRE((*link)->write(*before).ok());
  } else {
    MESSAGE("refused: " << st.error().message());
    CHECK(!st.error().what.empty());
    CHECK(st.error().message().find(std::string("nic:") + ifname + ":link") != std::string::npos);
  }
  CHECK(*(*link)->read() == *before);
}

TEST_CASE("nic live: veth channels read, and a change reads back or changes nothing") {
  const char* ifname = live_env("TUNER_LIVE_VETH");
  if (!ifname) return;
  auto nl = open_ethtool_netlink();
  REQUIRE(nl.ok());
  KnobContext ctx{Root::live()};
  ctx.ethtool = nl->get();
  ctx.link_timeout_ms = 3000;
  auto ch = make_knob(std::string("nic:") + ifname + ":channels", ctx);
  REQUIRE(ch.ok());
  auto before = (*ch)->read();
  REQUIRE_MESSAGE(before.ok(), (before.ok() ? "" : before.error().message()));
  MESSAGE("veth channels: " << *before);
  CHECK(*before == "rx=4,tx=4");  // the script creates it with 4 queues each way
  auto st = (*ch)->write("rx=2,tx=2");
  if (st.ok()) {
    CHECK(*(*ch)->read() == "rx=2,tx=2");
    REQUIRE((*ch)->write(*before).ok());
  } else {
    MESSAGE("refused: " << st.error().message());
  }
  CHECK(*(*ch)->read() == *before);
  auto over = (*ch)->write("rx=64");
  REQUIRE(!over.ok());
  CHECK(over.error().what.find("maximum of 4") != std::string::npos);
}

TEST_CASE("nic live: veth MTU sets and reads back; one past its range is refused, unchanged") {
  // The knob asks rtnetlink for the range first; the kernel's own EINVAL for an MTU
  // outside it (the path when the range is not known) is nic_mtu_test.cc's fake kernel.
  const char* ifname = live_env("TUNER_LIVE_VETH");
  if (!ifname) return;
  KnobContext ctx{Root::live()};
  ctx.link_timeout_ms = 3000;
  auto mtu = make_knob(std::string("nic:") + ifname + ":mtu", ctx);
  REQUIRE_MESSAGE(mtu.ok(), (mtu.ok() ? "" : mtu.error().message()));
  auto before = (*mtu)->read();
  REQUIRE_MESSAGE(before.ok(), (before.ok() ? "" : before.error().message()));
  CHECK(*before == "1500");  // what ip link add gives a veth
  Status st = (*mtu)->write("9000");
  REQUIRE_MESSAGE(st.ok(), (st.ok() ? "" : st.error().message()));
  CHECK(*(*mtu)->read() == "9000");
  // A veth's max_mtu is ETH_MAX_MTU (65535), as the kernel's RTM_NEWLINK says.
  Status over = (*mtu)->write("65536");
  REQUIRE(!over.ok());
  MESSAGE("refused: " << over.error().message());
  CHECK(over.error().is(ErrorKind::invalid));
  CHECK(over.error().what ==
        std::string("MTU 65536 is outside the MTUs ") + ifname + " takes (68 to 65535 bytes)");
  CHECK(*(*mtu)->read() == "9000");
  REQUIRE((*mtu)->write(*before).ok());
  CHECK(*(*mtu)->read() == *before);
}

// RFS on the real kernel, in a private network namespace of the test's own: a veth's
// RX queues have rps_flow_cnt (CONFIG_RPS), the kernel rounds what is written up to a
// power of two, and the socket flow table RFS needs, a global sysctl, is not there.
TEST_CASE("nic live: a veth's RFS flow tables in a private namespace (root)") {
  if (std::string why = testing::netns_unavailable(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  auto r = testing::run_in_netns([] {
    testing::Report out;
    if (std::string e =
            testing::run_command({"ip", "link", "add", "va", "numtxqueues", "2", "numrxqueues", "2",
                                  "type", "veth", "peer", "name", "vb"});
        !e.empty())
      return testing::Report{{"skip", "cannot create a veth pair: " + e}};
    KnobContext ctx{Root::live()};
    auto rfs = make_knob("nic:va:rfs:rx-1", ctx);
    if (!rfs.ok()) return testing::Report{{"error", rfs.error().message()}};
    out["before"] = (*rfs)->read().value_or("?");
    Status w = (*rfs)->write("100");
    out["write"] = w.ok() ? "ok" : w.error().message();
    out["after"] = (*rfs)->read().value_or("?");
    out["sysfs"] = testing::sysfs_value("/sys/class/net/va/queues/rx-1/rps_flow_cnt");
    out["rx0"] = testing::sysfs_value("/sys/class/net/va/queues/rx-0/rps_flow_cnt");
    Status one = (*rfs)->write("1");
    out["one"] = one.ok() ? "ok" : error_kind_name(one.error().kind);
    out["one.after"] = (*rfs)->read().value_or("?");
    Status back = (*rfs)->write(out["before"]);
    out["back"] = back.ok() ? (*rfs)->read().value_or("?") : back.error().message();
    out["sock_table"] = Root::live().exists("proc/sys/net/core/rps_sock_flow_entries") ? "present"
                                                                                       : "absent";
    return out;
  });
  if (auto it = r.find("skip"); it != r.end()) {
    MESSAGE("skipped: " << it->second);
    return;
  }
  REQUIRE_MESSAGE(r.count("error") == 0, r["error"]);
  CHECK(r["before"] == "0");  // no table until someone sets one
  CHECK(r["write"] == "ok");
  CHECK(r["after"] == "128");  // rounded up, by the knob as by the kernel
  CHECK(r["sysfs"] == "128");
  CHECK(r["rx0"] == "0");
  // Linux 6.18 refuses a table of 1 (EINVAL); a kernel that takes it must read it back.
  MESSAGE("a table of 1: " << r["one"] << ", reads " << r["one.after"]);
  if (r["one"] == "ok") CHECK(r["one.after"] == "1");
  else CHECK((r["one"] == "refused" && r["one.after"] == "128"));
  CHECK(r["back"] == "0");
  // net.core.rps_sock_flow_entries belongs to the initial namespace only.
  CHECK(r["sock_table"] == "absent");
}

TEST_CASE("numa live: cpuset cgroup binds the task in it and is restored") {
  const char* path = live_env("TUNER_LIVE_CGROUP");  // relative to /sys/fs/cgroup
  if (!path) return;
  KnobContext ctx{Root::live()};
  ctx.cgroup_root = "/sys/fs/cgroup";
  auto k = make_knob(std::string("numa:cgroup:") + path, ctx);
  REQUIRE_MESSAGE(k.ok(), (k.ok() ? "" : k.error().message()));
  auto before = (*k)->read();
  REQUIRE(before.ok());
  MESSAGE("new cgroup: " << *before);
  auto mine = CpuSet::parse(status_field(::getpid(), "Cpus_allowed_list"));
  REQUIRE(mine.ok());
  REQUIRE(!mine->empty());
  std::string cpu0 = "cpus=" + std::to_string(mine->cpus()[0]);
  REQUIRE((*k)->write(cpu0 + ",mems=0").ok());
  CHECK(*(*k)->read() == cpu0 + ",mems=0");
  // A task moved in runs where the cgroup says.
  testing::SleepingChild child;
  pid_t pid = child.pid();
  std::string procs = std::string("/sys/fs/cgroup/") + path + "/cgroup.procs";
  { std::ofstream(procs) << pid << "\n"; }
  CHECK(status_field(pid, "Cpus_allowed_list") == cpu0.substr(5));
  // Writing more CPUs widens it; a bad value is refused and changes nothing.
  auto bad = (*k)->write("cpus=0-100000");
  CHECK(!bad.ok());
  CHECK(*(*k)->read() == cpu0 + ",mems=0");
  // Back to the hierarchy's root ("cpuset/..." -> /sys/fs/cgroup/cpuset) before the kill.
  std::string top(split(path, '/')[0]);
  { std::ofstream("/sys/fs/cgroup/" + top + "/cgroup.procs") << pid << "\n"; }
  child.stop();
  REQUIRE((*k)->write(*before).ok());
  CHECK(*(*k)->read() == *before);
}

}  // namespace tuner
