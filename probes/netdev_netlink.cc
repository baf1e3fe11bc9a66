#include "probes/netdev_netlink.h"

#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "base/unique_fd.h"

namespace tuner {
namespace {

// A dump reply comes in buffers of up to a page or so per recv; this holds any of them.
constexpr size_t kReceiveBytes = size_t{64} * 1024;
// A netdev has at most a few thousand queues; more reply bytes than this is a kernel
// that never ends its dump, not a device.
constexpr size_t kMaxDumpBytes = size_t{16} * 1024 * 1024;

class NetdevClient : public NetdevNetlink {
 public:
  explicit NetdevClient(mnl_socket* sock)
      : sock_(sock), portid_(mnl_socket_get_portid(sock)), rx_(kReceiveBytes / 4) {
    if (const char* dir = std::getenv("TUNER_NETLINK_RECORD")) record_dir_ = dir;
  }
  ~NetdevClient() override { mnl_socket_close(sock_); }
  NetdevClient(const NetdevClient&) = delete;
  NetdevClient& operator=(const NetdevClient&) = delete;

  Status resolve_family() {
    auto reply = exchange(build_family_request(++seq_, netdev_nl::kFamily), "GETFAMILY");
    if (!reply) return reply.error();
    auto id = parse_family_reply(*reply);
    if (!id) return id.error();
    family_ = *id;
    return Ok{};
  }

  Result<std::vector<NapiInfo>> napis(uint32_t ifindex) override {
    auto reply = exchange(build_napi_dump(family_, ifindex, ++seq_), "NAPI_GET", ifindex);
    if (!reply) return reply.error();
    return parse_napi_dump(*reply);
  }

  Result<std::vector<NetdevQueue>> queues(uint32_t ifindex) override {
    auto reply = exchange(build_queue_dump(family_, ifindex, ++seq_), "QUEUE_GET", ifindex);
    if (!reply) return reply.error();
    return parse_queue_dump(*reply);
  }

 private:
  void record(std::string_view bytes, const char* op, uint32_t ifindex) const {
    if (record_dir_.empty()) return;
    std::string path = record_dir_ + "/" + op + "-" + std::to_string(ifindex) + ".bin";
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (!fd) return;  // recording is a test aid; never fail the request for it
    ssize_t n = ::write(fd.get(), bytes.data(), bytes.size());
    (void)n;
  }

  // Sends one request and returns every message of our sequence up to its ACK or
  // NLMSG_DONE, back to back as received; the parsers turn an NLMSG_ERROR among them
  // into the kernel's errno.
  Result<std::string> exchange(const NlRequest& req, const char* op, uint32_t ifindex = 0) {
    std::string where = "netdev " + std::string(op);
    if (ifindex) where += " ifindex " + std::to_string(ifindex);
    std::string_view out = req.bytes();
    if (mnl_socket_sendto(sock_, out.data(), out.size()) < 0) return errno_error("sendto", where);
    uint32_t seq = reinterpret_cast<const nlmsghdr*>(out.data())->nlmsg_seq;
    std::string reply;
    for (;;) {
      ssize_t len = mnl_socket_recvfrom(sock_, rx_.data(), kReceiveBytes);
      if (len < 0) {
        if (errno == EINTR) continue;
        return errno_error("recvfrom", where);
      }
      int left = static_cast<int>(len);
      const auto* nlh = reinterpret_cast<const nlmsghdr*>(rx_.data());
      for (; nlmsg_fits(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
        if (nlh->nlmsg_seq != seq || (nlh->nlmsg_pid != 0 && nlh->nlmsg_pid != portid_))
          continue;  // a stale reply to an earlier request
        std::string_view msg(reinterpret_cast<const char*>(nlh), MNL_ALIGN(nlh->nlmsg_len));
        if (nlh->nlmsg_type == NLMSG_ERROR) {
          auto ack = parse_ack(msg);
          if (!ack) return Error::invalid(ack.error().what, where);
          if (ack->error != 0)
            return errno_error(ack->message.empty() ? "request failed" : ack->message, where,
                               ack->error);
          record(reply, op, ifindex);
          return reply;
        }
        if (nlh->nlmsg_type == NLMSG_DONE) {
          reply.append(msg);
          record(reply, op, ifindex);
          return reply;
        }
        reply.append(msg);
        if (reply.size() > kMaxDumpBytes)
          return Error::invalid("dump larger than " + std::to_string(kMaxDumpBytes) + " bytes",
                                where);
      }
    }
  }

  mnl_socket* sock_;
  uint32_t portid_;
  uint16_t family_ = GENL_ID_CTRL;
  uint32_t seq_ = 0;
  std::vector<uint32_t> rx_;
  std::string record_dir_;
};

}  // namespace

Result<std::unique_ptr<NetdevNetlink>> open_netdev_netlink() {
  mnl_socket* sock = mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC);
  if (!sock) return errno_error("socket(NETLINK_GENERIC)", "netdev netlink");
  int on = 1;
  mnl_socket_setsockopt(sock, NETLINK_EXT_ACK, &on, sizeof(on));
  mnl_socket_setsockopt(sock, NETLINK_CAP_ACK, &on, sizeof(on));
  if (mnl_socket_bind(sock, 0, MNL_SOCKET_AUTOPID) < 0) {
    Error e = errno_error("bind", "netdev netlink");
    mnl_socket_close(sock);
    return e;
  }
  auto nl = std::make_unique<NetdevClient>(sock);
  if (auto ok = nl->resolve_family(); !ok) {
    Error e = ok.error();
    e.what = "cannot resolve generic netlink family \"netdev\": " + e.what;
    return e;
  }
  return std::unique_ptr<NetdevNetlink>(std::move(nl));
}

}  // namespace tuner
