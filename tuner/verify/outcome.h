// What the verify loop decided about one group, and the numbers behind it, as a struct
// the compiler checks. Its JSON (the journal's decision record, tuner.run/1's group
// `stats`, DESIGN.md) is written by to_json() and read back by outcome_from_json(),
// here and nowhere else: the loop builds a GroupOutcome, the renderers read one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "probes/bench/guards.h"
#include "rollback/run_report.h"
#include "tuner/verify/count_tests.h"
#include "tuner/verify/decision.h"
#include "tuner/verify/schedule.h"

namespace tuner::verify {

/// Why a group ended as it did (JSON `stats.outcome`).
enum class Reason {
  gain,                 ///< kept: the gain is proven
  neutral_kept,         ///< kept: no proven effect, and the group is keep_if_neutral
  no_gain,              ///< a gain of power_effect is ruled out
  harm,                 ///< proven worse
  inconclusive,         ///< max_trials ran out with nothing proven
  guard,                ///< a guard tripped, or a watching benchmark proved harm
  bench_failed,         ///< a benchmark failed or reported nothing
  budget,               ///< the loop's time budget ran out
  not_measurable,       ///< no benchmark can see the group: not written
  not_measurable_kept,  ///< no benchmark can see it, kept because keep_if_neutral
  partly_kept,          ///< a bisect put back the knobs that hurt and kept the rest
  // A class decision reused (apply --decisions, docs/fleet-decisions.md):
  class_kept,         ///< kept: the class's canaries kept it and the soak saw no harm
  class_rolled_back,  ///< not written: the class's canaries rolled it back
  class_disagree,     ///< not written: the class's canaries disagree
  class_undecided,    ///< not written: --require-decision, and the class has no decision
  /// kept as chosen: no benchmark can see it (keep_if_neutral) and its guard soak saw no
  /// workload traffic, so nothing was judged: undecided, not shown harmless
  soak_undecided,
  /// rolled back: the rest of the node's CPU or traffic was proven to differ between
  /// the arms (someone steering the measurement, or the change moving other load):
  /// never a keep (interference.h)
  interference,
};
const char* reason_name(Reason r);
/// nullopt for a name this version does not know.
std::optional<Reason> parse_reason(std::string_view name);
/// kept for gain, neutral_kept, not_measurable_kept, partly_kept, class_kept and
/// soak_undecided; else rolled_back (interference included).
GroupDecision decision_of(Reason r);

/// What one half of a bisect did alone (JSON `bisect.steps[].outcome`).
/// interference: the part's trials proved the rest of the node's load followed the
/// arms, so whether it hurts cannot be told and the bisect stops.
enum class StepOutcome { harm, guard, no_harm, bench_failed, budget, interference };
const char* step_outcome_name(StepOutcome s);
std::optional<StepOutcome> parse_step_outcome(std::string_view name);

/// One benchmark's decision numbers: its name and unit, the verdict, decide()'s Stats
/// (JSON: baseline/candidate medians, effect, ci, ci_level, p, look, looks, alpha_spent,
/// scale; NaN and infinities are null) and the trials run per arm.
struct BenchStats {
  std::string bench, unit;
  Verdict verdict = Verdict::more_trials;
  Stats stats;
  unsigned trials_baseline = 0, trials_candidate = 0;
};

/// One guard over both arms: per-trial counts (percent for tcp_retrans_pct).
/// A link_flaps row's carrier changes in the settle windows after writes, per arm.
struct ExpectedFlaps {
  uint64_t baseline = 0, candidate = 0;
};

struct GuardResult {
  bench::GuardMetric metric = bench::GuardMetric::tcp_retrans_pct;
  std::string interface;  // "" for tcp_retrans_pct
  double baseline = 0, candidate = 0;
  bool tripped = false;
  double limit = 0;  // the max_increase that was passed, when tripped
  /// When tripped: the rate the candidate was proven above (JSON `bound`, the limit
  /// applied to the baseline's rate, guard_decision.h); nullopt in older documents.
  std::optional<double> bound;
  std::string text;  // when tripped: "tcp_retrans_pct: 0.30% -> 7.80%, limit +1.00%"
  /// tcp_retrans_pct: whose segments were counted, "node_traffic" (the namespace's
  /// counter less the benchmark's loopback segments) or "namespace" ("" in older
  /// documents; "benchmark_connections" in those before issue 40).
  std::string source;
  /// tcp_retrans_pct: the per-trial counts' dispersion its test divided by (>= 1);
  /// nullopt in older documents.
  std::optional<double> dispersion;
  /// Why it was not judged ("too little node TCP traffic to judge: ..."), or what was
  /// subtracted; "" when there is nothing to say.
  std::string note;
  /// Events and exposure per arm (retransmits of segments; counts of trials), and the
  /// count test's p when it tripped; nullopt in older documents.
  std::optional<Counts> counts;
  std::optional<double> p;
  /// link_flaps: the carrier changes inside the settle window after each write to each
  /// arm (JSON `expected`): expected, and not in `counts`; nullopt in older documents.
  std::optional<ExpectedFlaps> expected;
};

/// A watching benchmark, tested for harm at the same trials as the main one.
struct WatchResult : BenchStats {
  bool tripped = false;  // harm proven, or a keep it was not shown non-inferior for
  /// The loss it had to be shown smaller than (JSON `margin`, `non_inferior`); nullopt
  /// in documents of versions before non-inferiority.
  std::optional<double> margin;
  bool non_inferior = false;
};

/// One test of the rest of the node's load between the arms (interference.h): per
/// trial, its CPU (CPUs: CPU-seconds per wall second) or its traffic through the
/// interfaces but lo (bytes per second).
struct LoadTest {
  bool judged = false;
  double baseline = 0, candidate = 0;  // the arms' medians per trial
  double p = 1;                        // exact two-sided Mann-Whitney
  double floor = 0;                    // the medians must differ by this much
  unsigned trials_baseline = 0, trials_candidate = 0;
  bool proven = false;  // p at most the level and the medians at least the floor apart
  std::string note;     // why it was not judged
};

/// A process that used the CPU in the trials: its CPU-seconds over each arm's seconds.
struct LoadConsumer {
  int pid = 0;
  std::string comm;  // as the process named itself: escape it to show it
  std::optional<uint32_t> uid;
  bool kernel_thread = false;
  double baseline = 0, candidate = 0;
};

/// Whether the rest of the node's load followed the arms (JSON `interference`).
struct Interference {
  double level = 0.01;
  /// cpu: the others' CPU use; demand: use and run queue waits (not judged without
  /// schedstat); CPU is proven when both are, the same way (interference.h).
  LoadTest cpu, demand, traffic;
  std::vector<LoadConsumer> consumers;  // the most asymmetric, at most 3
  bool flagged = false;                 // cpu or traffic proven: never a keep
  std::string text;                     // the report's line
};

/// One measurement of a candidate (the group, a bisect half, the rest of a group)
/// against the baseline: the main benchmark's numbers, guards, watches, and why it
/// failed or what tripped.
struct Comparison : BenchStats {
  Design design = Design::interleaved;
  /// The trial order: its seed, the letters run ("ABBA..."), the washes between units
  /// (JSON `seed`, `order`, `washes`; written when the order is known).
  std::uint64_t seed = 0;
  std::string order;
  unsigned washes = 0;
  /// The main metric of each trial in the order run, raw: values[i] is the trial of
  /// order[i] (JSON `values`, with `order`; NaN is null). At most 2 x max_trials; empty
  /// in documents of versions before it.
  std::vector<double> values;
  /// What the keep test was against (JSON `direction`, `min_effect`, `power_effect`,
  /// the relative effects of DESIGN.md); nullopt in documents of versions before it.
  std::optional<Direction> direction;
  std::optional<double> min_effect, power_effect;
  std::vector<GuardResult> guards;
  std::vector<WatchResult> watches;  // JSON: only when there are some
  /// The rest of the node's load per arm; nullopt in documents of versions before it.
  std::optional<Interference> interference;
  std::string error;  // a benchmark failed, "interference: ...", or "guard tripped: ..."
};

// NOLINTNEXTLINE(bugprone-exception-escape): json's noexcept move, seen through its asserts
struct BisectStep : Comparison {
  std::vector<std::string> knobs;
  StepOutcome outcome = StepOutcome::no_harm;
  /// A group no benchmark measures is bisected with soaks: this part's soak (the
  /// Comparison's numbers are then unused and not written). null: measured.
  nlohmann::json soak;
};

// NOLINTNEXTLINE(bugprone-exception-escape): json's noexcept move, seen through its asserts
struct BisectRest : Comparison {
  std::vector<std::string> knobs;
  Reason outcome = Reason::inconclusive;
  nlohmann::json soak;  // as BisectStep::soak
};

/// After a rejection: the halves measured alone, the knobs that hurt, and what became
/// of the rest of the group.
struct Bisect {
  std::vector<BisectStep> steps;
  bool complete = true;  // false: stopped by a failed benchmark or the budget
  std::optional<std::vector<std::string>> culprit;  // when complete
  std::optional<BisectRest> rest;                   // when the culprit is not the group
  std::string note;
};

/// The loop's own time per trial, in milliseconds.
struct Overhead {
  double median = 0, max = 0;
};

/// A keep_if_neutral group's share of the run's budget (JSON `time_cap`): its seconds,
/// and whether its trials stopped there.
struct TimeCap {
  double seconds = 0;
  bool reached = false;
};

/// Why a group ended as it did, with its numbers.
// NOLINTNEXTLINE(bugprone-exception-escape): json's noexcept move, seen through its asserts
struct GroupOutcome {
  GroupDecision decision = GroupDecision::rolled_back;
  Reason reason = Reason::inconclusive;
  /// The whole group's numbers; nullopt when no benchmark measured it. A bisect's
  /// numbers are in `bisect`: these stay the whole group's.
  std::optional<Comparison> measured;
  /// Why there are no numbers (JSON `reason`): "no benchmark on this node can measure
  /// this group".
  std::string unmeasured;
  std::optional<Bisect> bisect;
  std::optional<Overhead> overhead_ms;
  std::optional<TimeCap> time_cap;
  nlohmann::json soak;  // null: no soak
  /// A value search's screening and confirmation (JSON `search`); null: no search.
  nlohmann::json search;
  /// The run's seed (apply --seed replays it) and this group's share of the run's
  /// false_keep_rate (JSON `run_seed`, `alpha_share`).
  std::optional<std::uint64_t> run_seed;
  std::optional<double> alpha_share;
  /// Why an unmeasured group went back (the soak's guard tripped); JSON `error`.
  std::string error;
  /// A reused class decision (JSON `class_decision`: class, decision, canaries, file,
  /// suspect); null when the node decided the group itself.
  nlohmann::json class_decision;
};

/// A number, or null when it is not finite (JSON has no NaN or infinity).
nlohmann::json number_or_null(double v);

/// The JSON the journal and tuner.run/1 carry (DESIGN.md, schemas/tuner.run-1).
nlohmann::json to_json(const GroupOutcome& o);
/// Reads what to_json() writes, and what earlier versions of tuner wrote: keys it
/// does not know are ignored, keys it misses keep their defaults. A key of the wrong
/// type, an unknown outcome or verdict is an Error naming its path (`stats.bisect.
/// steps[1].ci`). `decision` is decision_of(reason).
Result<GroupOutcome> outcome_from_json(const nlohmann::json& stats);

}  // namespace tuner::verify
