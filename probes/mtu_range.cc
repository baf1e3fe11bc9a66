#include "probes/mtu_range.h"

#include "probes/ifname.h"
#include "probes/nl_socket.h"
#include "probes/rtnl_msg.h"

namespace tuner {

Result<MtuRange> read_mtu_range(const std::string& ifname) {
  if (auto ok = validate_ifname(ifname, IfnameRule::kernel); !ok)
    return ok.error().context("rtnetlink");
  auto sock = NlSocket::open("rtnetlink", NETLINK_ROUTE);
  if (!sock) return sock.error();
  std::string where = ifname + ": rtnetlink GETLINK";
  std::string reply;
  auto end = sock->transact(build_getlink_request(ifname, 1), where,
                            [&](const nlmsghdr& nlh, std::string_view msg) {
                              if (nlh.nlmsg_type != NLMSG_DONE) reply.assign(msg);
                              return Status(Ok{});
                            });
  if (!end) return end.error();
  if (end->refused) {
    const NlAck& ack = *end->refused;
    return errno_error(ack.message.empty() ? "request failed" : ack.message, where, ack.error);
  }
  auto range = parse_getlink_mtu_range(reply);
  if (!range) return range.error().context(ifname);
  return range;
}

}  // namespace tuner
