// The tcp benchmark's client phases, each bounded by its duration plus fixed timeouts
// (connect 2 s, server acknowledgement 10 s).
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "base/cpuset.h"
#include "probes/bench/bench.h"
#include "probes/bench/tcp_wire.h"

namespace tuner::bench::tcp {

struct StreamResult {
  /// Bytes the server counted, summed over streams (each checked against what was sent).
  uint64_t bytes = 0;
  /// From the common start to the last stream's byte count arriving: every byte counted
  /// was received in this time.
  std::chrono::nanoseconds elapsed{0};
  /// TCP_INFO of every stream's socket once the server had counted all its bytes.
  ConnectionCounters connections;
  double bits_per_second() const;
};

/// `streams` connections, each sending `write_size` chunks for `duration` from a
/// common start, then shutdown(SHUT_WR) and waiting for the server's count.
Result<StreamResult> run_streams(const Endpoint& server, unsigned streams,
                                 std::chrono::milliseconds duration, uint32_t write_size,
                                 const CpuSet& cpus);

struct RrResult {
  /// Round-trip times of every transaction, in nanoseconds.
  std::vector<int64_t> rtt_ns;
  /// TCP_INFO of the connection at the end of the phase.
  ConnectionCounters connections;
};

/// One connection (TCP_NODELAY), `size`-byte request and response, one at a time, for
/// `duration`.
Result<RrResult> run_rr(const Endpoint& server, std::chrono::milliseconds duration, uint32_t size,
                        const CpuSet& cpus);

/// Connects and exchanges a probe hello: is a tuner tcp server there?
Status probe(const Endpoint& server, std::chrono::milliseconds timeout);

}  // namespace tuner::bench::tcp
