// Keep or roll back? The verify loop's sequential decision (README.md in this folder has
// the method, its guarantees and the simulation that checks them).
//
// The loop runs a benchmark on the baseline (A) and on the candidate settings (B) in
// randomised units (schedule.h) and calls decide() as trials come in. At each scheduled
// look it tests, with the Wilcoxon signed-rank test on the units' contrasts of
// log-scaled values, whether the candidate is better than the baseline by more than
// min_effect. The looks' thresholds are set so that the chance of
// keeping by any look stays within an error-spending function, so the chance of keeping
// a group whose true gain is at most min_effect stays below false_keep_rate across all
// looks.
#pragma once

#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "probes/bench/bench.h"
#include "tuner/verify/spending.h"

namespace tuner::verify {

/// Which way is better for the benchmark's main metric: the benchmark's own.
using Direction = bench::Direction;

/// The units the mean test leaves out: `all_in` none; `balanced` the outlier units
/// that favour the candidate, and as many against it (README.md, "Stalls: the mean too").
enum class MeanOutliers { all_in, balanced };

struct Config {
  Direction direction = Direction::higher;
  /// Keep only a gain proven larger than this, relative to the baseline: 0.02 = 2%
  /// more throughput (higher is better) or 2% less latency (lower is better).
  double min_effect = 0.02;
  /// The gain that must not be given up early: stopping for futility (no_gain) happens
  /// only once a gain this large is ruled out. Unset: max(0.05, 2 * min_effect).
  /// 0: stop early only on proven harm (for groups kept when neutral).
  std::optional<double> power_effect;
  /// Largest chance of keeping a group whose true gain is at most min_effect.
  double false_keep_rate = 0.01;
  /// The miss rate aimed at for a true gain of power_effect. Half of it bounds early
  /// stops (no_gain or harm) when the true gain is power_effect or more, and calling
  /// harm when there is none; the other half is left for ending inconclusive at
  /// max_trials, which depends on the noise (README.md: the simulation).
  double miss_rate = 0.05;
  unsigned min_trials = 5;   ///< per arm before the first look (>= 5)
  unsigned max_trials = 40;  ///< per arm; the last look (the profile's max_trials)
  unsigned look_every = 5;   ///< trials per arm between looks
  /// Trials per arm in one randomised unit (schedule.h): 1 for the interleaved design
  /// (a pair AB or BA), the block size for the blocked one. The test runs on one
  /// contrast per unit; a look uses the complete units it has.
  unsigned unit = 1;
  Spending keep_spending = Spending::quadratic;
  Spending futility_spending = Spending::pocock;
  /// Calibrate the look thresholds on the simulated joint law of the looks
  /// (calibration.h; about 0.3 s once per design). false: union bound only, which
  /// is valid without simulation but stricter.
  bool calibrate = true;
  /// Outlier units (README.md, "Outlier units"): each test leaves out a unit with a
  /// trial more than outlier_k median absolute deviations from the pooled trials (the
  /// candidate's moved back by the test's null), at most a quarter of the units; 0
  /// keeps every unit.
  double outlier_k = 6;
  /// Keep only when the mean gains too (README.md, "Stalls: the mean too"): the test on
  /// the arithmetic means must also reject "mean gain <= min_effect" at the look's
  /// threshold. false: the signed-rank test alone (median-type, blind to stalls).
  bool mean_test = true;
  /// Which units the mean test leaves out: none by default. `balanced` (the rule before
  /// 2026-12: outlier units for the candidate, and as many against it) keeps +5% under
  /// symmetric outliers more often, but keeps a candidate that adds stalls to a baseline
  /// with some 17% of the time at the threshold (README.md, "Stalls: what no rule can
  /// do"): pairing removes the variance of the two arms' stall counts.
  MeanOutliers mean_outliers = MeanOutliers::all_in;
  /// The mean test keeps from this many units on (0: from the first look that can).
  /// Later looks see more of a rare stall; they cost trials (README.md, "Stalls").
  unsigned mean_min_units = 0;
};

/// Checks ranges: min_effect in (-1, 1) (negative: a non-inferiority margin),
/// power_effect in [0, 1), rates in (0, 0.5),
/// 5 <= min_trials <= max_trials <= 1000, look_every >= 1. The error names the field.
Status validate(const Config& config);

/// The unit contrasts (mean of b - a per unit of `unit` trials, scores) that a test of
/// "centre = delta" uses: a unit is left out when one of its trials lies more than k
/// median absolute deviations from the median of the pool of all trials, the
/// candidate's moved back by delta; the farthest go first, at most a quarter of the
/// units (k <= 0, or no spread in the pool: all). The rule reads only the pool and each
/// unit's own trials, which swapping a unit's arms leaves as they were: under that
/// null the signs of the units kept are still fair coins, so the test stays exact.
std::vector<double> without_outliers(std::span<const double> a, std::span<const double> b,
                                     unsigned unit, double k, double delta);

/// Which units without_outliers() leaves out, one flag per complete unit.
std::vector<bool> outlier_units(std::span<const double> a, std::span<const double> b, unsigned unit,
                                double k, double delta);

/// The power_effect in use (the explicit one, or the default).
double power_effect(const Config& config);

/// The error rate spent on early stops: half of miss_rate.
double futility_rate(const Config& config);

/// Trials per arm at each look: min_trials, then every look_every, and max_trials last.
std::vector<unsigned> look_points(const Config& config);

/// Trials per arm the next look needs once each arm has `trials`; 0 past the last.
unsigned next_look(const Config& config, unsigned trials);

enum class Verdict {
  keep,          ///< the gain is proven larger than min_effect
  no_gain,       ///< a gain of power_effect or more is ruled out: stop, roll back
  harm,          ///< the candidate is shown worse than the baseline
  inconclusive,  ///< max_trials reached with neither proven
  more_trials,   ///< no verdict yet: run trials up to the next look
};

/// "keep", "no_gain", "harm", "inconclusive", "continue" (JSON and journal).
std::string_view verdict_name(Verdict v);
std::optional<Verdict> parse_verdict(std::string_view name);

/// How effects are made relative. `ratio` (all values > 0, the usual case): tests
/// and estimates work on log values, so an effect is a ratio of the candidate to the
/// baseline. `difference` (some value <= 0): on raw values, an effect is a shift
/// divided by |baseline median|.
enum class Scale { ratio, difference };

/// "ratio" / "difference".
std::string_view scale_name(Scale s);
std::optional<Scale> parse_scale(std::string_view name);

/// The numbers behind a decision, all effects relative and positive = better in the
/// direction's sense (a 3% lower latency is +0.03).
struct Stats {
  double baseline_median = 0;
  double candidate_median = 0;
  double effect = 0;   ///< Hodges–Lehmann shift, relative; NaN before the first look
  double ci_low = 0;   ///< confidence interval of the effect at ci_level (two-sided);
  double ci_high = 0;  ///< +-inf when the sample is too small for that level, NaN
                       ///< before the first look (JSON writers: null)
  /// 0.95, or less when the rates are larger: 1 - 2 max(false_keep_rate, miss_rate/2),
  /// so that the interval always agrees with the verdict.
  double ci_level = 0;
  double p = 1;           ///< one-sided p of "gain <= min_effect" at this look
  double p_futility = 1;  ///< one-sided p of "gain >= power_effect" at this look
  /// The gain in the arithmetic mean: the candidate's mean over the baseline's, made
  /// relative like `effect`; NaN before the first look (and in documents of versions
  /// before it). Stalls show here, not there.
  double mean_effect = std::numeric_limits<double>::quiet_NaN();
  double p_mean = 1;           ///< one-sided p of "mean gain <= min_effect" at this look
  unsigned mean_left_out = 0;  ///< units the mean test left out (Config::mean_outliers)
  unsigned trials = 0;         ///< per arm, used at this look
  unsigned units = 0;          ///< randomised units (contrasts) used at this look
  unsigned outliers = 0;       ///< of them, left out as outliers (Config::outlier_k)
  unsigned look = 0;           ///< 1-based; 0 before the first look
  unsigned looks = 0;          ///< planned looks
  double alpha_look = 0;       ///< p must be <= this at this look to keep
  double alpha_spent = 0;      ///< false-keep rate spent up to and including this look
  double beta_look = 0;        ///< p_futility (and harm's p) must be <= this to stop
  /// The look thresholds come from the simulated joint law of the looks (tie-free
  /// data, a design within calibration.h's limits); false: from the union bound.
  bool calibrated = false;
  Scale scale = Scale::ratio;
  /// The noise pre-check, from the third unit on: the chance that a gain of
  /// power_effect is kept by max_trials at the spread seen so far, and the trials per
  /// arm that would give it 80%. NaN and 0 when not yet estimated.
  double power_at_max = std::numeric_limits<double>::quiet_NaN();
  unsigned trials_needed = 0;
};

struct Decision {
  Verdict verdict = Verdict::more_trials;
  Stats stats;
};

/// Decides on the trials so far: baseline[i] and candidate[i] are the main metric of
/// the i-th trial of each arm, in the order run. Uses the latest look that both arms
/// have reached and only the first look-point trials of each arm, so the answer does
/// not change until the next look: calling it after every trial is safe and spends
/// no extra error. Errors: invalid config, a non-finite value, a zero baseline median
/// on the difference scale.
Result<Decision> decide(const Config& config, std::span<const double> baseline,
                        std::span<const double> candidate);

}  // namespace tuner::verify
