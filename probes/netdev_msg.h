// The netdev generic netlink family (Documentation/netlink/specs/netdev.yaml):
// napi-get dumps say which IRQ serves each NAPI instance, queue-get dumps which NAPI
// serves each RX and TX queue. Building requests and parsing replies on byte buffers
// (no socket), so recorded kernel replies are the unit-test input.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "probes/ethtool_msg.h"
#include "probes/irq_names.h"

namespace tuner {

// Debian 12's linux-libc-dev (6.1) has no <linux/netdev.h> with these (the family
// came in 6.3, queue-get and napi-get in about 6.8): the values are the kernel's ABI,
// from include/uapi/linux/netdev.h, and never change.
namespace netdev_nl {
constexpr const char* kFamily = "netdev";
constexpr uint8_t kCmdQueueGet = 10;
constexpr uint8_t kCmdNapiGet = 11;
constexpr uint16_t kNapiIfindex = 1, kNapiId = 2, kNapiIrq = 3, kNapiMax = 3;
constexpr uint16_t kQueueId = 1, kQueueIfindex = 2, kQueueType = 3, kQueueNapiId = 4, kQueueMax = 4;
constexpr uint32_t kQueueTypeRx = 0, kQueueTypeTx = 1;
}  // namespace netdev_nl

/// One NAPI instance of a netdev; irq is absent where the driver did not register it
/// (netif_napi_set_irq()).
struct NapiInfo {
  uint32_t id = 0;
  uint32_t ifindex = 0;
  std::optional<uint32_t> irq;
};

/// One queue of a netdev and the NAPI that polls it (absent while the device is down or
/// the driver does not say).
struct NetdevQueue {
  uint32_t id = 0;
  uint32_t ifindex = 0;
  bool tx = false;
  std::optional<uint32_t> napi_id;
};

/// A dump request (NLM_F_DUMP) of napi-get or queue-get for one ifindex.
NlRequest build_napi_dump(uint16_t family, uint32_t ifindex, uint32_t seq);
NlRequest build_queue_dump(uint16_t family, uint32_t ifindex, uint32_t seq);

/// The messages of a dump as received, back to back, up to NLMSG_DONE. An NLMSG_ERROR
/// becomes an Error with the kernel's errno (EOPNOTSUPP before napi-get existed).
Result<std::vector<NapiInfo>> parse_napi_dump(std::string_view buffer);
Result<std::vector<NetdevQueue>> parse_queue_dump(std::string_view buffer);

/// Each IRQ's queue role from the NAPIs that name it and the queues they poll: one RX
/// and one TX queue of the same number is a combined vector, one queue of either kind
/// is that queue, several other queues make a shared vector. A NAPI without queues is
/// left out (its IRQ's name decides). Roles carry no netdev.
std::map<unsigned, VectorRole> napi_irq_roles(const std::vector<NapiInfo>& napis,
                                              const std::vector<NetdevQueue>& queues);

}  // namespace tuner
