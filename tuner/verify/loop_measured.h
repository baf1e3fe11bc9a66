// The verify loop's measurements and the helpers its two files share (loop.cc: trials,
// decisions, a group's verdict; loop_bisect.cc: the bisects). Not a public interface.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tuner/verify/guard_decision.h"
#include "tuner/verify/loop.h"

namespace tuner::verify {

/// A decision's numbers for one benchmark, at the trials it used.
template <typename T = BenchStats>
T bench_stats(const Decision& d, const std::string& bench, const std::string& unit) {
  T b;
  b.bench = bench;
  b.unit = unit;
  b.verdict = d.verdict;
  b.stats = d.stats;
  b.trials_baseline = b.trials_candidate = d.stats.trials;
  return b;
}

struct VerifyLoop::Arms {
  std::vector<double> baseline, candidate;
  bench::GuardDelta guards_baseline, guards_candidate;
  /// Carrier changes inside the settle window after each write to this arm (flips and
  /// washes), by NIC: expected, not in the guards' counts.
  std::map<std::string, uint64_t> expected_flaps_baseline, expected_flaps_candidate;
  /// The rest of the node's CPU and traffic in each arm's trials (interference.h).
  OtherLoad other_baseline, other_candidate;
  std::string unit;
  bool direction_known = false;
  /// A watching benchmark's first metric, per arm.
  struct Watch {
    std::string bench, unit;
    Direction direction = Direction::higher;
    std::vector<double> baseline, candidate;
  };
  std::vector<Watch> watches;
};

/// One measurement of a candidate against the baseline, and how it ended.
struct VerifyLoop::Measured {
  Arms arms;
  Decision decision;
  std::vector<bench::GuardTrip> trips;
  std::vector<WatchResult> watches;     // each watch's numbers
  std::vector<std::string> watch_harm;  // "benchmark NAME: effect ..." for proven harm
  Interference interference;            // judged when the trials end
  std::string failure;                  // the benchmark failed: why
  bool over_budget = false;
  bool capped = false;     // a keep_if_neutral group's share of the budget ran out
  std::uint64_t seed = 0;  // of the trial order
  std::string order;       // "ABBA...": the trials as run
  unsigned washes = 0;     // flips to the other arm and back between units
  Config config;           // the keep test's (its direction known after the first trial)

  bool tripped() const { return !trips.empty() || !watch_harm.empty(); }
  /// The rest of the node's load followed the arms: the numbers cannot be trusted.
  bool interfered() const { return failure.empty() && interference.flagged; }
  bool hurts() const { return failure.empty() && (decision.verdict == Verdict::harm || tripped()); }
};

/// The numbers of a measurement, as journaled and reported. T: Comparison, or a bisect's
/// step or rest.
template <typename T = Comparison>
T comparison_of(const VerifyLoop::Measured& m, const std::string& bench, Design design) {
  T c = bench_stats<T>(m.decision, bench, m.arms.unit);
  c.design = design;
  c.trials_baseline = static_cast<unsigned>(m.arms.baseline.size());
  c.trials_candidate = static_cast<unsigned>(m.arms.candidate.size());
  c.guards = guard_results(m.arms.guards_baseline, m.arms.guards_candidate, m.trips);
  note_expected_flaps(c.guards, m.arms.expected_flaps_baseline, m.arms.expected_flaps_candidate);
  c.watches = m.watches;
  if (!m.order.empty() && m.failure.empty()) c.interference = m.interference;
  c.seed = m.seed;
  c.order = m.order;
  c.washes = m.washes;
  // Each arm's values are in the order run: the order's letters interleave them again.
  std::size_t a = 0, b = 0;
  for (char arm : m.order) {
    const std::vector<double>& side = arm == 'A' ? m.arms.baseline : m.arms.candidate;
    std::size_t& next = arm == 'A' ? a : b;
    if (next >= side.size()) break;
    c.values.push_back(side[next++]);
  }
  if (c.values.size() != m.order.size()) c.values.clear();  // never misaligned
  if (!m.order.empty()) c.direction = m.config.direction;   // known from the first trial on
  c.min_effect = m.config.min_effect;
  c.power_effect = power_effect(m.config);
  if (!m.failure.empty()) {
    c.error = m.failure;
  } else if (m.interfered() || m.tripped()) {
    std::string text;
    for (const auto& t : m.trips) text += (text.empty() ? "" : "; ") + t.text;
    for (const auto& t : m.watch_harm) text += (text.empty() ? "" : "; ") + t;
    if (!text.empty()) text = "guard tripped: " + text;
    if (m.interfered())
      text = "interference: " + m.interference.text + (text.empty() ? "" : "; " + text);
    c.error = text;
  }
  return c;
}

/// Keep or roll back, and why, from a measurement of the whole group (or of what a
/// bisect left of it).
std::pair<GroupDecision, Reason> classify(const VerifyLoop::Measured& m, bool keep_if_neutral);

/// "a, b, c".
std::string join(const std::vector<std::string>& v);

}  // namespace tuner::verify
