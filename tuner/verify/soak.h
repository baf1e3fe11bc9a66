// The guard soak: for a group no benchmark can measure (`bench = []`: IRQ placement,
// NIC channels, the NAPI budget), the node's own traffic is the only witness. The
// guards are sampled over a window before the group is written and over the same
// window after, and judged with the same count tests as the verify loop's trials
// (guard_decision.h), each window counting as one trial. A proven increase rolls the
// group back. Without workload traffic in both windows (fewer TCP segments than the
// retransmit guard needs, and no watched interface carrying min_packets_per_s: ARP,
// LLDP and neighbour discovery are not a workload) nothing was judged: the soak is
// undecided, says "no traffic: undecided", and is no evidence that the group is
// harmless (README.md "Guards").
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "base/result.h"
#include "probes/bench/guards.h"
#include "probes/root.h"
#include "tuner/verify/guard_decision.h"

namespace tuner::verify {

struct SoakOptions {
  /// Each window's length; 0 disables the soak (the group is written and nothing judged).
  std::chrono::milliseconds window{30'000};
  bench::GuardLimits limits = bench::GuardLimits::defaults();
  std::vector<std::string> interfaces;  // NICs whose drops, errors, flaps count
  GuardTestConfig test;
  /// A watched interface is workload traffic when it carries at least this many packets
  /// per second of each window (and 1 at least): a quiet node's ARP, LLDP and neighbour
  /// discovery are a few per second.
  double min_packets_per_s = 100;
};

// NOLINTNEXTLINE(bugprone-exception-escape): the implicit members of a json holder
struct SoakResult {
  /// False when the window is 0: the group was written and nothing sampled.
  bool ran = false;
  /// Workload traffic in both windows: at least limits.min_out_segs TCP segments, or a
  /// watched interface with min_packets_per_s. Without it an untripped soak is undecided.
  bool traffic = false;
  bool tripped = false;
  std::vector<GuardJudgement> guards;
  /// "no traffic on eth0 during the soak (...): undecided", or empty.
  std::string note;
  /// The run document's stats.soak: windows, counts, per-guard decisions, note.
  nlohmann::json json;
};

/// Samples the guards for a window, calls write(), samples for another window from
/// when the write returned, and judges. The write's own time (a link reset and the wait
/// for the link, which the plan states as the change's cost) is in neither window: a
/// link that keeps flapping after it, or loss that stays, is what the soak judges
/// (stats.soak.write_s says how long the write took). An error
/// of write() is returned as is (the caller aborts the run); an error reading the
/// counters after the write is returned too, so the caller rolls back.
Result<SoakResult> soak_group(const Root& root, Clock& clock, const SoakOptions& options,
                              const std::function<Status()>& write);

/// The packets a window of `seconds` needs on a watched interface to count as traffic.
uint64_t min_packets(const SoakOptions& options, double seconds);

/// "GUARD TEXT; GUARD TEXT" for the tripped guards (the run's error line).
std::string tripped_text(const SoakResult& r);

}  // namespace tuner::verify
