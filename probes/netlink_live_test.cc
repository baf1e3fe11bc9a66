// The ethtool netlink client against the real kernel: veth pairs inside private network
// namespaces (created and destroyed with the test's child process), and read-only
// checks of the host's own interfaces against sysfs.
#include <dirent.h>
#include <doctest/doctest.h>

#include <cerrno>

#include "base/strings.h"
#include "probes/netlink.h"
#include "tests/support/files.h"
#include "tests/support/netns.h"

namespace tuner {
namespace {

using testing::Report;
using testing::run_in_netns;
using testing::sysfs_value;

// Skips (with the reason) unless the report holds results.
bool usable(const Report& r) {
  if (auto it = r.find("skip"); it != r.end()) {
    MESSAGE("skipped: " << it->second);
    return false;
  }
  if (auto it = r.find("error"); it != r.end()) FAIL(it->second);
  return true;
}

bool make_veth() {
  return testing::run_commands(
             {{"ip", "link", "add", "va", "numrxqueues", "4", "numtxqueues", "4", "type", "veth",
               "peer", "name", "vb", "numrxqueues", "4", "numtxqueues", "4"},
              {"ip", "link", "set", "va", "up"},
              {"ip", "link", "set", "vb", "up"}})
      .empty();
}

std::string text(const std::optional<uint32_t>& v) { return v ? std::to_string(*v) : "null"; }
std::string text(const std::optional<Duplex>& v) { return v ? duplex_name(*v) : "null"; }

}  // namespace

TEST_CASE("netlink live: veth link modes match sysfs in a private namespace") {
  if (auto why = testing::netns_unavailable(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  Report r = run_in_netns([] {
    Report out;
    if (!make_veth()) return Report{{"skip", "cannot create a veth pair (ip link add)"}};
    for (bool compact : {false, true}) {
      std::string k = compact ? "compact." : "verbose.";
      auto nl = open_ethtool_netlink(NetlinkOptions{compact, ""});
      if (!nl) return Report{{"error", nl.error().message()}};
      LinkInfo info;
      auto ok = (*nl)->get_link_modes("va", info);
      out[k + "status"] = ok ? "ok" : ok.error().message();
      out[k + "speed"] = text(info.speed_mbps);
      out[k + "duplex"] = text(info.duplex);
      (void)(*nl)->get_link_state("va", info);
      out[k + "up"] = info.up ? (*info.up ? "1" : "0") : "null";
      auto ch = (*nl)->get_channels("va");
      out[k + "rx"] = ch ? text(ch->rx) : ch.error().message();
      auto missing = (*nl)->get_link_modes("nosuchdev0", info);
      out[k + "missing"] = missing ? "ok" : std::to_string(missing.error().err);
    }
    out["sysfs.speed"] = sysfs_value("/sys/class/net/va/speed");
    out["sysfs.duplex"] = sysfs_value("/sys/class/net/va/duplex");
    out["sysfs.carrier"] = sysfs_value("/sys/class/net/va/carrier");
    return out;
  });
  if (!usable(r)) return;
  CHECK(r["sysfs.speed"] == "10000");
  for (std::string k : {"verbose.", "compact."}) {
    CAPTURE(k);
    CHECK(r[k + "status"] == "ok");
    CHECK(r[k + "speed"] == r["sysfs.speed"]);
    CHECK(r[k + "duplex"] == r["sysfs.duplex"]);
    CHECK(r[k + "up"] == r["sysfs.carrier"]);
    CHECK(r[k + "rx"] == "4");
    CHECK(r[k + "missing"] == std::to_string(ENODEV));
  }
}

TEST_CASE("netlink live: host interfaces agree with sysfs speed and duplex") {
  if (::geteuid() != 0) {
    MESSAGE("skipped: not root");  // LINKMODES_GET needs no privilege, but keep tiers clean
    return;
  }
  auto nl = open_ethtool_netlink();
  REQUIRE_MESSAGE(nl.ok(), nl.error().message());
  DIR* d = ::opendir("/sys/class/net");
  REQUIRE(d);
  int compared = 0;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name[0] == '.') continue;
    std::string speed = sysfs_value("/sys/class/net/" + name + "/speed");
    if (speed.empty()) continue;  // EINVAL: the driver reports no link settings
    CAPTURE(name);
    LinkInfo info;
    auto ok = (*nl)->get_link_modes(name, info);
    REQUIRE_MESSAGE(ok.ok(), ok.error().message());
    auto mbps = parse_i64(speed);
    REQUIRE(mbps.has_value());
    if (*mbps <= 0) CHECK_FALSE(info.speed_mbps.has_value());
    else CHECK(info.speed_mbps == static_cast<uint32_t>(*mbps));
    std::string duplex = sysfs_value("/sys/class/net/" + name + "/duplex");
    if (duplex == "full" || duplex == "half") CHECK(info.duplex == parse_duplex(duplex));
    else CHECK_FALSE(info.duplex.has_value());
    ++compared;
  }
  ::closedir(d);
  MESSAGE("compared " << compared << " interfaces");
}

TEST_CASE("netlink live: SET requests on a veth, kernel errors and read-back") {
  if (auto why = testing::netns_unavailable(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  Report r = run_in_netns([] {
    Report out;
    if (!make_veth()) return Report{{"skip", "cannot create a veth pair (ip link add)"}};
    auto nl = open_ethtool_netlink();
    if (!nl) return Report{{"error", nl.error().message()}};
    LinkInfo before, after;
    (void)(*nl)->get_link_modes("va", before);
    LinkModesRequest req{false, 1000, Duplex::half, {}};
    auto set = (*nl)->set_link_modes("va", req);
    out["link.set"] = set ? "ok" : set.error().message();
    out["link.err"] = set ? "0" : std::to_string(set.error().err);
    (void)(*nl)->get_link_modes("va", after);
    out["link.before"] = text(before.speed_mbps) + "/" + text(before.duplex);
    out["link.after"] = text(after.speed_mbps) + "/" + text(after.duplex);

    auto ch = (*nl)->get_channels("va");
    if (!ch || !ch->rx_max) return Report{{"error", "no channels on veth"}};
    Channels too_many;
    too_many.rx = *ch->rx_max + 1;
    auto bad = (*nl)->set_channels("va", too_many);
    out["ch.bad"] = bad ? "ok" : bad.error().message();
    out["ch.bad.err"] = bad ? "0" : std::to_string(bad.error().err);
    auto unchanged = (*nl)->get_channels("va");
    out["ch.after_bad"] = unchanged ? text(unchanged->rx) : "unreadable";
    Channels two;
    two.rx = 2;
    auto good = (*nl)->set_channels("va", two);
    out["ch.good"] = good ? "ok" : good.error().message();
    auto now = (*nl)->get_channels("va");
    out["ch.after_good"] = now ? text(now->rx) : "unreadable";
    out["ch.sysfs_rx_queues"] = std::to_string([] {
      int n = 0;
      if (DIR* d = ::opendir("/sys/class/net/va/queues")) {
        while (dirent* e = ::readdir(d)) n += starts_with(e->d_name, "rx-");
        ::closedir(d);
      }
      return n;
    }());
    Rings rings;
    rings.rx = 512;
    auto rs = (*nl)->set_rings("va", rings);
    out["rings.err"] = rs ? "0" : std::to_string(rs.error().err);
    return out;
  });
  if (!usable(r)) return;
  // veth has no set_link_ksettings: the kernel refuses, and nothing changes.
  if (r["link.set"] != "ok") {
    CHECK_FALSE(r["link.set"].empty());
    CHECK(r["link.set"].find("va") != std::string::npos);
    CHECK(r["link.after"] == r["link.before"]);
  } else {
    CHECK(r["link.after"] == "1000/half");
  }
  CHECK(r["link.before"] == "10000/full");
  // The kernel's extended ACK text reaches the Error.
  CHECK(r["ch.bad"].find("exceeds maximum") != std::string::npos);
  CHECK(r["ch.bad.err"] == std::to_string(EINVAL));
  CHECK(r["ch.after_bad"] == "4");
  CHECK(r["ch.good"] == "ok");
  CHECK(r["ch.after_good"] == "2");
  CHECK(r["ch.sysfs_rx_queues"] == "2");
  CHECK(r["rings.err"] == std::to_string(EOPNOTSUPP));
  MESSAGE("LINKMODES_SET on veth: " << r["link.set"]);
}

}  // namespace tuner
