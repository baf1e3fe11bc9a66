#include "probes/nl_socket.h"

#include <libmnl/libmnl.h>
#include <sys/socket.h>

#include <cerrno>
#include <utility>

namespace tuner {
namespace {

// Large enough for a LINKMODES reply with verbose names and the link-mode string set,
// and for any one buffer of a dump; libmnl reports ENOSPC rather than truncating if one
// ever is larger.
constexpr size_t kReceiveBytes = size_t{64} * 1024;

}  // namespace

NlSocket::NlSocket(mnl_socket* sock) : sock_(sock), rx_(kReceiveBytes / 4) {}

NlSocket::NlSocket(NlSocket&& other) noexcept
    : sock_(std::exchange(other.sock_, nullptr)),
      portid_(other.portid_),
      rx_(std::move(other.rx_)) {}

NlSocket& NlSocket::operator=(NlSocket&& other) noexcept {
  if (this != &other) {
    close();
    sock_ = std::exchange(other.sock_, nullptr);
    portid_ = other.portid_;
    rx_ = std::move(other.rx_);
  }
  return *this;
}

NlSocket::~NlSocket() { close(); }

void NlSocket::close() {
  if (sock_) mnl_socket_close(sock_);
  sock_ = nullptr;
}

Result<NlSocket> NlSocket::open(const std::string& what, int protocol) {
  mnl_socket* sock = mnl_socket_open2(protocol, SOCK_CLOEXEC);
  if (!sock)
    return errno_error(
        protocol == NETLINK_ROUTE ? "socket(NETLINK_ROUTE)" : "socket(NETLINK_GENERIC)", what);
  NlSocket owned(sock);
  int on = 1;
  // Best effort: without them replies carry no reason text, or echo the request.
  mnl_socket_setsockopt(sock, NETLINK_EXT_ACK, &on, sizeof(on));
  mnl_socket_setsockopt(sock, NETLINK_CAP_ACK, &on, sizeof(on));
  if (mnl_socket_bind(sock, 0, MNL_SOCKET_AUTOPID) < 0) return errno_error("bind", what);
  owned.portid_ = mnl_socket_get_portid(sock);
  return owned;
}

Result<NlEnd> NlSocket::transact(const NlRequest& req, const std::string& where,
                                 const OnMessage& on_message) {
  std::string_view out = req.bytes();
  if (mnl_socket_sendto(sock_, out.data(), out.size()) < 0) return errno_error("sendto", where);
  uint32_t seq = reinterpret_cast<const nlmsghdr*>(out.data())->nlmsg_seq;
  for (;;) {
    ssize_t len = mnl_socket_recvfrom(sock_, rx_.data(), rx_.size() * sizeof(uint32_t));
    if (len < 0) {
      if (errno == EINTR) continue;
      return errno_error("recvfrom", where);
    }
    int left = static_cast<int>(len);
    const auto* nlh = reinterpret_cast<const nlmsghdr*>(rx_.data());
    for (; nlmsg_fits(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
      if (nlh->nlmsg_seq != seq || (nlh->nlmsg_pid != 0 && nlh->nlmsg_pid != portid_))
        continue;  // a stale reply to an earlier request
      std::string_view msg(reinterpret_cast<const char*>(nlh), nlh->nlmsg_len);
      if (nlh->nlmsg_type == NLMSG_ERROR) {
        auto ack = parse_ack(msg);
        if (!ack) return Error::invalid(ack.error().what, where);
        if (ack->error == 0) return NlEnd{};
        return NlEnd{std::move(*ack), std::string(msg)};
      }
      if (auto ok = on_message(*nlh, msg); !ok) return ok.error();
      if (nlh->nlmsg_type == NLMSG_DONE) return NlEnd{};
    }
  }
}

}  // namespace tuner
