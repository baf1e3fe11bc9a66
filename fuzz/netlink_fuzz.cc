// libFuzzer target: netlink replies as the kernel sends them (nlmsghdr onward), through
// every parser of the ethtool family and the genetlink controller
// (probes/ethtool_msg.h, with the bitsets of probes/ethtool_bitset.h) and the netdev
// family's dumps (probes/netdev_msg.h), and rtnetlink's RTM_NEWLINK (probes/rtnl_msg.h). Each parser checks the message's command, so
// one input reaches the one it was recorded from and is refused by the others.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "probes/ethtool_msg.h"
#include "probes/netdev_msg.h"
#include "probes/rtnl_msg.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view msg(reinterpret_cast<const char*>(data), size);
  (void)tuner::parse_ack(msg);
  (void)tuner::parse_family_reply(msg);
  auto names = tuner::parse_link_mode_names(msg);
  tuner::LinkInfo info;
  (void)tuner::parse_linkinfo_reply(msg, info);
  // Compact bitsets are named from the kernel's string set: this input's if it was
  // one, else a short list, so bits past its end are named too.
  const std::vector<std::string> some = {"10baseT/Half", "10baseT/Full", "100baseT/Half"};
  (void)tuner::parse_linkmodes_reply(msg, names.ok() ? *names : some, info);
  (void)tuner::parse_linkstate_reply(msg, info);
  (void)tuner::parse_channels_reply(msg);
  (void)tuner::parse_rings_reply(msg);
  (void)tuner::parse_coalesce_reply(msg);
  (void)tuner::parse_getlink_mtu_range(msg);
  auto napis = tuner::parse_napi_dump(msg);
  auto queues = tuner::parse_queue_dump(msg);
  if (napis.ok() && queues.ok()) (void)tuner::napi_irq_roles(*napis, *queues);
  // A napi dump and a queue dump from one input: the first half and the second.
  auto a = tuner::parse_napi_dump(msg.substr(0, size / 2));
  auto b = tuner::parse_queue_dump(msg.substr(size / 2));
  if (a.ok() && b.ok()) (void)tuner::napi_irq_roles(*a, *b);
  return 0;
}
