// NlSocket against the real kernel's generic netlink controller (no root needed): a
// request answered, one refused, a dump to NLMSG_DONE, and a reader that stops it.
#include <linux/genetlink.h>

#include <doctest/doctest.h>

#include <cerrno>
#include <string>
#include <vector>

#include "probes/ethtool_msg.h"
#include "probes/nl_socket.h"

namespace tuner {
namespace {

TEST_CASE("netlink socket: answered, refused, dumped and stopped requests") {
  auto sock = NlSocket::open("test netlink");
  REQUIRE_MESSAGE(sock.ok(), sock.error().what);
  std::vector<uint16_t> types;
  auto collect = [&](const nlmsghdr& h, std::string_view msg) {
    CHECK(msg.size() == h.nlmsg_len);
    types.push_back(h.nlmsg_type);
    return Status(Ok{});
  };

  SUBCASE("a family that exists: one reply, then the ACK") {
    auto end = sock->transact(build_family_request(1, "nlctrl"), "nlctrl", collect);
    REQUIRE_MESSAGE(end.ok(), end.error().what);
    CHECK_FALSE(end->refused);
    CHECK(types == std::vector<uint16_t>{GENL_ID_CTRL});
  }
  SUBCASE("a family that does not: refused with the kernel's errno, not an Error") {
    auto end = sock->transact(build_family_request(2, "tuner-no-such"), "missing", collect);
    REQUIRE_MESSAGE(end.ok(), end.error().what);
    REQUIRE(end->refused);
    CHECK(end->refused->error == ENOENT);
    CHECK(end->refused_msg.size() >= sizeof(nlmsghdr));
    CHECK(types.empty());
  }
  SUBCASE("a dump: every family in order, NLMSG_DONE last") {
    NlRequest dump(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_DUMP, 3);
    auto end = sock->transact(dump, "dump", collect);
    REQUIRE_MESSAGE(end.ok(), end.error().what);
    CHECK_FALSE(end->refused);
    REQUIRE(types.size() >= 2);  // nlctrl itself, then NLMSG_DONE
    CHECK(types.back() == NLMSG_DONE);
    types.pop_back();
    for (uint16_t t : types) CHECK(t == GENL_ID_CTRL);
  }
  SUBCASE("a reader's Error ends the exchange; the next request is answered alone") {
    NlRequest dump(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_DUMP, 4);
    auto end = sock->transact(dump, "dump", [](const nlmsghdr&, std::string_view) {
      return Status(Error::invalid("enough", "reader"));
    });
    REQUIRE_FALSE(end.ok());
    CHECK(end.error().what == "enough");
    // What is left of the dump is a stale reply to the next request: skipped.
    auto next = sock->transact(build_family_request(5, "nlctrl"), "nlctrl", collect);
    REQUIRE_MESSAGE(next.ok(), next.error().what);
    CHECK(types == std::vector<uint16_t>{GENL_ID_CTRL});
  }
}

}  // namespace
}  // namespace tuner
