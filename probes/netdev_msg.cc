#include "probes/netdev_msg.h"

#include <libmnl/libmnl.h>

#include <set>

#include "probes/genl_parse.h"

namespace tuner {
namespace {

NlRequest build_dump(uint16_t family, uint8_t cmd, uint16_t ifindex_attr, uint32_t ifindex,
                     uint32_t seq) {
  NlRequest r(family, cmd, NLM_F_DUMP, seq);
  mnl_attr_put_u32(r.header(), ifindex_attr, ifindex);
  return r;
}

/// Calls `each` on every message of a dump buffer up to NLMSG_DONE.
template <typename Each>
Status walk_dump(std::string_view buffer, const char* where, Each each) {
  while (!buffer.empty()) {
    if (buffer.size() < sizeof(nlmsghdr))
      return Error::invalid(
          "truncated netlink message (" + std::to_string(buffer.size()) + " bytes)", where);
    nlmsghdr h{};
    std::memcpy(&h, buffer.data(), sizeof h);
    if (h.nlmsg_len < sizeof(nlmsghdr) || h.nlmsg_len > buffer.size())
      return Error::invalid("netlink message length " + std::to_string(h.nlmsg_len) +
                                " does not fit the " + std::to_string(buffer.size()) +
                                " bytes left",
                            where);
    std::string_view msg = buffer.substr(0, h.nlmsg_len);
    if (h.nlmsg_type == NLMSG_DONE) {
      // A dump that fails (ENODEV for an ifindex that is gone) ends in a DONE carrying
      // the negative errno, not in an NLMSG_ERROR.
      int32_t err = 0;
      if (msg.size() >= sizeof(nlmsghdr) + sizeof err)
        std::memcpy(&err, msg.data() + sizeof(nlmsghdr), sizeof err);
      // -errno; anything below -4095 is no errno, and -INT_MIN would be undefined
      // (found by fuzz/netlink_fuzz.cc).
      if (err < -kMaxErrno)
        return Error::invalid("dump ended with error code " + std::to_string(err), where);
      if (err < 0) return errno_error("dump failed", where, -err);
      return Ok{};
    }
    if (h.nlmsg_type == NLMSG_ERROR) {
      auto ack = parse_ack(msg);
      if (!ack) return ack.error();
      if (ack->error != 0)
        return errno_error(ack->message.empty() ? "kernel error" : ack->message, where, ack->error);
    } else if (auto ok = each(msg); !ok) {
      return ok;
    }
    buffer.remove_prefix(std::min<std::size_t>(MNL_ALIGN(h.nlmsg_len), buffer.size()));
  }
  return Ok{};
}

Result<std::optional<uint32_t>> opt_u32(const nlattr* a, const char* where) {
  if (!a) return std::optional<uint32_t>{};
  auto v = attr_u32(a, where);
  if (!v) return v.error();
  return std::optional<uint32_t>(*v);
}

}  // namespace

NlRequest build_napi_dump(uint16_t family, uint32_t ifindex, uint32_t seq) {
  return build_dump(family, netdev_nl::kCmdNapiGet, netdev_nl::kNapiIfindex, ifindex, seq);
}

NlRequest build_queue_dump(uint16_t family, uint32_t ifindex, uint32_t seq) {
  return build_dump(family, netdev_nl::kCmdQueueGet, netdev_nl::kQueueIfindex, ifindex, seq);
}

Result<std::vector<NapiInfo>> parse_napi_dump(std::string_view buffer) {
  constexpr const char* where = "netdev napi-get reply";
  std::vector<NapiInfo> out;
  Status s = walk_dump(buffer, where, [&](std::string_view msg) -> Status {
    auto p = parse_genl<netdev_nl::kNapiMax>(msg, netdev_nl::kCmdNapiGet, where);
    if (!p) return p.error();
    auto id = opt_u32(p->attrs[netdev_nl::kNapiId], where);
    auto ifindex = opt_u32(p->attrs[netdev_nl::kNapiIfindex], where);
    auto irq = opt_u32(p->attrs[netdev_nl::kNapiIrq], where);
    if (!id || !ifindex || !irq) return Error::invalid("bad NAPI attribute", where);
    if (!*id || !*ifindex) return Error::invalid("NAPI without id or ifindex", where);
    out.push_back({**id, **ifindex, *irq});
    return Ok{};
  });
  if (!s) return s.error();
  return out;
}

Result<std::vector<NetdevQueue>> parse_queue_dump(std::string_view buffer) {
  constexpr const char* where = "netdev queue-get reply";
  std::vector<NetdevQueue> out;
  Status s = walk_dump(buffer, where, [&](std::string_view msg) -> Status {
    auto p = parse_genl<netdev_nl::kQueueMax>(msg, netdev_nl::kCmdQueueGet, where);
    if (!p) return p.error();
    auto id = opt_u32(p->attrs[netdev_nl::kQueueId], where);
    auto ifindex = opt_u32(p->attrs[netdev_nl::kQueueIfindex], where);
    auto type = opt_u32(p->attrs[netdev_nl::kQueueType], where);
    auto napi = opt_u32(p->attrs[netdev_nl::kQueueNapiId], where);
    if (!id || !ifindex || !type || !napi) return Error::invalid("bad queue attribute", where);
    if (!*id || !*ifindex || !*type)
      return Error::invalid("queue without id, ifindex or type", where);
    if (**type != netdev_nl::kQueueTypeRx && **type != netdev_nl::kQueueTypeTx)
      return Ok{};  // a queue type newer than tuner (none today)
    out.push_back({**id, **ifindex, **type == netdev_nl::kQueueTypeTx, *napi});
    return Ok{};
  });
  if (!s) return s.error();
  return out;
}

std::map<unsigned, VectorRole> napi_irq_roles(const std::vector<NapiInfo>& napis,
                                              const std::vector<NetdevQueue>& queues) {
  // An IRQ may serve several NAPIs (rare, but nothing forbids it): pool their queues.
  std::map<unsigned, std::set<uint32_t>> rx, tx;
  std::map<unsigned, bool> seen;
  for (const NapiInfo& n : napis) {
    if (!n.irq) continue;
    for (const NetdevQueue& q : queues) {
      if (q.napi_id != n.id || q.ifindex != n.ifindex) continue;
      (q.tx ? tx : rx)[*n.irq].insert(q.id);
      seen[*n.irq] = true;
    }
  }
  std::map<unsigned, VectorRole> out;
  for (const auto& [irq, _] : seen) {
    const std::set<uint32_t>& r = rx[irq];
    const std::set<uint32_t>& t = tx[irq];
    VectorRole role;
    role.kind = IrqKind::queue;
    if (r.size() == 1 && t.size() == 1 && *r.begin() == *t.begin()) {
      role.queue_type = QueueType::combined;
      role.queue_index = *r.begin();
    } else if (r.size() == 1 && t.empty()) {
      role.queue_type = QueueType::rx;
      role.queue_index = *r.begin();
    } else if (t.size() == 1 && r.empty()) {
      role.queue_type = QueueType::tx;
      role.queue_index = *t.begin();
    } else {
      role.queue_type = QueueType::shared;
    }
    out[irq] = role;
  }
  return out;
}

}  // namespace tuner
