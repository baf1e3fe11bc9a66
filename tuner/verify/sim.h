// A simulated benchmark with known effects and noise, to measure how often the decision
// keeps what it should not (false keeps) and misses what it should keep, and how many
// trials it needs. decision_sim.cc prints the table; sim_test.cc asserts the targets.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "tuner/verify/decision.h"

namespace tuner::verify {

enum class Noise {
  normal,      ///< value = mu (1 + cv Z)
  student_t3,  ///< value = mu exp(cv / sqrt(3) T3): heavy tails, log-sd = cv
  drift,       ///< normal, times 1 + 0.1% per trial in the better direction
  outlier,     ///< normal, and each trial with probability 1/10 is 30% slow
  spread,      ///< normal, but the candidate's noise is twice the baseline's
  quantized,   ///< normal, rounded to whole units of a mean of 100: many ties
};

/// "normal", "t3", "drift", "outlier", "spread", "quantized".
std::string_view noise_name(Noise n);

struct Scenario {
  Noise noise = Noise::normal;
  double cv = 0.03;   ///< noise relative to the mean
  double effect = 0;  ///< true relative gain, positive = better
  Direction direction = Direction::higher;
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
  MethodOutcome sequential;  ///< decide() under `config`, interleaved ABBA order
  /// 5 baseline runs then 3 candidate runs, keep if the candidate's mean is better
  /// (trials counted as 4 per arm).
  MethodOutcome naive;
  /// One one-sided Mann–Whitney test against min_effect at false_keep_rate, on the
  /// first `fixed_small` trials per arm of the same interleaved runs.
  MethodOutcome fixed_small;
  MethodOutcome fixed_large;  ///< the same at `fixed_large` trials per arm
};

struct SimOptions {
  unsigned reps = 2000;
  std::uint64_t seed = 1;
  Config config;  ///< the sequential procedure under test
  unsigned fixed_small = 10;
  unsigned fixed_large = 22;
};

/// The config the simulation targets: min_effect 1%, false_keep_rate 1%, max 40.
Config sim_config();

/// The scenarios of the README table: noise x cv {3%, 1%} x effect {0, +1%, +5%, -5%}
/// for higher-is-better, the same effects for a lower-is-better metric under normal
/// and outlier noise at 3%, and for quantized values (ties) at 3%, and one with a
/// wider candidate spread and no effect.
std::vector<Scenario> standard_scenarios();

/// Runs `options.reps` replications of one scenario for every method. Deterministic:
/// replication r of scenario `index` draws from a generator seeded by (seed, index, r).
ScenarioResult simulate(const Scenario& scenario, const SimOptions& options, std::uint64_t index);

}  // namespace tuner::verify
