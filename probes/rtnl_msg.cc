#include "probes/rtnl_msg.h"

#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include <cerrno>
#include <optional>

#include "probes/genl_parse.h"

namespace tuner {

NlRequest build_getlink_request(const std::string& ifname, uint32_t seq) {
  NlRequest r = NlRequest::plain(RTM_GETLINK, NLM_F_ACK, seq);
  auto* ifi = static_cast<ifinfomsg*>(mnl_nlmsg_put_extra_header(r.header(), sizeof(ifinfomsg)));
  ifi->ifi_family = AF_UNSPEC;
  mnl_attr_put_strz(r.header(), IFLA_IFNAME, ifname.c_str());
  mnl_attr_put_u32(r.header(), IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
  return r;
}

namespace {

struct Found {
  std::optional<uint32_t> min, max;
  bool bad = false;
};

int on_attr(const nlattr* attr, void* data) {
  auto& found = *static_cast<Found*>(data);
  uint16_t type = mnl_attr_get_type(attr);
  if (type != IFLA_MIN_MTU && type != IFLA_MAX_MTU) return MNL_CB_OK;
  if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0) {
    found.bad = true;
    return MNL_CB_ERROR;
  }
  (type == IFLA_MIN_MTU ? found.min : found.max) = mnl_attr_get_u32(attr);
  return MNL_CB_OK;
}

}  // namespace

Result<MtuRange> parse_getlink_mtu_range(std::string_view msg) {
  const char* where = "rtnetlink RTM_GETLINK reply";
  auto store = aligned_message(msg, where);
  if (!store) return store.error();
  const auto* nlh = reinterpret_cast<const nlmsghdr*>(store->data());
  if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(ifinfomsg)))
    return Error::invalid("message shorter than its ifinfomsg header", where);
  if (nlh->nlmsg_type != RTM_NEWLINK)
    return Error::invalid(
        "not an RTM_NEWLINK message (type " + std::to_string(nlh->nlmsg_type) + ")", where);
  Found found;
  if (mnl_attr_parse(nlh, sizeof(ifinfomsg), on_attr, &found) != MNL_CB_OK || found.bad)
    return Error::invalid("malformed attributes", where);
  if (!found.min || !found.max)
    return Error::unsupported("the kernel reports no MTU range (before 4.19)", where, EOPNOTSUPP);
  return MtuRange{*found.min, *found.max};
}

}  // namespace tuner
