// Guards as tests: a guard trips only when a count test proves, at a one-sided level,
// that the candidate's rate of retransmits, drops, errors or carrier changes exceeds
// the baseline's by more than its limit (README.md "Guards"). A raw difference of two
// small counts is noise: at 0.01 background events per trial, "any increase" over a
// zero limit rolled back 9-24% of harmless groups.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "probes/bench/guards.h"
#include "probes/root.h"
#include "tuner/verify/count_tests.h"
#include "tuner/verify/outcome.h"

namespace tuner::verify {

/// A link's carrier changes before the run began, over the node's uptime: a floor under
/// the link-flap guard's baseline rate, never pooled with the baseline trials
/// (README.md "Guards").
struct FlapPrior {
  uint64_t events = 0;
  double seconds = 0;
};

struct GuardTestConfig {
  /// One-sided level of each guard's test.
  double level = 0.01;
  /// Part of `level` spent on the baseline rate's confidence bound (Berger-Boos).
  double gamma = 0.001;
  /// tcp_retrans_pct also trips on a proven rise beyond ratio x the baseline rate plus
  /// floor x the limit: a ratio is not diluted by segments that cannot retransmit
  /// (loopback), a difference in points is (README.md "Guards").
  double retrans_ratio = 2.0;
  double retrans_floor = 0.1;
  /// tcp_retrans_pct divides its counts by the per-trial counts' dispersion (quasi-
  /// Poisson; README.md "Guards"). false: the exact Poisson test alone (the simulation's
  /// comparison).
  bool dispersion = true;
  /// By interface: link_flaps compares the candidate trials' carrier changes with the
  /// baseline trials', and, when both arms were timed, also with the link's rate since
  /// boot: it trips only when the candidate's rate is proven above both (an
  /// intersection-union test, p the larger of the two). The boot rate is a floor: a
  /// link that flaps now as often as it always has is not a knob's fault. It is never
  /// pooled with the baseline trials, where a long uptime's tiny average would dilute
  /// a link that flaps more now than it did, in both arms alike.
  std::map<std::string, FlapPrior> flap_prior;
};

/// Each interface's carrier_changes over the uptime (proc/uptime,
/// sys/class/net/IF/carrier_changes), read before anything is written. An interface
/// whose count cannot be read has no prior (its guard judges the trials alone).
Result<std::map<std::string, FlapPrior>> read_flap_prior(
    const Root& root, const std::vector<std::string>& interfaces);

/// One guard on one interface (none for tcp_retrans_pct), judged.
struct GuardJudgement {
  bench::GuardMetric metric = bench::GuardMetric::tcp_retrans_pct;
  std::string interface;
  bench::RetransSource source = bench::RetransSource::namespace_counter;  // tcp only
  /// Events and exposure per arm: retransmits of segments; counts of trials (the
  /// soak: of windows).
  Counts counts;
  double baseline = 0, candidate = 0;  // percent, or events per trial
  double limit = 0;                    // max_increase, in the same unit
  /// The rate the candidate had to be proven above, at the baseline's rate: baseline +
  /// limit, or for tcp_retrans_pct the smaller of that and ratio x baseline + floor x
  /// limit (count_tests.h Margin); in the same unit.
  double bound = 0;
  double p = 1;
  /// tcp_retrans_pct: the per-trial counts' dispersion the test divided by (count_tests.h
  /// `dispersion`, at least 1; 1: the exact Poisson test).
  double dispersion = 1;
  bool judged = true;  // false: too little traffic to judge (note says so)
  /// link_flaps with a prior for its interface: the test against the since-boot floor
  /// (candidate per second against the prior's events over its seconds) and its p.
  bool floored = false;
  double floor_p = 1;
  bool tripped = false;
  std::string text;  // the report's line, "tcp_retrans_pct: 0.30% -> 7.80%, limit +0.50%, ..."
  std::string note;
};

/// Judges every guard of `limits`: tcp_retrans_pct once (on the node's traffic, the
/// namespace counter less the benchmark's loopback segments, when both arms reported
/// the benchmark's connections, else the namespace counter; over-dispersed per-trial
/// counts widen its test), each counter guard once per interface of the candidate arm.
std::vector<GuardJudgement> judge_guards(const bench::GuardDelta& baseline,
                                         const bench::GuardDelta& candidate,
                                         const bench::GuardLimits& limits,
                                         const GuardTestConfig& config = {});

/// The tripped ones, as the loop's GuardTrip.
std::vector<bench::GuardTrip> guard_trips(const bench::GuardDelta& baseline,
                                          const bench::GuardDelta& candidate,
                                          const bench::GuardLimits& limits,
                                          const GuardTestConfig& config = {});

/// One judgement as the run document's guard row: metric, interface, baseline,
/// candidate, tripped, limit, p, counts, source and dispersion (tcp), text (tripped), note.
nlohmann::json guard_json(const GuardJudgement& j);

/// The verify loop's guard rows for a measurement: every guard metric per interface,
/// with the source and counts of each arm; limit, p and text where `trips` has one.
std::vector<GuardResult> guard_results(const bench::GuardDelta& baseline,
                                       const bench::GuardDelta& candidate,
                                       const std::vector<bench::GuardTrip>& trips);

/// Sets each link_flaps row's `expected`: the carrier changes inside the settle
/// windows after the writes to each arm, by interface (none: 0).
void note_expected_flaps(std::vector<GuardResult>& rows,
                         const std::map<std::string, uint64_t>& baseline,
                         const std::map<std::string, uint64_t>& candidate);

}  // namespace tuner::verify
