// A simulated benchmark with known effects and noise, to measure how often the decision
// keeps what it should not (false keeps) and misses what it should keep, and how many
// trials it needs. decision_sim.cc prints the table; sim_test.cc asserts the targets.
//
// Each replication is one run of the loop as it runs on a machine: a fresh seed and so
// a fresh order of randomised units (schedule.h), a wash where a unit starts on the arm
// the previous one ended on, and the noise the scenario names acting on the trials in
// the order they ran.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "tuner/verify/decision.h"
#include "tuner/verify/schedule.h"

namespace tuner::verify {

enum class Noise {
  normal,          ///< value = mu (1 + cv Z)
  student_t3,      ///< value = mu exp(cv / sqrt(3) T3): heavy tails, log-sd = cv
  drift,           ///< normal, times 1 + 0.1% per trial in the better direction
  drift_fast,      ///< normal, times 1 + 0.5% per trial in the better direction
  outlier,         ///< normal, and each trial with probability 1/10 is 30% slow
  bimodal,         ///< normal, and each trial with probability 1/2 is 2 cv better
  bursts,          ///< normal; a burst starts with probability 1/20 and slows 5 trials by 15%
  spread,          ///< normal, but the candidate's noise is twice the baseline's
  quantized,       ///< normal, rounded to whole units of a mean of 100: many ties
  flip_state,      ///< normal, times exp(S): S ~ N(0, cv) drawn anew at every knob write
  period3,         ///< normal; every 3rd trial 2 cv slow, at a random phase
  period4,         ///< normal; every 4th trial 2 cv slow, at a random phase
  period3_locked,  ///< period3 with the phase locked to the run's first trial
  period4_locked,  ///< period4 with the phase locked to the run's first trial
  block_offset,    ///< normal, times exp(O): O ~ N(0, 2%) drawn anew every `block` trials
  /// normal; each *candidate* trial with probability 1/5 is 30% slow (a stall the
  /// candidate causes). The scenario's effect is the gain in the arithmetic mean: the
  /// typical trial gains (1 + effect) / 0.94 - 1 (+5% typical: mean -1.3%).
  stalls,
  /// `outlier` in both arms (each trial with probability 1/10 is 30% slow), and the
  /// candidate's typical trial gains +5% but it stalls more often: its slow rate is the
  /// one that puts its mean gain at the scenario's effect ((1 - (1 + effect) x 0.97 /
  /// 1.05) / 0.3: 22.3% at +1%, 10% at +5%, which is `outlier +5%` exactly). A
  /// candidate that adds stalls to a baseline that has some (README.md, "Stalls").
  more_stalls,
  /// normal, but the noise level steps up during the run: cv / 3 for the first 40
  /// trials (20 per arm), cv after (issue 40: calibration across looks).
  cv_step,
  /// the mirror image: cv for the first 40 trials, cv / 3 after.
  cv_step_down,
};

/// "normal", "t3", "drift", "drift0.5", "outlier", "bimodal", "bursts", "spread",
/// "quantized", "flip", "period3", "period4", "period3@0", "period4@0", "blockoff",
/// "stalls", "more-stalls", "cv-step", "cv-step-down".
std::string_view noise_name(Noise n);

/// Trials per arm in a unit of the blocked design, in the simulation and the loop's
/// default (LoopOptions::block).
inline constexpr unsigned kSimBlock = 3;

struct Scenario {
  Noise noise = Noise::normal;
  double cv = 0.03;   ///< noise relative to the mean
  double effect = 0;  ///< true relative gain, positive = better
  Direction direction = Direction::higher;
  Design design = Design::interleaved;
};

/// How one method did over the replications of a scenario.
struct MethodOutcome {
  unsigned reps = 0;
  unsigned keeps = 0;
  double trials_per_arm = 0;  ///< summed over replications
  unsigned verdicts[5] = {};  ///< indexed by Verdict
  double keep_rate() const { return reps ? static_cast<double>(keeps) / reps : 0; }
  double mean_trials() const { return reps ? trials_per_arm / reps : 0; }
  double rate(Verdict v) const {
    return reps ? static_cast<double>(verdicts[static_cast<int>(v)]) / reps : 0;
  }
};

struct ScenarioResult {
  Scenario scenario;
  MethodOutcome sequential;  ///< decide() under `config`, in the scenario's design
  /// 5 baseline runs then 3 candidate runs, keep if the candidate's mean is better
  /// (trials counted as 4 per arm).
  MethodOutcome naive;
  /// One signed-rank test against min_effect at false_keep_rate on the first
  /// `fixed_small` trials per arm of the same runs.
  MethodOutcome fixed_small;
  MethodOutcome fixed_large;  ///< the same at `fixed_large` trials per arm
};

struct SimOptions {
  unsigned reps = 2000;
  std::uint64_t seed = 1;
  Config config;  ///< the sequential procedure under test (unit and looks set per design)
  unsigned fixed_small = 10;
  unsigned fixed_large = 22;
};

/// The config the simulation targets: min_effect 1%, false_keep_rate 1%, max 40.
Config sim_config();

/// One group's share of the shipped defaults (profiles/README.md): the run-wide
/// false_keep_rate 0.05 spent over up to 5 groups that can keep (0.01 each),
/// min_effect 0.02, max_trials 40.
Config shipped_config();

/// `c` as the loop runs it in `design`: for the blocked design, units of kSimBlock
/// trials per arm and looks every 2 units.
Config config_for(Config c, Design design);

/// The scenarios of the README table: noise x effect {0, +1%, +5%, -5%} at 3% (and
/// for the classic noises 1%), lower-is-better rows, the correlated-noise rows (flip
/// state, periods, fast drift), the blocked design with per-block offsets, the
/// wider candidate spread with no effect, and candidate stalls at mean effects
/// {-1.3% (+5% typical), 0, min_effect, +5%}, and the noise level stepping up mid-run.
std::vector<Scenario> standard_scenarios(double min_effect = 0.01);

/// The slow rate of the `more_stalls` candidate whose mean gains `effect`.
double more_stalls_rate(double effect);

/// The mean effect of the `stalls` scenario whose typical (unstalled) trial gains
/// `typical`: (1 + typical) (1 - 0.2 x 0.3) - 1.
double stalls_mean_effect(double typical);

/// Runs `options.reps` replications of one scenario for every method. Deterministic:
/// replication r of scenario `index` draws from a generator seeded by (seed, index, r).
ScenarioResult simulate(const Scenario& scenario, const SimOptions& options, std::uint64_t index);

/// The fewest trials per arm (a multiple of the design's unit, at most 400) at which
/// the fixed single test keeps at least 1 - miss_rate of the scenario's runs: what a
/// fixed design needs for the error rates the sequential one is held to.
unsigned fixed_trials_needed(const Scenario& scenario, const SimOptions& options,
                             std::uint64_t index);

}  // namespace tuner::verify
