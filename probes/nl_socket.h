// One netlink socket and its request/reply exchange, for every netlink client (ethtool
// and its rtnetlink companion: probes/netlink.cc; netdev: probes/netdev_netlink.cc). The loop is the same
// for both: send, read until the request's ACK or NLMSG_DONE, skip replies to earlier
// requests, retry on EINTR; what a reply means is each client's.
#pragma once

#include <linux/netlink.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "probes/ethtool_msg.h"

struct mnl_socket;

namespace tuner {

/// How the kernel ended a request: acknowledged, or refused with an error ACK.
struct NlEnd {
  std::optional<NlAck> refused;  // the error ACK: errno, extended ACK text and attribute
  std::string refused_msg;       // its bytes as received (the clients record them)
};

class NlSocket {
 public:
  /// A bound netlink socket (NETLINK_GENERIC, or NETLINK_ROUTE for rtnetlink) with
  /// extended ACKs (the kernel's reason text) and capped ACKs (no echo of the request);
  /// `what` names it in errors.
  static Result<NlSocket> open(const std::string& what, int protocol = NETLINK_GENERIC);
  NlSocket(NlSocket&& other) noexcept;
  NlSocket& operator=(NlSocket&& other) noexcept;
  NlSocket(const NlSocket&) = delete;
  NlSocket& operator=(const NlSocket&) = delete;
  ~NlSocket();

  /// Receives every message of the request's sequence but its final ACK: data replies
  /// in order, then NLMSG_DONE where the request was a dump. An Error it returns ends
  /// the exchange with that Error.
  using OnMessage = std::function<Status(const nlmsghdr& header, std::string_view msg)>;

  /// Sends `req` and reads until its ACK or NLMSG_DONE. Errors: the socket's (with
  /// `where`), a malformed ACK, or on_message's; a refusal is not an Error here but
  /// NlEnd::refused, for the client to word.
  Result<NlEnd> transact(const NlRequest& req, const std::string& where,
                         const OnMessage& on_message);

 private:
  explicit NlSocket(mnl_socket* sock);
  void close();

  mnl_socket* sock_ = nullptr;
  uint32_t portid_ = 0;
  std::vector<uint32_t> rx_;  // 4-byte aligned, as nlmsghdr needs
};

}  // namespace tuner
