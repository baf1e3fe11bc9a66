// The TCP buffer ceilings a peer benchmark depends on. With direction "in" the peer
// sends, and a sender's bytes in flight are bounded by its own send buffer, which
// autotuning grows only up to its net.ipv4.tcp_wmem maximum: a peer below this node's
// tcp_rmem maximum cannot fill the window that setting allows (profiles/REVIEW.md W-2).
// The bench server reads its own and answers a Mode::info hello with it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace tuner::bench::tcp {

/// The maximum (third field) of a net.ipv4.tcp_rmem or tcp_wmem value such as
/// "4096\t16384\t4194304"; nullopt when it is not three whole numbers.
std::optional<uint64_t> tcp_mem_max(std::string_view value);

/// net.ipv4.tcp_wmem's maximum in the network namespace of /run/netns/NETNS ("": this
/// thread's), from /proc/sys/net/ipv4/tcp_wmem (base/fd_io.h's bounded reader; the
/// file is per namespace, resolved by the reading thread's). Errors name the file.
Result<uint64_t> read_tcp_wmem_max(const std::string& netns = "");

}  // namespace tuner::bench::tcp
