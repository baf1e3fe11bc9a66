#include "probes/netdev_netlink.h"

#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "base/unique_fd.h"
#include "probes/nl_socket.h"

namespace tuner {
namespace {

// A netdev has at most a few thousand queues; more reply bytes than this is a kernel
// that never ends its dump, not a device.
constexpr size_t kMaxDumpBytes = size_t{16} * 1024 * 1024;

class NetdevClient : public NetdevNetlink {
 public:
  explicit NetdevClient(NlSocket sock) : sock_(std::move(sock)) {
    if (const char* dir = std::getenv("TUNER_NETLINK_RECORD")) record_dir_ = dir;
  }

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
  // NLMSG_DONE, back to back at netlink's alignment as the parsers walk them.
  Result<std::string> exchange(const NlRequest& req, const char* op, uint32_t ifindex = 0) {
    std::string where = "netdev " + std::string(op);
    if (ifindex) where += " ifindex " + std::to_string(ifindex);
    std::string reply;
    auto end = sock_.transact(req, where, [&](const nlmsghdr&, std::string_view msg) {
      reply.append(msg);
      reply.append(MNL_ALIGN(msg.size()) - msg.size(), '\0');
      if (reply.size() > kMaxDumpBytes)
        return Status(
            Error::invalid("dump larger than " + std::to_string(kMaxDumpBytes) + " bytes", where));
      return Status(Ok{});
    });
    if (!end) return end.error();
    if (end->refused) {
      const NlAck& ack = *end->refused;
      return errno_error(ack.message.empty() ? "request failed" : ack.message, where, ack.error);
    }
    record(reply, op, ifindex);
    return reply;
  }

  NlSocket sock_;
  uint16_t family_ = GENL_ID_CTRL;
  uint32_t seq_ = 0;
  std::string record_dir_;
};

}  // namespace

Result<std::unique_ptr<NetdevNetlink>> open_netdev_netlink() {
  auto sock = NlSocket::open("netdev netlink");
  if (!sock) return sock.error();
  auto nl = std::make_unique<NetdevClient>(std::move(*sock));
  if (auto ok = nl->resolve_family(); !ok) {
    Error e = ok.error();
    e.what = "cannot resolve generic netlink family \"netdev\": " + e.what;
    return e;
  }
  return std::unique_ptr<NetdevNetlink>(std::move(nl));
}

}  // namespace tuner
