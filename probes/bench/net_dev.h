// /proc/net/dev: one row of 16 counters per interface of the reading process's network
// namespace, in the kernel's column order. The guards (guards.h) take drops, errors and
// packets from it, the interference probe (node_load.h) bytes: one parser for both.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "base/result.h"

namespace tuner::bench {

/// One interface's row: rx bytes packets errs drop fifo frame compressed multicast, then
/// tx bytes packets errs drop fifo colls carrier compressed.
struct NetDevRow {
  std::array<uint64_t, 16> v{};
  uint64_t rx_bytes() const { return v[0]; }
  uint64_t rx_packets() const { return v[1]; }
  uint64_t rx_errors() const { return v[2]; }
  uint64_t rx_dropped() const { return v[3]; }
  uint64_t tx_bytes() const { return v[8]; }
  uint64_t tx_packets() const { return v[9]; }
  uint64_t tx_errors() const { return v[10]; }
  uint64_t tx_dropped() const { return v[11]; }
};

/// Every interface's row of /proc/net/dev text (two header lines, then " name: 16
/// counters"). A line without "name:", or with other than 16 counters, is an Error
/// naming its line.
Result<std::map<std::string, NetDevRow>> parse_net_dev_rows(std::string_view text);

}  // namespace tuner::bench
