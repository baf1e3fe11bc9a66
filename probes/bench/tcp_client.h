// The tcp benchmark's client phases. Each opens its connections with the peer key's
// challenge-response (tcp_auth.h) and has one deadline across all its sockets: its
// duration plus kPhaseSlack, covering connecting, the handshakes and the server's count.
// A server that trickles (reads slowly, answers late) cannot stretch a trial past it:
// at the deadline every socket is shut down and the phase fails.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "base/cpuset.h"
#include "probes/bench/bench.h"
#include "probes/bench/tcp_auth.h"
#include "probes/bench/tcp_wire.h"

namespace tuner::bench::tcp {

/// What a phase may take beyond its duration, all its sockets together.
inline constexpr std::chrono::seconds kPhaseSlack{10};

struct StreamResult {
  /// Bytes the receiving end counted (the server for Mode::stream, the client for
  /// Mode::stream_in), summed over streams, each checked against the sender's count.
  uint64_t bytes = 0;
  /// From the common start to the last stream's byte count arriving (stream_in: to the
  /// server's close after its count): every byte counted was received in this time.
  std::chrono::nanoseconds elapsed{0};
  /// TCP_INFO of every stream's socket once the server had counted all its bytes.
  ConnectionCounters connections;
  double bits_per_second() const;
};

/// `streams` connections for `duration` from a common start, in `write_size` chunks.
/// Mode::stream: each client sends, then shutdown(SHUT_WR) and waits for the server's
/// count. Mode::stream_in: each sends one start byte; the server sends for the duration
/// announced in the hello, then its count, and closes; the client counts what it got. A
/// server that predates stream_in is an Error::unsupported saying so.
/// `slack`: what the phase may take beyond `duration` (tests shorten it).
Result<StreamResult> run_streams(const Endpoint& server, const PeerKey& key, Mode mode,
                                 unsigned streams, std::chrono::milliseconds duration,
                                 uint32_t write_size, const CpuSet& cpus,
                                 std::chrono::milliseconds slack = kPhaseSlack);

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

/// Connects and exchanges a hello of `mode` (nothing of the mode follows): is a tuner tcp
/// server holding `key` there, one that serves `mode`?
Status probe(const Endpoint& server, const PeerKey& key, std::chrono::milliseconds timeout,
             Mode mode = Mode::probe);

/// What a server says of itself (Mode::info).
struct ServerFacts {
  /// Its net.ipv4.tcp_wmem maximum in bytes: the most a stream it sends (direction
  /// "in") can have in flight. nullopt: unknown (an older server, or one that could not
  /// read it; `old_server` says which).
  std::optional<uint64_t> tcp_wmem_max;
  /// The server predates Mode::info: it closed at the hello and answered a plain probe.
  bool old_server = false;
};

/// Asks the server for its facts. A server from before Mode::info is not an error: its
/// facts are unknown (old_server). One that cannot be reached or does not prove the key
/// is an Error, as for probe().
Result<ServerFacts> server_facts(const Endpoint& server, const PeerKey& key,
                                 std::chrono::milliseconds timeout);

}  // namespace tuner::bench::tcp
