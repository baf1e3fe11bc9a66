// Netdev netlink seam: the kernel's own word on which IRQ serves which queue (the
// netdev generic netlink family's napi-get and queue-get, kernels from about 6.8, for
// drivers that register their NAPI IRQs). The real client talks to the kernel through
// libmnl; tests substitute tests/support/fake_netlink.h's FakeNetdevNetlink.
#pragma once

#include <memory>
#include <vector>

#include "base/result.h"
#include "probes/netdev_msg.h"

namespace tuner {

class NetdevNetlink {
 public:
  virtual ~NetdevNetlink() = default;
  /// Every NAPI instance of the netdev. EOPNOTSUPP on kernels before napi-get.
  virtual Result<std::vector<NapiInfo>> napis(uint32_t ifindex) = 0;
  /// Every RX and TX queue of the netdev.
  virtual Result<std::vector<NetdevQueue>> queues(uint32_t ifindex) = 0;
};

/// Opens a generic netlink socket and resolves the "netdev" family; an Error of kind
/// `missing` on kernels without it (before 6.3). With TUNER_NETLINK_RECORD=DIR every
/// dump is also written raw to DIR/NAPI_GET-<ifindex>.bin / QUEUE_GET-<ifindex>.bin.
Result<std::unique_ptr<NetdevNetlink>> open_netdev_netlink();

}  // namespace tuner
