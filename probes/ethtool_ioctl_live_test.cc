// The two ethtool backends on the real kernel, in a private namespace with a veth pair:
// they must report the same NICs, and a change made through one must read back through
// the other. Also: the built-in link-mode names against the running kernel's own.
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <doctest/doctest.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "base/unique_fd.h"
#include "probes/ethtool_ioctl.h"
#include "probes/inventory_json.h"
#include "probes/link_modes.h"
#include "probes/netlink.h"
#include "probes/nic.h"
#include "tests/support/netns.h"

namespace tuner {
namespace {

testing::Report skip_or(const std::string& why) {
  return testing::Report{{why.empty() ? "ok" : "skip", why}};
}

std::string veth_pair() {
  return testing::run_commands(
      {{"ip", "link", "add", "va", "numtxqueues", "4", "numrxqueues", "4", "type", "veth", "peer",
        "name", "vb", "numtxqueues", "4", "numrxqueues", "4"},
       {"ip", "link", "set", "va", "up"},
       {"ip", "link", "set", "vb", "up"}});
}

/// The probe's JSON of every NIC, without the field that names the backend.
nlohmann::json nics_json(Ethtool& et, std::vector<ProbeError>& errors) {
  Inventory inv;
  inv.nics = probe_nics(Root::live(), &et, errors);
  nlohmann::json nics = to_json(inv)["nics"];
  for (auto& n : nics) n.erase("ethtool");
  return nics;
}

/// fn(nl, io) in a private network namespace with the veth pair va/vb, given both
/// backends; a skip where the namespace, the pair or ethtool netlink is missing.
template <typename Fn>
testing::Report with_backends(Fn fn) {
  if (auto why = testing::netns_unavailable(); !why.empty()) return skip_or(why);
  return testing::run_in_netns([&fn] {
    if (auto why = veth_pair(); !why.empty()) return skip_or("cannot create a veth pair: " + why);
    auto nl = open_ethtool_netlink();
    if (!nl) return skip_or("no ethtool netlink to compare with: " + nl.error().message());
    auto io = open_ethtool_ioctl();
    if (!io) return testing::Report{{"error", io.error().message()}};
    return fn(&*nl, &*io);
  });
}

bool skipped(testing::Report& r) {
  if (auto it = r.find("skip"); it != r.end()) {
    MESSAGE("skipped: " << it->second);
    return true;
  }
  return false;
}

}  // namespace

TEST_CASE("ethtool backends live: netlink and the ioctl probe a veth pair alike") {
  auto r = with_backends([](std::unique_ptr<Ethtool>* nl, std::unique_ptr<Ethtool>* io) {
    testing::Report out;
    std::vector<ProbeError> nl_errors, io_errors;
    nlohmann::json a = nics_json(**nl, nl_errors), b = nics_json(**io, io_errors);
    out["netlink"] = a.dump();
    out["ioctl"] = b.dump();
    out["errors"] = std::to_string(nl_errors.size()) + "/" + std::to_string(io_errors.size());
    for (const auto& e : io_errors) out["ioctl.error." + e.message] = "1";
    out["backends"] = std::string(ethtool_backend_name((*nl)->backend())) + "/" +
                      ethtool_backend_name((*io)->backend());
    return out;
  });
  if (skipped(r)) return;
  REQUIRE_MESSAGE(r.count("error") == 0, r["error"]);
  CHECK(r["backends"] == "netlink/ioctl");
  CHECK(r["errors"] == "0/0");
  CHECK(r["ioctl"] == r["netlink"]);
  // What the comparison covers: va's link and channels are there to compare.
  auto nics = nlohmann::json::parse(r["ioctl"]);
  bool seen = false;
  for (const auto& n : nics) {
    if (n["name"] != "va") continue;
    seen = true;
    CHECK(n["link"]["speed_mbps"] == 10000);
    CHECK(n["link"]["port"] == "TP");
    CHECK(n["link"]["up"] == true);
    CHECK(n["channels"]["rx_max"] == 4);
    CHECK(n["channels"]["combined"].is_null());
    CHECK(n["rings"].is_null());  // veth has none: EOPNOTSUPP from both
  }
  CHECK(seen);
}

TEST_CASE("ethtool backends live: a channel change through one reads back through the other") {
  auto r = with_backends([](std::unique_ptr<Ethtool>* nl, std::unique_ptr<Ethtool>* io) {
    testing::Report out;
    auto tx = [](Ethtool& et) {
      auto ch = et.get_channels("va");
      return ch && ch->tx ? std::to_string(*ch->tx) + "/" + std::to_string(ch->rx.value_or(0))
                          : std::string("?");
    };
    Channels two;
    two.tx = 2;
    auto st = (*io)->set_channels("va", two);
    out["ioctl.set"] = st ? "ok" : st.error().message();
    out["after ioctl set, netlink reads"] = tx(**nl);
    Channels three;
    three.tx = 3;
    st = (*nl)->set_channels("va", three);
    out["netlink.set"] = st ? "ok" : st.error().message();
    out["after netlink set, ioctl reads"] = tx(**io);
    Channels too_many;
    too_many.tx = 9;
    auto big = (*io)->set_channels("va", too_many);
    out["too many"] = big ? "ok" : std::to_string(big.error().err);
    out["after refusal"] = tx(**nl);
    // What veth cannot do fails alike through both, with EOPNOTSUPP.
    LinkModesRequest forced;
    forced.autoneg = false;
    forced.speed_mbps = 1000;
    forced.duplex = Duplex::full;
    for (Ethtool* et : {nl->get(), io->get()}) {
      std::string k = ethtool_backend_name(et->backend());
      auto link = et->set_link_modes("va", forced);
      out[k + ".link set"] = link ? "ok" : std::to_string(link.error().err);
      auto rings = et->get_rings("va");
      out[k + ".rings"] = rings ? "ok" : std::to_string(rings.error().err);
      auto co = et->get_coalesce("va");
      out[k + ".coalesce"] = co ? "ok" : std::to_string(co.error().err);
      auto gone = et->get_channels("nosuch0");
      out[k + ".nosuch"] = gone ? "ok" : std::to_string(gone.error().err);
    }
    return out;
  });
  if (skipped(r)) return;
  REQUIRE_MESSAGE(r.count("error") == 0, r["error"]);
  CHECK(r["ioctl.set"] == "ok");
  CHECK(r["after ioctl set, netlink reads"] == "2/4");
  CHECK(r["netlink.set"] == "ok");
  CHECK(r["after netlink set, ioctl reads"] == "3/4");
  CHECK(r["too many"] == std::to_string(EINVAL));
  CHECK(r["after refusal"] == "3/4");
  const std::string eopnotsupp = std::to_string(EOPNOTSUPP);
  for (const char* k : {"netlink", "ioctl"}) {
    CAPTURE(k);
    CHECK(r[std::string(k) + ".link set"] == eopnotsupp);
    CHECK(r[std::string(k) + ".rings"] == eopnotsupp);
    CHECK(r[std::string(k) + ".coalesce"] == eopnotsupp);
    CHECK(r[std::string(k) + ".nosuch"] == std::to_string(ENODEV));
  }
}

TEST_CASE("link modes live: the built-in names are the running kernel's") {
  if (auto why = testing::netns_unavailable(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  auto r = testing::run_in_netns([] {
    // ETHTOOL_GSSET_INFO and ETHTOOL_GSTRINGS of ETH_SS_LINK_MODES on the namespace's lo.
    UniqueFd sock(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    ifreq req{};
    std::strcpy(req.ifr_name, "lo");
    uint32_t sset[5] = {ETHTOOL_GSSET_INFO, 0, 0, 0, 0};
    uint64_t mask = 1ull << ETH_SS_LINK_MODES;
    std::memcpy(&sset[2], &mask, sizeof mask);
    req.ifr_data = reinterpret_cast<char*>(sset);
    if (::ioctl(sock.get(), SIOCETHTOOL, &req) != 0)
      return skip_or(std::string("no ETHTOOL_GSSET_INFO: ") + std::strerror(errno));
    std::memcpy(&mask, &sset[2], sizeof mask);
    if (!(mask >> ETH_SS_LINK_MODES & 1)) return skip_or("a kernel before 5.6: no link-mode set");
    uint32_t n = sset[4];
    std::vector<uint32_t> buf(3 + size_t{n} * ETH_GSTRING_LEN / 4);
    buf[0] = ETHTOOL_GSTRINGS;
    buf[1] = ETH_SS_LINK_MODES;
    buf[2] = n;
    req.ifr_data = reinterpret_cast<char*>(buf.data());
    if (::ioctl(sock.get(), SIOCETHTOOL, &req) != 0)
      return testing::Report{{"error", std::string("ETHTOOL_GSTRINGS: ") + std::strerror(errno)}};
    testing::Report out;
    out["count"] = std::to_string(n);
    auto table = builtin_link_mode_names();
    const char* strings = reinterpret_cast<const char*>(&buf[3]);
    for (size_t i = 0; i < n && i < table.size(); ++i) {
      std::string kernel(strings + i * ETH_GSTRING_LEN,
                         strnlen(strings + i * ETH_GSTRING_LEN, ETH_GSTRING_LEN));
      if (kernel != table[i])
        out["differs." + std::to_string(i)] = kernel + " != " + std::string(table[i]);
    }
    return out;
  });
  if (skipped(r)) return;
  REQUIRE_MESSAGE(r.count("error") == 0, r["error"]);
  MESSAGE("the kernel names " << r["count"] << " link modes; the table "
                              << builtin_link_mode_names().size());
  // Not a structured binding: doctest's message is a lambda, and clang 14 cannot
  // capture one.
  for (const auto& kv : r)
    CHECK_MESSAGE(kv.first.rfind("differs.", 0) != 0, kv.first << ": " << kv.second);
  CHECK(std::stoul(r["count"]) >= 69);  // 5.6's set had 69
}

}  // namespace tuner
