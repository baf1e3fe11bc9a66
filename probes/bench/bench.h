// Benchmarks are probes that measure (DESIGN.md "The verify loop"): they never change a
// setting. Each run returns metrics with a unit and a direction, within a bounded time.
// The verify loop runs one benchmark per trial and compares the main metric across
// arms; guards (probes/bench/guards.h) are sampled around each trial.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace tuner::bench {

/// Which way is better. The decision engine turns "lower" into "higher" by negation.
enum class Direction { higher, lower };

/// "higher" / "lower" at the profile and JSON boundary.
const char* direction_name(Direction d);
/// The inverse of direction_name; nullopt for anything else (the caller names the
/// profile location in its error).
std::optional<Direction> parse_direction(std::string_view name);

/// One measured figure: "throughput" 9.41e9 "bit/s" higher.
struct Metric {
  std::string name;
  double value = 0;
  std::string unit;
  Direction direction = Direction::higher;
};

/// What the benchmark's own TCP connections sent and retransmitted (TCP_INFO's
/// tcpi_segs_out and tcpi_total_retrans, read on each client socket as it ends): the
/// retransmit guard's source when there is one, undiluted by the rest of the node.
struct ConnectionCounters {
  uint64_t segs_out = 0, retrans = 0;
  ConnectionCounters& operator+=(const ConnectionCounters& o) {
    segs_out += o.segs_out;
    retrans += o.retrans;
    return *this;
  }
};

/// What one run measured. The first metric is the main one, the one a keep/roll-back
/// decision is made on; the others are reported beside it.
struct Measurement {
  std::vector<Metric> metrics;
  /// Wall time the run took (for the report and the time budget).
  std::chrono::nanoseconds elapsed{0};
  /// Set by benchmarks that open their own TCP connections (tcp); absent otherwise.
  std::optional<ConnectionCounters> connections;
  /// What the benchmark's sockets sent over loopback inside this network namespace: its
  /// clients and its in-process server (the loopback placement). The retransmit guard
  /// subtracts it from /proc/net/snmp to judge the node's real traffic. Absent when the
  /// benchmark crosses an interface (netns, peer): its segments are then real traffic
  /// and count (probes/bench/README.md "Guards").
  std::optional<ConnectionCounters> loopback;
};

class Benchmark {
 public:
  virtual ~Benchmark() = default;
  /// The name a profile or `tuner bench NAME` uses: "tcp", "membw", "latency", or the
  /// [bench.NAME] table's name.
  virtual const std::string& name() const = 0;
  /// Checks that the benchmark can run here (binary present, peer reachable, NUMA node
  /// exists) without measuring. Called before anything is changed, so a profile naming
  /// a benchmark that cannot run is a clear error up front, not a silent skip.
  virtual Status check() = 0;
  /// Runs once and measures. Failure (the command failed, timed out, no metric in its
  /// output) is an Error; the verify loop treats it as a tripped guard.
  virtual Result<Measurement> run() = 0;
};

}  // namespace tuner::bench
