#include "probes/netlink.h"

#include <fcntl.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <unistd.h>

#include <cstdlib>

#include "base/unique_fd.h"
#include "probes/ethtool_msg.h"
#include "probes/ifname.h"
#include "probes/nl_socket.h"
#include "probes/rtnl_msg.h"

namespace tuner {
namespace {

struct Op {
  uint8_t cmd;
  const char* name;
};

class EthtoolNetlink : public Ethtool {
 public:
  EthtoolNetlink(NlSocket sock, NetlinkOptions options)
      : sock_(std::move(sock)), options_(std::move(options)) {}

  EthtoolBackend backend() const override { return EthtoolBackend::netlink; }

  Status resolve_family() {
    auto reply = transact(sock_, build_family_request(++seq_), "GETFAMILY", "ethtool");
    if (!reply) return reply.error();
    auto id = parse_family_reply(*reply);
    if (!id) return id.error();
    family_ = *id;
    return Ok{};
  }

  Status get_link_info(const std::string& ifname, LinkInfo& out) override {
    auto reply = get({ETHTOOL_MSG_LINKINFO_GET, "LINKINFO_GET"}, ifname);
    if (!reply) return reply.error();
    return located(parse_linkinfo_reply(*reply, out), ifname);
  }

  Status get_link_modes(const std::string& ifname, LinkInfo& out) override {
    static const std::vector<std::string> no_names;
    const std::vector<std::string>* names = &no_names;
    if (options_.compact_bitsets) {
      auto loaded = link_mode_names();
      if (!loaded) return loaded.error();
      names = *loaded;
    }
    auto reply = get({ETHTOOL_MSG_LINKMODES_GET, "LINKMODES_GET"}, ifname);
    if (!reply) return reply.error();
    return located(parse_linkmodes_reply(*reply, *names, out), ifname);
  }

  Status get_link_state(const std::string& ifname, LinkInfo& out) override {
    auto reply = get({ETHTOOL_MSG_LINKSTATE_GET, "LINKSTATE_GET"}, ifname);
    if (!reply) return reply.error();
    return located(parse_linkstate_reply(*reply, out), ifname);
  }

  Result<Channels> get_channels(const std::string& ifname) override {
    auto reply = get({ETHTOOL_MSG_CHANNELS_GET, "CHANNELS_GET"}, ifname);
    if (!reply) return reply.error();
    return located(parse_channels_reply(*reply), ifname);
  }

  Result<Rings> get_rings(const std::string& ifname) override {
    auto reply = get({ETHTOOL_MSG_RINGS_GET, "RINGS_GET"}, ifname);
    if (!reply) return reply.error();
    return located(parse_rings_reply(*reply), ifname);
  }

  Result<Coalesce> get_coalesce(const std::string& ifname) override {
    auto reply = get({ETHTOOL_MSG_COALESCE_GET, "COALESCE_GET"}, ifname);
    if (!reply) return reply.error();
    return located(parse_coalesce_reply(*reply), ifname);
  }

  Result<MtuRange> get_mtu_range(const std::string& ifname) override {
    if (auto ok = validate_ifname(ifname, IfnameRule::kernel); !ok)
      return ok.error().context("rtnetlink");
    if (!route_) {
      auto sock = NlSocket::open("rtnetlink", NETLINK_ROUTE);
      if (!sock) return sock.error();
      route_ = std::move(*sock);
    }
    auto reply = transact(*route_, build_getlink_request(ifname, ++seq_), "GETLINK", ifname);
    if (!reply) return reply.error();
    return located(parse_getlink_mtu_range(*reply), ifname);
  }

  Status set_link_modes(const std::string& ifname, const LinkModesRequest& req) override {
    return set(build_linkmodes_set(family_, ifname, req, ++seq_), "LINKMODES_SET", ifname);
  }
  Status set_channels(const std::string& ifname, const Channels& ch) override {
    return set(build_channels_set(family_, ifname, ch, ++seq_), "CHANNELS_SET", ifname);
  }
  Status set_rings(const std::string& ifname, const Rings& rings) override {
    return set(build_rings_set(family_, ifname, rings, ++seq_), "RINGS_SET", ifname);
  }
  Status set_coalesce(const std::string& ifname, const Coalesce& c) override {
    return set(build_coalesce_set(family_, ifname, c, ++seq_), "COALESCE_SET", ifname,
               coalesce_field_name);
  }

 private:
  template <typename T>
  static Result<T> located(Result<T> r, const std::string& ifname) {
    if (r.ok()) return r;
    Error e = r.error();
    e.where = ifname + ": " + e.where;
    return e;
  }

  Result<std::string> get(Op op, const std::string& ifname) {
    if (auto ok = validate_ifname(ifname, IfnameRule::kernel); !ok)
      return ok.error().context("ethtool netlink");
    uint32_t flags = options_.compact_bitsets ? ETHTOOL_FLAG_COMPACT_BITSETS : 0;
    return transact(sock_, build_get_request(family_, op.cmd, ifname, flags, ++seq_), op.name,
                    ifname);
  }

  /// attr_name names the request's attributes: a refusal that points at one (the
  /// extended ACK's offset) then says which field it was.
  using AttrNamer = const char* (*)(uint16_t);
  Status set(Result<NlRequest> req, const char* op, const std::string& ifname,
             AttrNamer attr_name = nullptr) {
    if (!req) return req.error();
    auto reply = transact(sock_, *req, op, ifname, attr_name);
    if (!reply) return reply.error();
    return Ok{};
  }

  // The kernel's link-mode names, fetched once per socket: they are global and fixed.
  Result<const std::vector<std::string>*> link_mode_names() {
    if (!mode_names_) {
      auto reply =
          transact(sock_, build_link_mode_names_request(family_, ++seq_), "STRSET_GET", "global");
      if (!reply) return reply.error();
      auto names = parse_link_mode_names(*reply);
      if (!names) return names.error();
      mode_names_ = std::move(*names);
    }
    return &*mode_names_;
  }

  void record(std::string_view msg, const char* op, const std::string& ifname, bool error) const {
    if (options_.record_dir.empty()) return;
    std::string path = options_.record_dir + "/" + op + "-" + ifname + "-" +
                       (options_.compact_bitsets ? "compact" : "verbose") +
                       (error ? "-error" : "") + ".bin";
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (!fd) return;  // recording is a test aid; never fail the request for it
    ssize_t n = ::write(fd.get(), msg.data(), msg.size());
    (void)n;
  }

  // Sends one request and reads until its ACK or error. Returns the data reply (empty
  // for SET requests); a refusal becomes an Error with the kernel's errno and its
  // extended ACK text, prefixed with the field attr_name gives the refused attribute.
  Result<std::string> transact(NlSocket& sock, const NlRequest& req, const char* op,
                               const std::string& ifname, AttrNamer attr_name = nullptr) {
    std::string where = ifname + (&sock == &sock_ ? ": ethtool " : ": rtnetlink ") + op;
    std::string reply;
    auto end = sock.transact(req, where, [&](const nlmsghdr& nlh, std::string_view msg) {
      if (nlh.nlmsg_type == NLMSG_DONE) return Status(Ok{});
      reply.assign(msg);
      record(msg, op, ifname, false);
      return Status(Ok{});
    });
    if (!end) return end.error();
    if (!end->refused) return reply;
    const NlAck& ack = *end->refused;
    record(end->refused_msg, op, ifname, true);
    std::string text = ack.message.empty() ? "request failed" : ack.message;
    if (attr_name && ack.bad_attr_offset)
      if (auto type = attr_type_at(req.bytes(), *ack.bad_attr_offset))
        if (const char* field = attr_name(*type)) text = std::string(field) + ": " + text;
    return errno_error(text, where, ack.error);
  }

  NlSocket sock_;
  std::optional<NlSocket> route_;  // NETLINK_ROUTE, opened on first use
  NetlinkOptions options_;
  uint16_t family_ = GENL_ID_CTRL;
  uint32_t seq_ = 0;
  std::optional<std::vector<std::string>> mode_names_;
};

}  // namespace

Result<std::unique_ptr<Ethtool>> open_ethtool_netlink(const NetlinkOptions& options) {
  auto sock = NlSocket::open("ethtool netlink");
  if (!sock) return sock.error();
  auto nl = std::make_unique<EthtoolNetlink>(std::move(*sock), options);
  if (auto ok = nl->resolve_family(); !ok) {
    Error e = ok.error();
    e.what = "cannot resolve generic netlink family \"ethtool\": " + e.what;
    return e;
  }
  return std::unique_ptr<Ethtool>(std::move(nl));
}

Result<std::unique_ptr<Ethtool>> open_ethtool_netlink() {
  NetlinkOptions options;
  if (const char* dir = std::getenv("TUNER_NETLINK_RECORD")) options.record_dir = dir;
  return open_ethtool_netlink(options);
}

}  // namespace tuner
