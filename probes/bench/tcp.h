// The built-in `tcp` benchmark: bulk throughput (bit/s, higher is better; the main
// metric) and request/response latency p50/p99 (µs, lower is better), with no external
// program. Three placements:
//   loopback  server thread in this process, same network namespace (the default)
//   netns     server thread's listener inside /run/netns/NAME, client here, so traffic
//             crosses the veth pair (or whatever joins the two namespaces)
//   peer      a `serve()` running on another machine at address:port
// Buffers are the kernel's: no SO_SNDBUF/SO_RCVBUF, so the net.ipv4.tcp_rmem/tcp_wmem
// and net.core.*mem sysctls being tuned are what the benchmark sees.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/cpuset.h"
#include "probes/bench/bench.h"
#include "probes/bench/tcp_auth.h"
#include "probes/bench/tcp_client.h"
#include "probes/bench/tcp_wire.h"

namespace tuner::bench {

/// Which way the throughput phase's bytes flow. out: the client (the node under test)
/// sends, so its transmit path is loaded; in: the server sends and the client receives,
/// loading the node's receive path (RSS, NAPI, tcp_rmem, RX IRQ placement).
enum class StreamDirection { out, in };

/// "out" / "in" at the profile's edge.
const char* stream_direction_name(StreamDirection d);
/// The inverse of stream_direction_name; nullopt for anything else.
std::optional<StreamDirection> parse_stream_direction(std::string_view name);

struct TcpConfig {
  enum class Placement { loopback, netns, peer };
  std::string name = "tcp";
  Placement placement = Placement::loopback;
  /// Server address: default 127.0.0.1 for loopback; required for netns (an address
  /// inside that namespace) and peer.
  std::string address;
  /// netns placement: the /run/netns name the server listens in.
  std::string netns;
  /// Server port: 0 (any free port) for loopback and netns; peer defaults to kServePort.
  uint16_t port = 0;
  /// Parallel connections of the throughput phase, 1..32.
  unsigned streams = 1;
  /// Who sends in the throughput phase (the request/response phase is symmetric).
  StreamDirection direction = StreamDirection::out;
  /// Throughput phase length, 100 ms..60 s.
  std::chrono::milliseconds duration{2'000};
  /// Bytes per send() and per server recv(), 4 KiB..1 MiB.
  uint32_t write_size = 128u << 10;
  /// Request/response phase length, 0 (skip) ..60 s; size of request and response.
  std::chrono::milliseconds rr_duration{1'000};
  uint32_t rr_size = 1;
  /// CPUs for the benchmark's threads (client and in-process server); empty: unbound.
  CpuSet cpus;
  /// peer: the rollout's key the server must prove (apply/bench --peer-key or
  /// TUNER_PEER_KEY); a peer benchmark without one cannot run. Loopback and netns: a
  /// random key of the run when empty.
  tcp::PeerKey key;
};

/// The port a peer's serve() listens on unless told otherwise.
inline constexpr uint16_t kServePort = 5301;

/// Checks the numbers and the placement's required fields; errors name the benchmark.
Status validate(const TcpConfig& config);

/// What one run measured, before it becomes Metrics.
struct TcpResult {
  /// Sum over streams of the bytes the receiving end counted (out: the server, in: the
  /// client), in bit/s.
  double throughput_bps = 0;
  uint64_t bytes = 0;
  double rr_p50_us = 0, rr_p99_us = 0;
  uint64_t transactions = 0;
  /// Segments the client's sockets sent and retransmitted, both phases (TCP_INFO).
  ConnectionCounters connections;
  /// Loopback placement: the client's and the in-process server's sockets together,
  /// every segment of the run that the namespace's TCP counter saw on loopback.
  std::optional<ConnectionCounters> loopback;
};

class TcpBenchmark : public Benchmark {
 public:
  explicit TcpBenchmark(TcpConfig config);
  const std::string& name() const override { return config_.name; }
  /// validate(); netns: the namespace exists and we may enter it (a listener is opened
  /// there and closed); peer: a key is set and a server proves it within 2 s, and
  /// serves direction "in" when asked for it.
  Status check() override;
  /// Metrics: throughput (bit/s, higher), rr_latency_p50 and rr_latency_p99 (us, lower;
  /// absent when rr_duration is 0); connections: the client sockets' TCP_INFO counters;
  /// loopback (loopback placement only): client and server sockets' together.
  Result<Measurement> run() override;
  /// The measurement without Metric wrapping (tests, and the README's figures).
  Result<TcpResult> measure();
  /// What the server says of itself (tcp_client.h server_facts): with direction "in",
  /// its tcp_wmem maximum bounds the window this node can be shown.
  Result<tcp::ServerFacts> server_facts();

 private:
  TcpConfig config_;
};

}  // namespace tuner::bench
