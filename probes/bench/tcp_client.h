// The tcp benchmark's client phases. Each opens its connections with the peer key's
// challenge-response (tcp_auth.h) and has one deadline across all its sockets: its
// duration plus kPhaseSlack, covering connecting, the handshakes and the server's count.
// A server that trickles (reads slowly, answers late) cannot stretch a trial past it:
// at the deadline every socket is shut down and the phase fails.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "base/cpuset.h"
#include "probes/bench/bench.h"
#include "probes/bench/tcp_auth.h"
#include "probes/bench/tcp_wire.h"

namespace tuner::bench::tcp {

/// What a phase may take beyond its duration, all its sockets together.
inline constexpr std::chrono::seconds kPhaseSlack{10};

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
/// `slack`: what the phase may take beyond `duration` (tests shorten it).
Result<StreamResult> run_streams(const Endpoint& server, const PeerKey& key, unsigned streams,
                                 std::chrono::milliseconds duration, uint32_t write_size,
                                 const CpuSet& cpus, std::chrono::milliseconds slack = kPhaseSlack);

struct RrResult {
  /// Round-trip times of every transaction, in nanoseconds.
  std::vector<int64_t> rtt_ns;
  /// TCP_INFO of the connection at the end of the phase.
  ConnectionCounters connections;
};

/// One connection (TCP_NODELAY), `size`-byte request and response, one at a time, for
/// `duration`.
Result<RrResult> run_rr(const Endpoint& server, const PeerKey& key,
                        std::chrono::milliseconds duration, uint32_t size, const CpuSet& cpus);

/// Connects and exchanges a probe hello: is a tuner tcp server holding `key` there?
Status probe(const Endpoint& server, const PeerKey& key, std::chrono::milliseconds timeout);

}  // namespace tuner::bench::tcp
