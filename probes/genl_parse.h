// Parsing one received generic netlink message: copied into aligned storage, checked
// against its length, its command and its top-level attributes indexed. Shared by the
// ethtool and netdev family parsers.
#pragma once

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include <climits>
#include <cstring>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "probes/ethtool_attr.h"
#include "probes/ethtool_msg.h"

namespace tuner {

// A received message copied into aligned storage, with its top-level attributes.
template <unsigned Max>
struct Parsed {
  std::vector<uint32_t> store;
  AttrTable<Max> attrs;
};

inline Result<std::vector<uint32_t>> aligned_message(std::string_view msg, const char* where) {
  std::vector<uint32_t> store((msg.size() + 3) / 4 + 1);
  std::memcpy(store.data(), msg.data(), msg.size());
  const auto* nlh = reinterpret_cast<const nlmsghdr*>(store.data());
  if (msg.size() > INT_MAX || !nlmsg_fits(nlh, static_cast<int>(msg.size())))
    return Error::invalid("truncated netlink message (" + std::to_string(msg.size()) + " bytes)",
                          where);
  return store;
}

template <unsigned Max>
Result<Parsed<Max>> parse_genl(std::string_view msg, uint8_t cmd, const char* where) {
  auto store = aligned_message(msg, where);
  if (!store) return store.error();
  Parsed<Max> p;
  p.store = std::move(*store);
  const auto* nlh = reinterpret_cast<const nlmsghdr*>(p.store.data());
  if (nlh->nlmsg_type == NLMSG_ERROR) {
    auto ack = parse_ack(msg);
    if (!ack) return ack.error();
    return errno_error(ack->message.empty() ? "kernel error" : ack->message, where, ack->error);
  }
  if (mnl_nlmsg_get_payload_len(nlh) < sizeof(genlmsghdr))
    return Error::invalid("message shorter than its generic netlink header", where);
  const auto* genl = static_cast<const genlmsghdr*>(mnl_nlmsg_get_payload(nlh));
  if (genl->cmd != cmd)
    return Error::invalid(
        "unexpected command " + std::to_string(genl->cmd) + " (want " + std::to_string(cmd) + ")",
        where);
  if (mnl_attr_parse(nlh, sizeof(genlmsghdr), attr_detail::store<Max>, &p.attrs) < 0)
    return Error::invalid("malformed attributes", where);
  return p;
}

}  // namespace tuner
