// RTM_GETLINK on real kernel replies recorded from this machine's kernel in a private
// network namespace (tests/fixtures/netlink/GETLINK-*.bin: see netlink_record_test.cc),
// and on replies cut or built to be wrong.
#include <doctest/doctest.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include <cerrno>
#include <cstring>

#include "probes/rtnl_msg.h"
#include "tests/support/files.h"

namespace tuner {
namespace {

std::string fixture(const std::string& name) { return testing::read_test_data("netlink/" + name); }

struct Attrs {
  std::string name;
  uint32_t mask = 0;
};

int collect(const nlattr* attr, void* data) {
  auto& found = *static_cast<Attrs*>(data);
  if (mnl_attr_get_type(attr) == IFLA_IFNAME) found.name = mnl_attr_get_str(attr);
  if (mnl_attr_get_type(attr) == IFLA_EXT_MASK) found.mask = mnl_attr_get_u32(attr);
  return MNL_CB_OK;
}

}  // namespace

TEST_CASE("rtnl: a veth's MTU range from a recorded RTM_NEWLINK") {
  auto range = parse_getlink_mtu_range(fixture("GETLINK-va.bin"));
  REQUIRE_MESSAGE(range.ok(), (range.ok() ? "" : range.error().message()));
  CHECK(range->min == 68);
  CHECK(range->max == 65535);
  CHECK(range->takes(9000));
  CHECK_FALSE(range->takes(65536));
  CHECK(range->text() == "68 to 65535 bytes");
}

TEST_CASE("rtnl: loopback sets no bound (max 0): it takes any MTU") {
  auto range = parse_getlink_mtu_range(fixture("GETLINK-lo.bin"));
  REQUIRE(range.ok());
  CHECK(range->max == 0);
  CHECK(range->takes(4000000000U));
  CHECK(range->text() == std::to_string(range->min) + " bytes and up");
}

TEST_CASE("rtnl: the request names the interface, asks for no statistics, and an ACK") {
  NlRequest req = build_getlink_request("va", 7);
  std::string_view bytes = req.bytes();
  const auto* nlh = reinterpret_cast<const nlmsghdr*>(bytes.data());
  CHECK(nlh->nlmsg_type == RTM_GETLINK);
  CHECK(nlh->nlmsg_flags == (NLM_F_REQUEST | NLM_F_ACK));
  CHECK(nlh->nlmsg_seq == 7);
  CHECK(nlh->nlmsg_len == bytes.size());
  Attrs found;
  REQUIRE(mnl_attr_parse(nlh, sizeof(ifinfomsg), collect, &found) == MNL_CB_OK);
  CHECK(found.name == "va");
  CHECK(found.mask == RTEXT_FILTER_SKIP_STATS);
}

TEST_CASE("rtnl: cut, foreign or rangeless replies are errors, never a range") {
  std::string va = fixture("GETLINK-va.bin");
  for (size_t cut : {size_t{0}, size_t{8}, size_t{20}, va.size() - 1}) {
    CAPTURE(cut);
    auto r = parse_getlink_mtu_range(va.substr(0, cut));
    REQUIRE(!r.ok());
    CHECK(r.error().is(ErrorKind::invalid));
  }
  // An ethtool reply is not an RTM_NEWLINK.
  auto foreign = parse_getlink_mtu_range(fixture("CHANNELS_GET-va-verbose.bin"));
  REQUIRE(!foreign.ok());
  CHECK(foreign.error().what.find("not an RTM_NEWLINK") != std::string::npos);

  // The header alone, as a kernel before 4.19 would send it without the two attributes.
  std::string bare = va.substr(0, NLMSG_LENGTH(sizeof(ifinfomsg)));
  auto len = static_cast<uint32_t>(bare.size());
  std::memcpy(bare.data(), &len, sizeof(len));
  auto old = parse_getlink_mtu_range(bare);
  REQUIRE(!old.ok());
  CHECK(old.error().is(ErrorKind::unsupported));
  CHECK(old.error().err == EOPNOTSUPP);

  // IFLA_MAX_MTU with a u16 payload: malformed, not a range.
  std::string bad = bare;
  bad.resize(MNL_ALIGN(bad.size()) + 8, '\0');
  nlattr a{6, IFLA_MAX_MTU};
  std::memcpy(bad.data() + MNL_ALIGN(bare.size()), &a, sizeof(a));
  len = static_cast<uint32_t>(bad.size());
  std::memcpy(bad.data(), &len, sizeof(len));
  auto malformed = parse_getlink_mtu_range(bad);
  REQUIRE(!malformed.ok());
  CHECK(malformed.error().what == "malformed attributes");
}

}  // namespace tuner
